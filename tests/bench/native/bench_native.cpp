// attnscope-bench: the native engine as a benchmark worker for tests/bench/bench.mjs.
//
//   attnscope-bench --model FILE --input SENTENCES --max-length N
//
// Loads the model and the sentences (one a line), prints {"ready": true, "load_ms": ...}, then
// answers commands read from stdin, one JSON line each:
//   MODE[,MODE...] [N]   decode the first N sentences (all by default) in every MODE, the modes
//                        taking turns sentence by sentence (the order rotates from sentence to
//                        sentence and from command to command, so they share the noise)
//   quit
// MODE: greedy (capture off), capture (attention and logits, the JS API's default),
// capture-all (attention, logits and named vectors), beamK (beam search of width K, capture off),
// eigen (greedy, capture off, with ops::linear computed by Eigen's product instead of the
// engine's hand-written kernel; in a checkout without the kernel, Eigen is all there is),
// int8 (greedy, capture off, the model loaded a second time with the int8 option; a checkout
// without it answers with an error).
// Each answer: {"runs": {MODE: {"encode_ms": [...], "decode_ms": [...], "first_token_ms": [...],
// "tokens": [...], "steps": [...], "ids": [[...], ...]}}} per sentence. encode_ms is the
// DecodeSession constructor (tokenizing, the encoder and the cross-attention key/value
// projection), decode_ms the first step() and run(), first_token_ms the constructor and the
// first step; tokens is the length of the best hypothesis (</s> included), steps the number of
// decoder steps taken.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "decoding/session.h"

// Checkouts with the hand-written kernel can switch ops::linear to Eigen's product at run time.
#if __has_include("ops/gemm_simd.h")
#define HAVE_MATMUL_PATH 1
#include "ops/ops.h"
#endif
// Checkouts with int8 weights can load the model with them.
#if __has_include("ops/gemm_int8.h")
#define HAVE_INT8 1
#endif

using namespace attnscope;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Mode {
  DecodeOptions options;
  bool eigen = false;  // ops::linear by Eigen's product
  bool int8 = false;   // the model loaded with int8 decoder-step weights
};

// Selects the product ops::linear uses (a no-op without the kernel: Eigen is the only one).
void use_eigen(bool eigen) {
#ifdef HAVE_MATMUL_PATH
  ops::set_matmul_path(eigen ? ops::MatmulPath::Eigen : ops::MatmulPath::Kernel);
#else
  (void)eigen;
#endif
}

// The decoding options of a mode; throws Error for an unknown one.
Mode mode_for(const std::string& mode, int max_length) {
  Mode m;
  m.eigen = mode == "eigen";
  m.int8 = mode == "int8";
  DecodeOptions& options = m.options;
  options.max_length = max_length;
  options.alternatives = 0;
  if (mode == "capture" || mode == "capture-all") options.capture.attention = options.capture.logits = true;
  if (mode == "capture-all") options.capture.vectors = true;
  if (mode.rfind("beam", 0) == 0) {
    options.strategy = Strategy::Beam;
    options.beam_size = std::stoi(mode.substr(4));
  } else if (mode != "greedy" && mode != "capture" && mode != "capture-all" && mode != "eigen" &&
             mode != "int8") {
    throw Error("unknown mode '" + mode + "'");
  }
  options.validate();
  return m;
}

struct Runs {
  std::vector<double> encode_ms, decode_ms, first_token_ms;
  std::vector<int> tokens, steps;
  std::vector<std::vector<int>> ids;

  void decode(const std::shared_ptr<const Model>& model, const std::string& sentence, const Mode& mode) {
    use_eigen(mode.eigen);
    const DecodeOptions& options = mode.options;
    const auto t0 = Clock::now();
    DecodeSession session(model, sentence, options);
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
    use_eigen(false);
  }

  nlohmann::json json() const {
    return {{"encode_ms", encode_ms}, {"decode_ms", decode_ms}, {"first_token_ms", first_token_ms},
            {"tokens", tokens},       {"steps", steps},         {"ids", ids}};
  }
};

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
    std::shared_ptr<const Model> model_int8;  // loaded when a command first asks for it
    auto int8_model = [&]() {
#ifdef HAVE_INT8
      Model::LoadOptions load;
      load.int8 = true;
      if (!model_int8) model_int8 = Model::load_file(model_path, load);
      return model_int8;
#else
      throw Error("this checkout has no int8 weights");
      return model;
#endif
    };
#ifdef HAVE_MATMUL_PATH
    const bool kernel = true;
#else
    const bool kernel = false;
#endif
    std::cout << nlohmann::json{{"ready", true}, {"load_ms", ms_since(t0)}, {"sentences", sentences.size()},
                                {"kernel", kernel}}.dump()
              << std::endl;
    std::size_t command = 0;
    for (std::string line; std::getline(std::cin, line); ++command) {
      std::istringstream words(line);
      std::string list, limit;
      words >> list;
      if (list == "quit") break;
      try {
        std::vector<std::string> modes;
        std::vector<Mode> options;
        std::istringstream parts(list);
        for (std::string mode; std::getline(parts, mode, ',');) {
          modes.push_back(mode);
          options.push_back(mode_for(mode, max_length));
        }
        if (modes.empty()) throw Error("no mode given");
        const std::size_t count = std::min(sentences.size(), words >> limit ? std::stoul(limit) : sentences.size());
        std::vector<Runs> runs(modes.size());
        for (std::size_t i = 0; i < count; ++i)
          for (std::size_t k = 0; k < modes.size(); ++k) {
            const std::size_t m = (k + i + command) % modes.size();
            runs[m].decode(options[m].int8 ? int8_model() : model, sentences[i], options[m]);
          }
        nlohmann::json out = nlohmann::json::object();
        for (std::size_t m = 0; m < modes.size(); ++m) out[modes[m]] = runs[m].json();
        std::cout << nlohmann::json{{"runs", out}}.dump() << std::endl;
      } catch (const std::exception& e) {
        std::cout << nlohmann::json{{"error", "'" + line + "': " + e.what()}}.dump() << std::endl;
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "attnscope-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
