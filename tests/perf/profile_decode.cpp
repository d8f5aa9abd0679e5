// Where does a greedy decode step spend its time? A profiling driver for the decoder's performance
// work, built natively and with Emscripten (run under Node) from the same source by
// tests/perf/run.sh. It uses only the engine's public API, so the same file also builds
// against an older checkout for before/after comparisons in one run.
//
//   profile_decode MODEL SENTENCES_TXT [sentences=50] [repeats=3]
//   (PROFILE_DECODE_ONLY=1 stops after the whole decodes.)
//
// Prints (1) whole-decode timings, greedy, capture off and on, per generated token and per
// sentence (CPU time, medians over the repeats; a RESULT line for tests/perf/run.sh), and (2)
// a per-token breakdown of a decoder step, timing each piece on the model's
// real weights at the shapes one step uses (averaged over the decode's actual lengths).
#include <algorithm>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "decoding/session.h"
#include "ops/ops.h"
// The transformer's weights: in their family's folder since the model-family seam, on the
// Model itself before it (so that BASE=<older revision> still builds).
#if __has_include("families/transformer/transformer.h")
#include "families/transformer/transformer.h"
#define TRANSFORMER_WEIGHTS(model) attnscope::transformer::of(*(model)).weights()
#else
#define TRANSFORMER_WEIGHTS(model) (*(model))
#endif

// Checkouts with the hand-written kernel can also time Eigen's path in the same process.
#if __has_include("ops/gemm_simd.h")
#define HAVE_MATMUL_PATH 1
#include "ops/gemm_simd.h"
#endif

