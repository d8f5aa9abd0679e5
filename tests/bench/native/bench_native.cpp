// attnscope-bench: the native engine as a benchmark worker for tests/bench/bench.mjs (issue 8).
//
//   attnscope-bench --model FILE --input SENTENCES --max-length N
//
// Loads the model and the sentences (one a line), prints {"ready": true, "load_ms": ...}, then
// answers commands read from stdin, one JSON line each:
//   greedy [N]        greedy decode of the first N sentences (all by default), capture off
//   capture [N]       the same with attention and logits captured (the JS API's default)
//   capture-all [N]   attention, logits and named vectors captured
//   beam K [N]        beam search of width K, capture off
//   quit
// Each answer: {"mode", "encode_ms": [...], "decode_ms": [...], "first_token_ms": [...],
// "tokens": [...], "steps": [...], "ids": [[...], ...]} per sentence. encode_ms is the
// DecodeSession constructor (tokenizing, the encoder and the cross-attention key/value
// projection), decode_ms the first step() and run(), first_token_ms the constructor and the
// first step; tokens is the length of the best hypothesis (</s> included), steps the number of
// decoder steps taken.
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decoding/session.h"

using namespace attnscope;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

nlohmann::json run(const std::shared_ptr<const Model>& model, const std::vector<std::string>& sentences,
                   const std::string& mode, int beam, std::size_t count, int max_length) {
  DecodeOptions options;
  options.max_length = max_length;
  options.alternatives = 0;
  if (mode == "beam") options.strategy = Strategy::Beam, options.beam_size = beam;
  if (mode == "capture" || mode == "capture-all") options.capture.attention = options.capture.logits = true;
  if (mode == "capture-all") options.capture.vectors = true;
  nlohmann::json out = {{"mode", mode == "beam" ? "beam" + std::to_string(beam) : mode}};
  std::vector<double> encode_ms, decode_ms, first_token_ms;
  std::vector<int> tokens, steps;
  std::vector<std::vector<int>> ids;
  count = std::min(count, sentences.size());
  for (std::size_t i = 0; i < count; ++i) {
    const auto t0 = Clock::now();
    DecodeSession session(model, sentences[i], options);
    encode_ms.push_back(ms_since(t0));
    const auto t1 = Clock::now();
    session.step();
    first_token_ms.push_back(ms_since(t0));
    session.run();
    decode_ms.push_back(ms_since(t1));
    const auto best = session.nbest();
    ids.push_back(best.empty() ? std::vector<int>{} : best[0].tokens);
    tokens.push_back(static_cast<int>(ids.back().size()));
    steps.push_back(session.steps_taken());
  }
  out["encode_ms"] = encode_ms;
  out["decode_ms"] = decode_ms;
  out["first_token_ms"] = first_token_ms;
  out["tokens"] = tokens;
  out["steps"] = steps;
  out["ids"] = ids;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_path, input;
  int max_length = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--model") model_path = argv[i + 1];
    else if (flag == "--input") input = argv[i + 1];
    else if (flag == "--max-length") max_length = std::stoi(argv[i + 1]);
    else {
      std::cerr << "attnscope-bench: unknown option " << flag << "\n";
      return 2;
    }
  }
  if (model_path.empty() || input.empty()) {
    std::cerr << "usage: attnscope-bench --model FILE --input SENTENCES [--max-length N]\n";
    return 2;
  }
  try {
    std::vector<std::string> sentences;
    std::ifstream in(input);
    for (std::string line; std::getline(in, line);) sentences.push_back(line);
    const auto t0 = Clock::now();
    const std::shared_ptr<const Model> model = Model::load_file(model_path);
    std::cout << nlohmann::json{{"ready", true}, {"load_ms", ms_since(t0)}, {"sentences", sentences.size()}}.dump()
              << std::endl;
    for (std::string line; std::getline(std::cin, line);) {
      std::istringstream words(line);
      std::string mode;
      words >> mode;
      if (mode == "quit") break;
      int beam = 0;
      if (mode == "beam") words >> beam;
      std::size_t count = sentences.size();
      std::string limit;
      if (words >> limit) count = std::stoul(limit);
      if (mode != "greedy" && mode != "capture" && mode != "capture-all" && !(mode == "beam" && beam > 0)) {
        std::cout << nlohmann::json{{"error", "unknown command '" + line + "'"}}.dump() << std::endl;
        continue;
      }
      std::cout << run(model, sentences, mode, beam, count, max_length).dump() << std::endl;
    }
  } catch (const std::exception& e) {
    std::cerr << "attnscope-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
