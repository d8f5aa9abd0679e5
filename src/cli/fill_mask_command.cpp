// attnscope-cli fill-mask --model M [--top-k K] [--json] [--input FILE] TEXT...
// Text output, per text: the text with every [MASK] replaced by its best piece, then one line per
// [MASK]: "  <position>: piece probability  piece probability ...". --json: one object per text
// with the pieces, ids, segments, the predictions and the attention of every site.
#include "cli/fill_mask_command.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli/attribution_json.h"
#include "cli/command.h"
#include "cli/json_output.h"
#include "model/encoder_only.h"

namespace attnscope::cli {

const char* kFillMaskUsage =
    "  attnscope-cli fill-mask --model FILE [--top-k K] [--json] [--input FILE] TEXT...\n"
    "      encoder-only (BERT) models: the K best pieces (default 5) for every [MASK] of each TEXT;\n"
    "      a pair is 'text A [SEP] text B'; --json adds pieces, segments and every attention map;\n"
    "      --attribution METHOD (and --ig-steps, --baseline, --contrast) adds what drove each [MASK]'s best piece\n";

namespace {

using json = nlohmann::json;

struct Args {
  std::string model, input;
  int top_k = 5;
  bool json = false;
  AttributionRequest attribution;
  std::vector<std::string> texts;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--model") a.model = value();
    else if (arg == "--input") a.input = value();
    else if (arg == "--json") a.json = true;
    else if (arg == "--top-k") {
      const std::string v = value();
      std::size_t used = 0;
      int k = 0;
      try {
        k = std::stoi(v, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != v.size() || k < 1) throw Error("--top-k needs a positive integer, got '" + v + "'");
      a.top_k = k;
    } else if (parse_attribution_flag(arg, value, a.attribution)) a.json = a.json || a.attribution.on;
    else if (arg.rfind("--", 0) == 0) throw Error("unknown option " + arg);
    else a.texts.push_back(arg);
  }
  if (a.model.empty()) throw Error("--model FILE is required");
  if (a.texts.empty() && a.input.empty()) throw Error("give a text with [MASK], or --input FILE");
  return a;
}

json to_json(const Model& model, const FillMask& f, const AttributionRequest& attribution) {
  const EncoderInput& in = f.encoding.input;
  json masks = json::array();
  for (const MaskPrediction& m : f.masks) {
    json top = json::array();
    for (const Candidate& c : m.top)
      top.push_back({{"id", c.id}, {"token", c.piece}, {"prob", c.probability}, {"logit", c.logit}});
    masks.push_back({{"position", m.position}, {"top_k", top}});
    if (attribution.on)
      masks.back()["attribution"] = mask_attribution_to_json(model, f.encoding, m.position, m.top[0].id, attribution);
  }
  json attention = json::object();
  const SiteTable& sites = model.sites();
  for (std::size_t i = 0; i < sites.size(); ++i)
    attention[sites[i].name] = tensor_to_json(site_attention(f.encoding.trace.attention, static_cast<int>(i)));
  return {{"tokens", in.pieces}, {"ids", in.ids}, {"segments", in.segments}, {"unknown_words", in.unknown},
          {"masks", masks}, {"attention", attention}};
}

std::string filled(const Model& model, const FillMask& f) {
  std::vector<std::string> pieces = f.encoding.input.pieces;
  for (const MaskPrediction& m : f.masks) pieces[static_cast<std::size_t>(m.position)] = m.top[0].piece;
  pieces.erase(pieces.begin());  // [CLS]
  pieces.pop_back();             // the final [SEP]
  return model.tokenizer->join(pieces);
}

bool fill_one(const Model& model, const Args& args, const std::string& text) {
  try {
    const FillMask f = fill_mask(model, text, args.top_k, Capture{args.json, false, false});
    if (args.json) {
      json j = to_json(model, f, args.attribution);
      j["text"] = text;
      std::cout << json_text(j) << "\n";
      return true;
    }
    std::cout << printable(filled(model, f)) << "\n";
    for (const MaskPrediction& m : f.masks) {
      std::cout << "  " << m.position << ":";
      for (const Candidate& c : m.top) std::cout << "  " << printable(c.piece) << " " << std::fixed << std::setprecision(4) << c.probability;
      std::cout << "\n";
    }
    return true;
  } catch (const InputError& e) {
    std::cerr << "attnscope-cli: error: " << printable(e.what()) << " (text: " << quote(text) << ")\n";
    std::cout << (args.json ? "{\"error\":" + json_text(e.what()) + "}" : "") << "\n";
    return false;
  }
}

}  // namespace

int fill_mask_main(int argc, char** argv) {
  return run_command(argc, argv, kFillMaskUsage, parse, [](Args args) {
    const auto model = Model::load_file(args.model);
    encoder_only(*model);  // a model of another kind is a usage error, before any text
    prepare_attribution(args.attribution, model, model->src_vocab);
    bool all_ok = true;
    for (const std::string& t : args.texts) all_ok &= fill_one(*model, args, t);
    if (!args.input.empty())
      for (const std::string& line : read_lines(args.input, "input file")) all_ok &= fill_one(*model, args, line);
    return all_ok ? 0 : 3;
  });
}

}  // namespace attnscope::cli
