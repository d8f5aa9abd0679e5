// attnscope-cli: the native front end, used by people, benchmarks and the evaluation scripts.
//
//   attnscope-cli translate --model M [--json] [--top-k K] [--max-steps N] "sentence" ...
//   attnscope-cli translate --model M --input FILE     (one sentence a line, one translation a line)
//   attnscope-cli info --model M
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cli/json_output.h"
#include "decoding/greedy.h"

namespace {

using namespace attnscope;

const char* kUsage =
    "usage:\n"
    "  attnscope-cli translate --model FILE [options] SENTENCE...\n"
    "  attnscope-cli translate --model FILE --input FILE [options]\n"
    "  attnscope-cli info --model FILE\n"
    "options:\n"
    "  --json          print one JSON object per sentence: tokens, top-k logits and attention of every step\n"
    "  --top-k K       alternatives per step in --json output (default 5)\n"
    "  --max-steps N   generate at most N tokens (default: as many as the model's positions allow)\n";

struct Args {
  std::string command, model, input;
  bool json = false;
  int top_k = 5, max_steps = 0;
  std::vector<std::string> sentences;
};

int parse_int(const std::string& flag, const std::string& value) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(value, &used);
    if (used == value.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw Error(flag + " needs a non-negative integer, got '" + value + "'");
}

Args parse_args(int argc, char** argv) {
  if (argc < 2) throw Error("no command given");
  Args a;
  a.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--model") a.model = value();
    else if (arg == "--input") a.input = value();
    else if (arg == "--json") a.json = true;
    else if (arg == "--top-k") a.top_k = parse_int(arg, value());
    else if (arg == "--max-steps") a.max_steps = parse_int(arg, value());
    else if (arg.rfind("--", 0) == 0) throw Error("unknown option " + arg);
    else a.sentences.push_back(arg);
  }
  if (a.command != "translate" && a.command != "info") throw Error("unknown command '" + a.command + "'");
  if (a.model.empty()) throw Error("--model FILE is required");
  if (a.command == "translate" && a.input.empty() && a.sentences.empty())
    throw Error("give a sentence to translate, or --input FILE");
  return a;
}

void print_info(const Model& model) {
  nlohmann::json info = {{"config", nlohmann::json::parse(model.config.to_json())},
                         {"tokenizer", nlohmann::json::parse(model.tokenizer->to_json())},
                         {"src_vocab_size", model.src_vocab.size()},
                         {"tgt_vocab_size", model.tgt_vocab.size()}};
  for (const char* key : {"name", "description"})
    if (model.metadata.count(key)) info[key] = model.metadata.at(key);
  std::cout << info.dump(2) << "\n";
}

// Translates one sentence and prints it. A bad sentence is reported on stderr and leaves an
// empty output line, so that line i of the output still belongs to line i of the input.
bool translate_one(const Model& model, const Args& args, const std::string& sentence) {
  GreedyOptions options;
  options.max_steps = args.max_steps;
  options.capture.attention = options.capture.logits = args.json;
  try {
    const Translation t = translate_greedy(model, sentence, options);
    if (args.json) {
      nlohmann::json j = cli::translation_to_json(model, t, args.top_k);
      j["source"] = sentence;
      std::cout << j.dump() << "\n";
    } else {
      std::cout << t.text << "\n";
      if (!t.source.unknown.empty()) {
        std::cerr << "attnscope-cli: warning: unknown words:";
        for (const std::string& w : t.source.unknown) std::cerr << " " << w;
        std::cerr << "\n";
      }
    }
    return true;
  } catch (const InputError& e) {
    std::cerr << "attnscope-cli: error: " << e.what() << " (sentence: '" << sentence << "')\n";
    std::cout << (args.json ? "{\"error\":" + nlohmann::json(e.what()).dump() + "}" : "") << "\n";
    return false;
  }
}

int run(const Args& args) {
  const auto model = Model::load_file(args.model);
  if (args.command == "info") {
    print_info(*model);
    return 0;
  }
  bool all_ok = true;
  for (const std::string& s : args.sentences) all_ok &= translate_one(*model, args, s);
  if (!args.input.empty()) {
    std::ifstream in(args.input);
    if (!in) throw Error("cannot open input file '" + args.input + "'");
    std::string line;
    while (std::getline(in, line)) all_ok &= translate_one(*model, args, line);
  }
  return all_ok ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const attnscope::Error& e) {
    std::cerr << "attnscope-cli: error: " << e.what() << "\n";
    if (std::string(e.what()).find("command") != std::string::npos || argc < 2) std::cerr << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "attnscope-cli: internal error: " << e.what() << "\n";
    return 1;
  }
}
