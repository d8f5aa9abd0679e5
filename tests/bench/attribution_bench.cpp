// attnscope-attribution-bench: the cost of explaining one step (run by `npm run bench`,
// tests/bench/run.sh; prints numbers, asserts nothing).
//
//   attnscope-attribution-bench --model FILE [--repeats N] SENTENCE...
//
// For each sentence, greedy-decoded first, at its middle step: the gradient pass's forward over
// the sentence (train/differentiable.h, what every attribution method runs at least once), gradient
// × input (that forward and one backward, analysis/attribution.h), integrated gradients with 32
// points, erasure, and for scale the session's own decoding up to that step. Medians of N runs, in ms, and the
// ratio gradient × input / forward (the target is at most 3).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "analysis/attribution_session.h"

using namespace attnscope;

namespace {

double median_ms(int repeats, const std::function<void()>& f) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int repeats = 21;
  std::vector<std::string> sentences;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--model" && i + 1 < argc) path = argv[++i];
    else if (arg == "--repeats" && i + 1 < argc) repeats = std::max(1, std::atoi(argv[++i]));
    else sentences.push_back(arg);
  }
  if (path.empty() || sentences.empty()) {
    std::fprintf(stderr, "usage: attnscope-attribution-bench --model FILE [--repeats N] SENTENCE...\n");
    return 2;
  }
  std::ifstream in(path, std::ios::binary);
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto model = Model::load_bytes(bytes.data(), bytes.size());
  const auto pass = train::differentiable_from_bytes(bytes.data(), bytes.size());
  std::printf("%-40s %5s %5s %9s %9s %7s %9s %9s %9s\n", "sentence (middle step)", "src", "tgt", "forward", "grad×in",
              "ratio", "IG-32", "erasure", "decode");
  for (const std::string& sentence : sentences) {
    DecodeOptions options;
    options.capture.attention = true;
    DecodeSession session(model, sentence, options);
    session.run();
    const int step = session.steps_taken() / 2;
    AttributionOptions gi, ig, erasure;
    ig.method = AttributionMethod::IntegratedGradients;
    erasure.method = AttributionMethod::Erasure;
    const TokenAttribution probe = session_attribution(session, *pass, step, 0, gi);
    const train::InputEmbeddings x = pass->embed(probe.tokens);
    const double forward = median_ms(repeats, [&] { pass->forward(probe.tokens, x); });
    const double gradient = median_ms(repeats, [&] { session_attribution(session, *pass, step, 0, gi); });
    const double integrated = median_ms(std::max(1, repeats / 4), [&] { session_attribution(session, *pass, step, 0, ig); });
    const double erased = median_ms(std::max(1, repeats / 4), [&] { session_attribution(session, *pass, step, 0, erasure); });
    // For scale: the session itself, encoding the sentence and decoding up to that step.
    const double decode = median_ms(repeats, [&] {
      DecodeSession replay(model, sentence, {});
      for (int k = 0; k <= step; ++k) replay.step();
    });
    std::printf("%-40.40s %5zu %5zu %9.3f %9.3f %6.2fx %9.3f %9.3f %9.3f\n", sentence.c_str(), probe.tokens.source.size(),
                probe.tokens.target.size(), forward, gradient, gradient / forward, integrated, erased, decode);
  }
  std::printf("ms, medians of %d runs (IG and erasure: %d); decode: the session encoding and decoding up to that step\n",
              repeats, std::max(1, repeats / 4));
  return 0;
}
