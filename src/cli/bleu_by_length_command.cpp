#include "cli/bleu_by_length_command.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "analysis/bleu_by_length.h"
#include "cli/command.h"
#include "cli/json_output.h"

namespace attnscope::cli {

const char* kBleuByLengthUsage =
    "  attnscope-cli bleu-by-length --model FILE --input SOURCES --refs REFERENCES [--bins 8,12,16,20]\n"
    "                               [decoding options] [--limit N] [--json]\n"
    "  attnscope-cli bleu-by-length --hyps TRANSLATIONS --input SOURCES --refs REFERENCES [--bins ...] [--json]\n"
    "      corpus BLEU (13a, as sacreBLEU) per bin of source length in words: translates every source\n"
    "      (or reads the translations, one a line) and prints each bin's sentence count and BLEU;\n"
    "      --bins E1,E2,...: bins 1-E1, E1+1-E2, ..., past the last (default 8,12,16,20);\n"
    "      --translations FILE: also write the model's translations there, one a line\n";

namespace {

using json = nlohmann::json;

json bleu_json(const Bleu& b) {
  return {{"bleu", b.score},
          {"precisions", b.precisions},
          {"brevityPenalty", b.brevity_penalty},
          {"hypLen", b.hyp_len},
          {"refLen", b.ref_len}};
}

json result_json(const BleuByLength& r) {
  json bins = json::array();
  for (const LengthBin& b : r.bins) {
    json bin = {{"minWords", b.min_words},
                {"maxWords", b.max_words > 0 ? json(b.max_words) : json(nullptr)},
                {"sentences", b.sentences}};
    if (b.sentences > 0) bin.update(bleu_json(b.bleu));
    else bin["bleu"] = nullptr;  // no BLEU is defined for no sentences
    bins.push_back(bin);
  }
  json total = {{"sentences", r.sentences}};
  total.update(bleu_json(r.total));
  return {{"edges", r.edges}, {"bins", bins}, {"total", total}};
}

void print_table(const BleuByLength& r) {
  std::printf("%-10s %9s %7s\n", "words", "sentences", "BLEU");
  for (const LengthBin& b : r.bins) {
    char range[32];
    if (b.max_words > 0) std::snprintf(range, sizeof range, "%d-%d", b.min_words, b.max_words);
    else std::snprintf(range, sizeof range, "%d+", b.min_words);
    if (b.sentences > 0) std::printf("%-10s %9d %7.2f\n", range, b.sentences, b.bleu.score);
    else std::printf("%-10s %9d %7s\n", range, b.sentences, "-");
  }
  std::printf("%-10s %9d %7.2f\n", "all", r.sentences, r.total.score);
}

std::vector<std::string> first_lines(const std::string& path, const std::string& what, int limit) {
  std::vector<std::string> lines = read_lines(path, what);
  if (limit > 0 && static_cast<int>(lines.size()) > limit) lines.resize(limit);
  return lines;
}

}  // namespace

std::vector<int> parse_length_edges(const std::string& text) {
  std::vector<int> edges;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    bool digits = !item.empty() && item.size() <= 9;
    for (char c : item) digits = digits && c >= '0' && c <= '9';
    if (!digits) throw Error("--bins needs comma-separated word counts such as 8,12,16,20, got '" + text + "'");
    edges.push_back(std::stoi(item));
    if (comma == std::string::npos) return edges;
    start = comma + 1;
  }
}

int bleu_by_length_command(const std::shared_ptr<const Model>& model, const DecodeOptions& decode, const BleuByLengthArgs& args) {
  const std::vector<int> edges = args.bins.empty() ? default_length_edges() : parse_length_edges(args.bins);
  check_length_edges(edges);
  const auto sources = first_lines(args.input, "input file", args.limit);
  const auto references = first_lines(args.refs, "references file", args.limit);
  BleuByLength result;
  if (model) {
    // On a terminal the count is redrawn in place; into a log it is written every 100 sentences.
    const bool terminal = isatty(fileno(stderr));
    std::vector<std::string> translations;
    result = translate_bleu_by_length(model, sources, references, decode, edges, &translations, [&](int done, int total) {
      if (terminal) std::cerr << "\rattnscope-cli: translated " << done << "/" << total << (done == total ? "\n" : "") << std::flush;
      else if (done > 0 && (done % 100 == 0 || done == total)) std::cerr << "attnscope-cli: translated " << done << "/" << total << "\n";
    });
    if (!args.translations.empty()) {
      std::ofstream out(args.translations);
      for (const std::string& t : translations) out << t << "\n";
      if (!out) throw Error("cannot write the translations to '" + args.translations + "'");
    }
  } else {
    result = bleu_by_length(sources, first_lines(args.hyps, "translations file", args.limit), references, edges);
  }
  if (args.json) std::cout << json_text(result_json(result), 1) << "\n" << std::flush;
  else {
    std::cout << std::flush;
    print_table(result);
  }
  return 0;
}

}  // namespace attnscope::cli
