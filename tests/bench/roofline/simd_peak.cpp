// The WASM SIMD roofline for the benchmark: how fast a hand-written f32x4
// matrix-vector and matrix-matrix multiply run on this machine, under Node's V8.
// Built by tests/bench/run.sh (emcc -O3 -msimd128, MODULARIZE) and driven by bench.mjs:
//   callMain([d_model, d_ff, vocab, n_decoder_layers])  prints every figure as one JSON object;
//   _setup(d_model, d_ff, vocab, n_decoder_layers) then _decoder_step_gflops(passes): one sample
//   of the decoder-step GEMV rate, taken between sentences so that it shares the engines' noise.
//
// Matrices are row-major [out, in] (PyTorch's Linear layout, as the engine stores them) and
// the products are y = W x (GEMV) and C = A Wᵀ (GEMM), counted as 2·out·in (·rows) FLOPs.
// No fused multiply-add (not in baseline WASM SIMD): f32x4.mul + f32x4.add.
// Each figure is the best of several trials (a peak), each trial running >= ~100 ms.
#include <emscripten.h>
#include <wasm_simd128.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

float hsum(v128_t v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
         wasm_f32x4_extract_lane(v, 3);
}

// y[out] = W[out, in] x[in]; in % 8 == 0. Four rows at a time, two accumulators per row.
void gemv(const float* w, const float* x, float* y, int out, int in) {
  int i = 0;
  for (; i + 4 <= out; i += 4) {
    const float* r0 = w + (size_t)i * in;
    const float* r1 = r0 + in;
    const float* r2 = r1 + in;
    const float* r3 = r2 + in;
    v128_t a0 = wasm_f32x4_splat(0), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    for (int k = 0; k < in; k += 8) {
      const v128_t x0 = wasm_v128_load(x + k), x1 = wasm_v128_load(x + k + 4);
      a0 = wasm_f32x4_add(a0, wasm_f32x4_mul(wasm_v128_load(r0 + k), x0));
      b0 = wasm_f32x4_add(b0, wasm_f32x4_mul(wasm_v128_load(r0 + k + 4), x1));
      a1 = wasm_f32x4_add(a1, wasm_f32x4_mul(wasm_v128_load(r1 + k), x0));
      b1 = wasm_f32x4_add(b1, wasm_f32x4_mul(wasm_v128_load(r1 + k + 4), x1));
      a2 = wasm_f32x4_add(a2, wasm_f32x4_mul(wasm_v128_load(r2 + k), x0));
      b2 = wasm_f32x4_add(b2, wasm_f32x4_mul(wasm_v128_load(r2 + k + 4), x1));
      a3 = wasm_f32x4_add(a3, wasm_f32x4_mul(wasm_v128_load(r3 + k), x0));
      b3 = wasm_f32x4_add(b3, wasm_f32x4_mul(wasm_v128_load(r3 + k + 4), x1));
    }
    y[i] = hsum(wasm_f32x4_add(a0, b0));
    y[i + 1] = hsum(wasm_f32x4_add(a1, b1));
    y[i + 2] = hsum(wasm_f32x4_add(a2, b2));
    y[i + 3] = hsum(wasm_f32x4_add(a3, b3));
  }
  for (; i < out; ++i) {
    const float* r = w + (size_t)i * in;
    v128_t a = wasm_f32x4_splat(0);
    for (int k = 0; k < in; k += 4) a = wasm_f32x4_add(a, wasm_f32x4_mul(wasm_v128_load(r + k), wasm_v128_load(x + k)));
    y[i] = hsum(a);
  }
}

