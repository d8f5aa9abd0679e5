// attnscope-cli bert-study --model M [--sentences FILE] [--json] [TEXT]
// For TEXT: the pattern class of every layer x head and, per layer, the shares of attention on
// [CLS], [SEP], punctuation, the previous and the next token, raw and norm-weighted. With
// --sentences (one sentence a line): the head-ablation map (masked-token accuracy, and its change
// with each head switched off). --json: one object with all of it, in the shapes of the JS API
// (model.headStudy / model.headAblation) plus the per-head shares and the counts.
#include "cli/encoder_study_command.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/encoder_study.h"
#include "cli/command.h"
#include "cli/json_output.h"

namespace attnscope::cli {

const char* kEncoderStudyUsage =
    "  attnscope-cli bert-study --model FILE [--sentences FILE] [--json] [TEXT]\n"
    "      encoder-only (BERT) models: every head's pattern class and the per-layer shares of attention\n"
    "      on [CLS]/[SEP]/punctuation/previous/next token (raw and norm-weighted) of TEXT; with\n"
    "      --sentences (one a line) the head-ablation map: masked-token accuracy with each head off\n";

namespace {

using json = nlohmann::json;

struct Args {
  std::string model, sentences, text;
  bool json = false;
};

Args parse(int argc, char** argv) {
  Args a;
  bool have_text = false;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--model") a.model = value();
    else if (arg == "--sentences") a.sentences = value();
    else if (arg == "--json") a.json = true;
    else if (arg.rfind("--", 0) == 0) throw Error("unknown option " + arg);
    else if (have_text) throw Error("give one TEXT (quote it), got a second: '" + arg + "'");
    else {
      a.text = arg;
      have_text = true;
    }
  }
  if (a.model.empty()) throw Error("--model FILE is required");
  if (!have_text && a.sentences.empty()) throw Error("give a TEXT, or --sentences FILE, or both");
  return a;
}

json shares_json(const AttentionShares& s) {
  return {{"cls", s.cls}, {"sep", s.sep}, {"punct", s.punct}, {"prev", s.prev}, {"next", s.next}};
}

json layers_json(const std::vector<AttentionShares>& layers) {
  json out = json::array();
  for (const AttentionShares& s : layers) out.push_back(shares_json(s));
  return out;
}

json heads_json(const std::vector<std::vector<AttentionShares>>& heads) {
  json out = json::array();
  for (const auto& layer : heads) out.push_back(layers_json(layer));
  return out;
}

void print_shares(const char* title, const std::vector<AttentionShares>& raw, const std::vector<AttentionShares>& norm) {
  std::cout << title << "\n  layer    cls    sep  punct   prev   next |    cls    sep  punct   prev   next\n";
  for (std::size_t l = 0; l < raw.size(); ++l) {
    std::cout << "  " << std::setw(5) << l;
    for (const AttentionShares* s : {&raw[l], &norm[l]}) {
      if (s == &norm[l]) std::cout << " |";
      for (double x : {s->cls, s->sep, s->punct, s->prev, s->next}) std::cout << " " << std::setw(6) << x;
    }
    std::cout << "\n";
  }
}


}  // namespace

int encoder_study_main(int argc, char** argv) {
  return run_command(argc, argv, kEncoderStudyUsage, parse, [](const Args& args) {
    const auto model = Model::load_file(args.model);
    encoder_only(*model);  // a model of another kind is a usage error, before any text
    json out = json::object();
    std::cout << std::fixed << std::setprecision(4);
    if (!args.text.empty()) {
      const Encoding e = encode_for_study(*model, args.text);
      const auto patterns = head_patterns(e);
      const ShareStudy s = attention_shares(*model, e);
      if (args.json) {
        out["text"] = args.text;
        out["tokens"] = e.input.pieces;
        out["patterns"] = patterns;
        out["shares"] = {{"raw", layers_json(s.raw)}, {"norm", layers_json(s.norm)},
                         {"rawHeads", heads_json(s.raw_heads)}, {"normHeads", heads_json(s.norm_heads)}};
      } else {
        std::cout << "pieces:";
        for (const std::string& p : e.input.pieces) std::cout << " " << printable(p);
        std::cout << "\npatterns (layer: head 0, head 1, ...):\n";
        for (std::size_t l = 0; l < patterns.size(); ++l) {
          std::cout << "  " << l << ":";
          for (const std::string& p : patterns[l]) std::cout << " " << p;
          std::cout << "\n";
        }
        print_shares("shares of attention, mean over heads and query rows: raw | norm-weighted", s.raw, s.norm);
      }
    }
    if (!args.sentences.empty()) {
      const std::vector<std::string> sentences = read_lines(args.sentences, "sentences file");
      const HeadAblation a = head_ablation(*model, sentences);
      if (args.json) {
        out["ablation"] = {{"baseAccuracy", a.base_accuracy}, {"positions", a.positions}, {"baseCorrect", a.base_correct},
                           {"sentences", sentences.size()}, {"correct", a.correct}, {"delta", a.delta}};
      } else {
        std::cout << "head ablation on " << sentences.size() << " sentences: masked-token accuracy " << a.base_accuracy
                  << " (" << a.base_correct << " of " << a.positions << " masked pieces); change with one head off:\n";
        for (std::size_t l = 0; l < a.delta.size(); ++l) {
          std::cout << "  layer " << l << ":";
          for (double d : a.delta[l]) std::cout << " " << std::showpos << d << std::noshowpos;
          std::cout << "\n";
        }
      }
    }
    if (args.json) std::cout << json_text(out) << "\n";
    return 0;
  });
}

}  // namespace attnscope::cli