using namespace attnscope;
namespace {

// CPU time of this thread (natively) or of the Node process (WASM), not wall time: the
// machines this runs on are shared, and time spent waiting for a core is not the engine's.
#ifdef __EMSCRIPTEN__
EM_JS(double, cpu_seconds, (), {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
});
#else
double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
#endif
struct Clock {
  using time_point = double;
  static double now() { return cpu_seconds(); }
};
double seconds_since(double t0) { return Clock::now() - t0; }

// Median of `repeats` timings of f(), in seconds per call, each timing running f() `inner` times.
template <class F>
double median_time(int repeats, int inner, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    for (int i = 0; i < inner; ++i) f();
    t.push_back(seconds_since(t0) / inner);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

volatile float sink = 0.0f;  // keeps results alive so the optimiser cannot drop the work

Matrix random_matrix(int rows, int cols, unsigned seed) {
  std::srand(seed);
  return Matrix::Random(rows, cols);
}

struct DecodeStats {
  double encode_s = 0, decode_s = 0;
  long steps = 0, tokens = 0, source_tokens = 0, target_tokens_sum_of_positions = 0;
};

DecodeStats decode_all(const std::shared_ptr<const Model>& model, const std::vector<std::string>& sentences,
                       const Capture& capture, std::vector<std::vector<int>>* outputs, int beam = 0) {
  DecodeStats s;
  for (const std::string& text : sentences) {
    DecodeOptions options;
    options.strategy = beam ? Strategy::Beam : Strategy::Greedy;
    options.beam_size = beam ? beam : options.beam_size;
    options.capture = capture;
    auto t0 = Clock::now();
    DecodeSession session(model, text, options);
    s.encode_s += seconds_since(t0);
    t0 = Clock::now();
    session.run();
    s.decode_s += seconds_since(t0);
    s.steps += static_cast<long>(session.history().size());
    const auto best = session.nbest().at(0).tokens;
    s.tokens += static_cast<long>(best.size());
    s.source_tokens += static_cast<long>(session.source().ids.size());
    s.target_tokens_sum_of_positions += static_cast<long>(best.size() * (best.size() + 1) / 2);
    if (outputs) outputs->push_back(best);
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL SENTENCES_TXT [sentences=50] [repeats=3]\n", argv[0]);
    return 2;
  }
  const int n_sentences = argc > 3 ? std::atoi(argv[3]) : 50;
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 3;

  auto t0 = Clock::now();
  const auto model = Model::load_file(argv[1]);
  std::printf("load: %.1f ms\n", 1e3 * seconds_since(t0));
  std::vector<std::string> sentences;
  {
    std::ifstream in(argv[2]);
    for (std::string line; std::getline(in, line) && static_cast<int>(sentences.size()) < n_sentences;)
      if (!line.empty()) sentences.push_back(line);
  }

  // (1) Whole decodes. Capture off and on alternate, so drifting machine load hits both alike.
  std::vector<std::vector<int>> tokens_off, tokens_on;
  Capture attention_only;
  attention_only.attention = true;
  std::vector<double> off_ms, on_ms, enc_ms, eigen_ms, eigen_enc_ms, beam_ms, beam_greedy_ms;
  std::vector<std::vector<int>> tokens_beam;
  long beam_steps = 0, greedy_steps = 0;  // decoder steps the beam sentences took
  // PROFILE_BEAM_ONLY=1: beam 4 decodes and nothing else (under perf record, a profile of beam steps).
  const bool beam_only = std::getenv("PROFILE_BEAM_ONLY") != nullptr;
  // Beam 4 on a third of the sentences, per sentence (encoder included).
  const std::vector<std::string> beam_sentences(sentences.begin(), sentences.begin() + (sentences.size() + 2) / 3);
  std::vector<std::vector<int>> tokens_eigen;
  DecodeStats shape;
  for (int r = 0; r < repeats; ++r) {
    if (beam_only) {
      tokens_beam.clear();
      const DecodeStats beam = decode_all(model, beam_sentences, Capture{}, &tokens_beam, 4);
      beam_ms.push_back(1e3 * (beam.encode_s + beam.decode_s) / beam_sentences.size());
      continue;
    }
    tokens_off.clear();
    tokens_on.clear();
    const DecodeStats off = decode_all(model, sentences, Capture{}, &tokens_off);
    const DecodeStats on = decode_all(model, sentences, attention_only, &tokens_on);
    off_ms.push_back(1e3 * off.decode_s / off.tokens);
    on_ms.push_back(1e3 * on.decode_s / on.tokens);
    enc_ms.push_back(1e3 * off.encode_s / sentences.size());
    shape = off;
    tokens_beam.clear();
    const DecodeStats beam = decode_all(model, beam_sentences, Capture{}, &tokens_beam, 4);
    beam_ms.push_back(1e3 * (beam.encode_s + beam.decode_s) / beam_sentences.size());
    // Greedy on the same sentences, per sentence, encoder included: what beam 4 is set against.
    const DecodeStats greedy = decode_all(model, beam_sentences, Capture{}, nullptr);
    beam_steps = beam.steps, greedy_steps = greedy.steps;
    beam_greedy_ms.push_back(1e3 * (greedy.encode_s + greedy.decode_s) / beam_sentences.size());
#ifdef HAVE_MATMUL_PATH
    tokens_eigen.clear();
    ops::set_matmul_path(ops::MatmulPath::Eigen);
    const DecodeStats eigen = decode_all(model, sentences, Capture{}, &tokens_eigen);
    ops::set_matmul_path(ops::MatmulPath::Kernel);
    eigen_ms.push_back(1e3 * eigen.decode_s / eigen.tokens);
    eigen_enc_ms.push_back(1e3 * eigen.encode_s / sentences.size());
#endif
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::uint64_t checksum = 0;  // the same in both builds (no 32-bit long in WASM)
  for (const auto& t : tokens_off) checksum = checksum * 31 + static_cast<std::uint64_t>(std::accumulate(t.begin(), t.end(), 0L));
  std::printf("sentences: %zu, generated tokens: %ld, token checksum %llu, capture on/off tokens %s\n",
              sentences.size(), shape.tokens, static_cast<unsigned long long>(checksum), tokens_off == tokens_on ? "equal" : "DIFFER");
  std::printf("encode per sentence:        %8.3f ms\n", median(enc_ms));
  std::printf("decode per token, capture off: %8.3f ms\n", median(off_ms));
  std::printf("decode per token, attention on: %7.3f ms  (overhead %+.1f%%)\n", median(on_ms),
              100.0 * (median(on_ms) / median(off_ms) - 1.0));
#ifdef HAVE_MATMUL_PATH
  std::printf("matmul kernel: %s; with Eigen's product instead: encode %.3f ms (x%.2f), decode per token %.3f ms "
              "(x%.2f), tokens %s\n",
              ops::simd::implementation(), median(eigen_enc_ms), median(eigen_enc_ms) / median(enc_ms),
              median(eigen_ms), median(eigen_ms) / median(off_ms), tokens_eigen == tokens_off ? "equal" : "DIFFER");
#endif

  std::uint64_t beam_checksum = 0;
  for (const auto& t : tokens_beam) beam_checksum = beam_checksum * 31 + static_cast<std::uint64_t>(std::accumulate(t.begin(), t.end(), 0L));
  std::printf("beam 4, per sentence (%zu sentences): %.3f ms, token checksum %llu\n", beam_sentences.size(),
              median(beam_ms), static_cast<unsigned long long>(beam_checksum));
  if (beam_only) return 0;
  // The ratio per repeat (beam and greedy ran side by side), then its median.
  std::vector<double> beam_ratio;
  for (std::size_t r = 0; r < beam_ms.size(); ++r) beam_ratio.push_back(beam_ms[r] / beam_greedy_ms[r]);
  std::printf("greedy, per sentence (the same %zu sentences): %.3f ms; beam 4 / greedy %.3f; decoder steps beam %ld, "
              "greedy %ld\n",
              beam_sentences.size(), median(beam_greedy_ms), median(beam_ratio), beam_steps, greedy_steps);
  std::printf("RESULT encode_ms=%.4f decode_ms=%.4f capture_ms=%.4f beam4_ms=%.4f beam4_over_greedy=%.4f checksum=%llu "
              "beam_checksum=%llu\n",
              median(enc_ms), median(off_ms), median(on_ms), median(beam_ms), median(beam_ratio),
              static_cast<unsigned long long>(checksum), static_cast<unsigned long long>(beam_checksum));
  if (std::getenv("PROFILE_DECODE_ONLY")) return 0;  // e.g. under perf record, for a profile of real steps

  // (2) The pieces of one decoder step, on the real weights, at the decode's mean lengths.
  const ModelConfig& c = model->config;
  const auto& tw = TRANSFORMER_WEIGHTS(model);
  const int d = c.d_model, vocab = model->tgt_vocab.size();
  const int src_len = static_cast<int>(shape.source_tokens / static_cast<long>(sentences.size()));
  const int self_len = std::max<int>(1, static_cast<int>(shape.target_tokens_sum_of_positions / shape.tokens));
  const int inner = 200;
  const Matrix x = random_matrix(1, d, 1);
  const Matrix hidden = random_matrix(1, c.d_ff, 2).cwiseMax(0.0f);
  const Matrix memory = random_matrix(src_len, d, 3);
  const Matrix self_k = random_matrix(self_len, d, 4), self_v = random_matrix(self_len, d, 5);
  std::vector<Matrix> cross_k, cross_v;
  for (const DecoderLayer& layer : tw.decoder_layers) {
    cross_k.push_back(layer.cross_attn.k_proj(memory));
    cross_v.push_back(layer.cross_attn.v_proj(memory));
  }

  struct Piece {
    const char* name;
    double ms;
  };
  std::vector<Piece> pieces;
  std::vector<std::function<void()>> work;
  auto time_piece = [&](const char* name, std::function<void()> f) {
    pieces.push_back({name, 1e3 * median_time(std::max(repeats, 5), inner, f)});
    work.push_back(std::move(f));
  };
  // Every layer's weights in turn, as a real step touches them (so the caches see the same traffic).
  time_piece("self-attn q,k,v projections", [&] {
    for (const DecoderLayer& l : tw.decoder_layers)
      sink = sink + l.self_attn.q_proj(x)(0, 0) + l.self_attn.k_proj(x)(0, 0) + l.self_attn.v_proj(x)(0, 0);
  });
  time_piece("self-attn out projection", [&] {
    for (const DecoderLayer& l : tw.decoder_layers) sink = sink + l.self_attn.out_proj(x)(0, 0);
  });
  time_piece("cross-attn q + out projections", [&] {
    for (const DecoderLayer& l : tw.decoder_layers) sink = sink + l.cross_attn.q_proj(x)(0, 0) + l.cross_attn.out_proj(x)(0, 0);
  });
  time_piece("self attention (scores, softmax, mix)", [&] {
    for (const DecoderLayer& l : tw.decoder_layers) sink = sink + l.self_attn.attend(x, self_k, self_v, nullptr)(0, 0);
  });
  time_piece("cross attention (scores, softmax, mix)", [&] {
    for (std::size_t i = 0; i < tw.decoder_layers.size(); ++i)
      sink = sink + tw.decoder_layers[i].cross_attn.attend(x, cross_k[i], cross_v[i], nullptr)(0, 0);
  });
  time_piece("ffn fc1 + relu + fc2", [&] {
    for (const DecoderLayer& l : tw.decoder_layers) {
      Matrix h = l.ffn.fc1(x);
      ops::activate(h, l.ffn.activation);
      sink = sink + l.ffn.fc2(h)(0, 0);
    }
  });
  time_piece("layer norms (3 per layer + final)", [&] {
    for (const DecoderLayer& l : tw.decoder_layers)
      sink = sink + l.self_attn_norm(x)(0, 0) + l.cross_attn_norm(x)(0, 0) + l.ffn_norm(x)(0, 0);
    sink = sink + tw.decoder_final_norm(x)(0, 0);
  });
  Matrix logits;
  time_piece("output logits (vocab x d GEMV)", [&] {
    logits = ops::linear(x, tw.output_weight(), tw.output_bias);
    sink = sink + logits(0, 0);
  });
  time_piece("log_softmax over the vocabulary", [&] { sink = sink + ops::log_softmax_rows(logits)(0, 0); });
  time_piece("top-10 alternatives (partial sort)", [&] {
    std::vector<int> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + 10, order.end(),
                      [&](int a, int b) { return logits(0, a) > logits(0, b); });
    sink = sink + order[0];
  });
  double sum = 0;
  for (const Piece& p : pieces) sum += p.ms;
  // The same pieces back to back, as a step runs them: each now finds the caches holding the
  // other pieces' weights rather than its own, as in a real decode.
  const double sequence_ms = 1e3 * median_time(std::max(repeats, 5), inner / 4, [&] {
    for (auto& f : work) f();
  });
  std::printf("\nper-token breakdown (%zu decoder layers, self length %d, source length %d, vocab %d):\n",
              tw.decoder_layers.size(), self_len, src_len, vocab);
  for (const Piece& p : pieces) std::printf("  %-40s %8.4f ms  %5.1f%%\n", p.name, p.ms, 100.0 * p.ms / sum);
  std::printf("  %-40s %8.4f ms\n", "sum of pieces", sum);
  std::printf("  %-40s %8.4f ms (a whole step in a decode: %.4f ms)\n", "the pieces in sequence", sequence_ms,
              median(off_ms));

  // (3) GEMV throughput on one d x d and the vocab x d matrix (the roofline's "peak" is the
  // first, hot in cache; the second streams 8 MB of weights).
  const auto& w = tw.decoder_layers[0].self_attn.q_proj.weight;
  const RowVector& b = tw.decoder_layers[0].self_attn.q_proj.bias;
  const double t_small = median_time(std::max(repeats, 5), 2000, [&] { sink = sink + ops::linear(x, w, b)(0, 0); });
  const double t_vocab = median_time(std::max(repeats, 5), 50, [&] {
    sink = sink + ops::linear(x, tw.output_weight(), tw.output_bias)(0, 0);
  });
  std::printf("\nGEMV %dx%d: %.2f GFLOP/s; GEMV %dx%d: %.2f GFLOP/s\n", d, d, 2.0 * d * d / t_small / 1e9, vocab, d,
              2.0 * vocab * d / t_vocab / 1e9);
#if __has_include("families/transformer/transformer.h")
  // (4) A beam of four rows against one: the output projection on the step weights (binary16,
  // packed) that a decode uses, and the vocabulary-wide log_softmax the beam needs per row.
  {
    const Matrix x4 = random_matrix(4, d, 6);
    const double one = median_time(std::max(repeats, 5), 50, [&] {
      sink = sink + ops::linear(x, tw.output_weight(), tw.output_bias)(0, 0);
    });
    const double four = median_time(std::max(repeats, 5), 50, [&] {
      sink = sink + ops::linear(x4, tw.output_weight(), tw.output_bias)(0, 0);
    });
    const Matrix logits4 = ops::linear(x4, tw.output_weight(), tw.output_bias);
    const double softmax4 = median_time(std::max(repeats, 5), 50, [&] { sink = sink + ops::log_softmax_rows(logits4)(0, 0); });
    std::printf("output projection on the step weights: 1 row %.4f ms, 4 rows %.4f ms (x%.2f); log_softmax of 4 rows "
                "%.4f ms\n", 1e3 * one, 1e3 * four, four / one, 1e3 * softmax4);
  }
#endif
#ifdef HAVE_MATMUL_PATH
  ops::set_matmul_path(ops::MatmulPath::Eigen);
  const double e_small = median_time(std::max(repeats, 5), 2000, [&] { sink = sink + ops::linear(x, w, b)(0, 0); });
  const double e_vocab = median_time(std::max(repeats, 5), 50, [&] {
    sink = sink + ops::linear(x, tw.output_weight(), tw.output_bias)(0, 0);
  });
  ops::set_matmul_path(ops::MatmulPath::Kernel);
  std::printf("Eigen's product: GEMV %dx%d: %.2f GFLOP/s; GEMV %dx%d: %.2f GFLOP/s\n", d, d, 2.0 * d * d / e_small / 1e9,
              vocab, d, 2.0 * vocab * d / e_vocab / 1e9);
#endif
  return 0;
}