// int8 GEMV, WASM's integer dot product: y = W x with W int8 [out, in] and x int16, int32 sums;
// four rows at a time, each row's 16 weights widened to two i16x8 and multiplied-and-paired by
// i32x4.dot_i16x8_s (8 multiply-adds per instruction); in % 16 == 0, out % 4 == 0. Counted as
// 2·out·in operations, like the float GEMV, so the rates compare (how the engine's int8 option
// computes a step: src/ops/gemm_int8.h).
void gemv_int8(const int8_t* w, const int16_t* x, int32_t* y, int out, int in) {
  for (int i = 0; i + 4 <= out; i += 4) {
    const int8_t* r = w + (size_t)i * in;  // four rows interleaved 16 columns at a time
    v128_t a0 = wasm_i32x4_splat(0), a1 = a0, a2 = a0, a3 = a0;
    for (int k = 0; k < in; k += 16) {
      const v128_t x0 = wasm_v128_load(x + k), x1 = wasm_v128_load(x + k + 8);
      const int8_t* p = r + 4 * k;
      v128_t q = wasm_v128_load(p);
      a0 = wasm_i32x4_add(a0, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q), x0),
                                             wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q), x1)));
      q = wasm_v128_load(p + 16);
      a1 = wasm_i32x4_add(a1, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q), x0),
                                             wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q), x1)));
      q = wasm_v128_load(p + 32);
      a2 = wasm_i32x4_add(a2, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q), x0),
                                             wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q), x1)));
      q = wasm_v128_load(p + 48);
      a3 = wasm_i32x4_add(a3, wasm_i32x4_add(wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(q), x0),
                                             wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(q), x1)));
    }
    const v128_t a[4] = {a0, a1, a2, a3};
    for (int j = 0; j < 4; ++j)
      y[i + j] = wasm_i32x4_extract_lane(a[j], 0) + wasm_i32x4_extract_lane(a[j], 1) +
                 wasm_i32x4_extract_lane(a[j], 2) + wasm_i32x4_extract_lane(a[j], 3);
  }
}

// Packs W[n, k] (row-major) into panels of 8 output columns: panel p holds, for each kk,
// W[8p .. 8p+7, kk] contiguously (n % 8 == 0).
std::vector<float> pack(const float* w, int n, int k) {
  std::vector<float> p((size_t)n * k);
  for (int j0 = 0; j0 < n; j0 += 8)
    for (int kk = 0; kk < k; ++kk)
      for (int j = 0; j < 8; ++j) p[(size_t)j0 * k + (size_t)kk * 8 + j] = w[(size_t)(j0 + j) * k + kk];
  return p;
}

// C[m, n] = A[m, k] Wᵀ with W packed by pack(); m % ROWS == 0, n % 8 == 0.
// Register block ROWS x 8: 2·ROWS accumulators, 2 weight vectors, 1 splat.
template <int ROWS>
void gemm(const float* a, const float* packed, float* c, int m, int n, int k) {
  for (int i0 = 0; i0 < m; i0 += ROWS) {
    for (int j0 = 0; j0 < n; j0 += 8) {
      const float* panel = packed + (size_t)j0 * k;
      v128_t acc[ROWS][2];
      for (int r = 0; r < ROWS; ++r) acc[r][0] = acc[r][1] = wasm_f32x4_splat(0);
      for (int kk = 0; kk < k; ++kk) {
        const v128_t w0 = wasm_v128_load(panel + kk * 8), w1 = wasm_v128_load(panel + kk * 8 + 4);
        for (int r = 0; r < ROWS; ++r) {
          const v128_t av = wasm_f32x4_splat(a[(size_t)(i0 + r) * k + kk]);
          acc[r][0] = wasm_f32x4_add(acc[r][0], wasm_f32x4_mul(av, w0));
          acc[r][1] = wasm_f32x4_add(acc[r][1], wasm_f32x4_mul(av, w1));
        }
      }
      for (int r = 0; r < ROWS; ++r) {
        wasm_v128_store(c + (size_t)(i0 + r) * n + j0, acc[r][0]);
        wasm_v128_store(c + (size_t)(i0 + r) * n + j0 + 4, acc[r][1]);
      }
    }
  }
}

std::vector<float> randoms(size_t n, unsigned seed) {
  std::vector<float> v(n);
  unsigned s = seed;
  for (float& f : v) {
    s = s * 1664525u + 1013904223u;
    f = static_cast<float>((s >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  return v;
}

volatile float sink;

// `n` calls of `body`, in a function of its own: V8 compiles WebAssembly first with its baseline
// compiler and swaps in optimised code only when a function is entered anew (no on-stack
// replacement), so a measuring loop that never returned would stay on baseline code throughout.
template <class F>
__attribute__((noinline)) void run_batch(F& body, int n) {
  for (int b = 0; b < n; ++b) body();
}

// Best GFLOP/s over `trials` trials of `body` (which does `flops` FLOPs per call); each trial
// repeats the call until ~min_ms have passed, reading the clock (a call out to JavaScript,
// about a microsecond) once per batch of calls, not per call: a 256×256 GEMV takes ~10 µs.
template <class F>
double best_gflops(double flops, F body, int trials = 5, double min_ms = 100) {
  const int batch = std::max(1, static_cast<int>(2e6 / flops));  // calls of ~1 MFLOP or more between clock reads
  const double warm0 = emscripten_get_now();
  while (emscripten_get_now() - warm0 < min_ms) run_batch(body, batch);  // tier-up, caches
  double best = 0;
  for (int t = 0; t < trials; ++t) {
    int calls = 0;
    const double t0 = emscripten_get_now();
    double elapsed = 0;
    do {
      run_batch(body, batch);
      calls += batch;
      elapsed = emscripten_get_now() - t0;
    } while (elapsed < min_ms);
    best = std::max(best, flops * calls / (elapsed * 1e6));
  }
  return best;
}

struct Shape { int out, in; };

// The GEMVs of one decoder step, each on its own matrix, as the engine does them: per layer
// self-attention Q, K, V, O, cross-attention Q, O (its K/V are computed once per sentence),
// FFN in and out; then the output projection. The working set is every decoder weight.
struct DecoderStep {
  std::vector<Shape> shapes;
  std::vector<std::vector<float>> weights;
  std::vector<std::vector<int8_t>> weights_int8;  // the same shapes in int8
  std::vector<float> x, y;
  std::vector<int16_t> x_int16;
  std::vector<int32_t> y_int32;
  double flops = 0, bytes = 0;

  DecoderStep(int d, int dff, int vocab, int layers)
      : x(randoms(std::max(d, dff), 1)), y(std::max({d, dff, vocab})), x_int16(std::max(d, dff), 1000),
        y_int32(std::max({d, dff, vocab})) {
    for (int l = 0; l < layers; ++l) {
      for (int i = 0; i < 6; ++i) shapes.push_back({d, d});
      shapes.push_back({dff, d});
      shapes.push_back({d, dff});
    }
    shapes.push_back({vocab, d});
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      weights.push_back(randoms((size_t)shapes[i].out * shapes[i].in, 10 + i));
      weights_int8.emplace_back((size_t)shapes[i].out * shapes[i].in);
      for (std::size_t k = 0; k < weights_int8.back().size(); ++k)
        weights_int8.back()[k] = static_cast<int8_t>(weights.back()[k] * 254.0f);
      flops += 2.0 * shapes[i].out * shapes[i].in;
      bytes += 4.0 * shapes[i].out * shapes[i].in;
    }
  }

  void run() {
    for (std::size_t i = 0; i < shapes.size(); ++i) gemv(weights[i].data(), x.data(), y.data(), shapes[i].out, shapes[i].in);
    sink = y[0];
  }
  void run_int8() {  // out % 4 == 0 assumed (the vocabulary's last rows are left out: < 0.1%)
    for (std::size_t i = 0; i < shapes.size(); ++i)
      gemv_int8(weights_int8[i].data(), x_int16.data(), y_int32.data(), shapes[i].out & ~3, shapes[i].in);
    sink = static_cast<float>(y_int32[0]);
  }
};

DecoderStep* sampler = nullptr;

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE void setup(int d, int dff, int vocab, int layers) {
  delete sampler;
  sampler = new DecoderStep(d, dff, vocab, layers);
  sampler->run();  // warm up
}

// GFLOP/s of the best of `passes` decoder-step GEMV passes (about 5-10 ms each).
EMSCRIPTEN_KEEPALIVE double decoder_step_gflops(int passes) {
  double best = 0;
  for (int p = 0; p < passes; ++p) {
    const double t0 = emscripten_get_now();
    sampler->run();
    best = std::max(best, sampler->flops / ((emscripten_get_now() - t0) * 1e6));
  }
  return best;
}

}  // extern "C"

int main(int argc, char** argv) {
  const int d = argc > 1 ? std::atoi(argv[1]) : 256;
  const int dff = argc > 2 ? std::atoi(argv[2]) : 512;
  const int vocab = argc > 3 ? std::atoi(argv[3]) : 8105;
  const int layers = argc > 4 ? std::atoi(argv[4]) : 3;
  const std::vector<float> x = randoms(std::max(d, dff), 1);
  std::vector<float> y(std::max({d, dff, vocab}));

  // One GEMV, the same matrix over and over: it stays in L1/L2.
  auto hot = [&](int out, int in) {
    const std::vector<float> w = randoms((size_t)out * in, 2);
    return best_gflops(2.0 * out * in, [&] { gemv(w.data(), x.data(), y.data(), out, in); sink = y[0]; });
  };
  const double gemv_hot_d = hot(d, d);
  const double gemv_hot_ff = hot(dff, d);
  auto hot_int8 = [&](int out, int in) {
    std::vector<int8_t> w((size_t)out * in);
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = static_cast<int8_t>(k * 37 % 255 - 127);
    const std::vector<int16_t> xq(in, 1000);
    std::vector<int32_t> yq(out);
    return best_gflops(2.0 * out * in, [&] { gemv_int8(w.data(), xq.data(), yq.data(), out, in); sink = (float)yq[0]; });
  };
  const double gemv_hot_int8 = std::max(hot_int8(d, d), hot_int8(dff, d));

  DecoderStep step(d, dff, vocab, layers);
  const double gemv_step = best_gflops(step.flops, [&] { step.run(); });
  const double gemv_step_int8 = best_gflops(step.flops, [&] { step.run_int8(); });
  const double step_bytes = step.bytes;
  const double gemv_output = best_gflops(2.0 * vocab * d, [&] {
    gemv(step.weights.back().data(), x.data(), y.data(), vocab, d);
    sink = y[0];
  });

  // GEMM: square d x d x d (the peak), and the encoder's shape (16 source tokens).
  auto gemm_rate = [&](int m, int n, int k, int rows) {
    const std::vector<float> a = randoms((size_t)m * k, 3), w = randoms((size_t)n * k, 4);
    const std::vector<float> packed = pack(w.data(), n, k);
    std::vector<float> c((size_t)m * n);
    auto body = [&] {
      if (rows == 4) gemm<4>(a.data(), packed.data(), c.data(), m, n, k);
      else gemm<6>(a.data(), packed.data(), c.data(), m, n, k);
      sink = c[0];
    };
    return best_gflops(2.0 * m * n * k, body);
  };
  const double gemm4 = gemm_rate(d, d, d, 4);
  const double gemm6 = gemm_rate(6 * (d / 6), d, d, 6);
  const double gemm_encoder = gemm_rate(16, d, d, 4);

  std::printf(
      "{\"d_model\": %d, \"d_ff\": %d, \"vocab\": %d, \"decoder_layers\": %d,\n"
      " \"gemv_hot_d_x_d_gflops\": %.3f, \"gemv_hot_dff_x_d_gflops\": %.3f,\n"
      " \"gemv_decoder_step_gflops\": %.3f, \"gemv_decoder_step_mbytes\": %.2f, \"gemv_output_projection_gflops\": %.3f,\n"
      " \"gemm_4x8_gflops\": %.3f, \"gemm_6x8_gflops\": %.3f, \"gemm_encoder_16_rows_gflops\": %.3f,\n"
      " \"gemv_hot_int8_gops\": %.3f, \"gemv_decoder_step_int8_gops\": %.3f}\n",
      d, dff, vocab, layers, gemv_hot_d, gemv_hot_ff, gemv_step, step_bytes / 1e6, gemv_output, gemm4, gemm6,
      gemm_encoder, gemv_hot_int8, gemv_step_int8);
  return 0;
}
