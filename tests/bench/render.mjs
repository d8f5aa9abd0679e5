// FLOP counts and the Markdown report of the benchmark (tests/bench/bench.mjs).

/**
 * FLOPs of greedy-decoding `steps` tokens against a source of `S` tokens (1 multiply-add = 2).
 * Step t (0-based; it attends to t + 1 positions), per decoder layer:
 *   self-attention Q, K, V, O projections   4 · 2d²
 *   cross-attention Q, O projections        2 · 2d²   (its K, V: once per sentence, see encoderFlops)
 *   FFN                                     2 · 2·d·d_ff
 *   self-attention scores and context       2 · 2·d·(t + 1)
 *   cross-attention scores and context      2 · 2·d·S
 * and once per step the output projection 2·d·V. Biases, LayerNorm, softmax and the argmax are
 * O(d + V) per step and not counted (< 1%).
 *   FLOPs(step t) = L·(12d² + 4·d·d_ff + 4d(t + 1) + 4dS) + 2dV
 * `gemv` is the matrix-vector part (everything but the attention scores and context).
 */
export function decoderFlops({ d, dff, decLayers: L, vocab: V }, S, steps) {
  const gemvPerStep = L * (12 * d * d + 4 * d * dff) + 2 * d * V;
  let total = 0;
  for (let t = 0; t < steps; ++t) total += gemvPerStep + L * (4 * d * (t + 1) + 4 * d * S);
  return { total, gemv: gemvPerStep * steps };
}

/**
 * FLOPs of encoding S tokens: per encoder layer Q, K, V, O (4 · 2·S·d²), FFN (2 · 2·S·d·d_ff),
 * scores and context (2 · 2·S²·d); plus, per decoder layer, the cross-attention K and V of the
 * memory (2 · 2·S·d², computed once per sentence, which attnscope does before the first step).
 */
export function encoderFlops({ d, dff, encLayers, decLayers }, S) {
  return encLayers * (S * (8 * d * d + 4 * d * dff) + 4 * S * S * d) + decLayers * 4 * S * d * d;
}

export const f = (x, digits = 2) => (x === null || x === undefined || Number.isNaN(x) ? 'n/a' : x.toFixed(digits));
const mb = (bytes) => f(bytes / 2 ** 20, 1);
const pct = (x) => `${f(100 * x, 1)}%`;

/** "1.85× faster" for a time ratio ours/theirs (lower is better), or for a rate (higher is better). */
export function verdict(ratio, lowerIsBetter, words = ['faster', 'slower']) {
  if (!Number.isFinite(ratio)) return 'n/a';
  const better = lowerIsBetter ? ratio < 1 : ratio > 1;
  const factor = ratio >= 1 ? ratio : 1 / ratio;
  return `${f(factor)}× ${better ? words[0] : words[1]}`;
}

const medianOf = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * ours / theirs for one figure of two summaries from the same run: the median over repeats of
 * the per-repeat ratio (repeat r of each was measured side by side), or the ratio of the
 * figures when there are no per-repeat values.
 */
export function pairedRatio(ours, theirs, key) {
  if (!ours || !theirs) return NaN;
  if (ours.repeats?.length && ours.repeats.length === theirs.repeats?.length) {
    return medianOf(ours.repeats.map((r, i) => r[key] / theirs.repeats[i][key]));
  }
  return ours[key] / theirs[key];
}

function row(cells) {
  return `| ${cells.join(' | ')} |`;
}

export function table(header, rows) {
  return [row(header), row(header.map(() => '---')), ...rows.map(row)].join('\n');
}

/**
 * The figures the benchmark page shows and the project's speed targets. Like for like: attnscope's
 * exact decoder against ORT's fp32 graphs, its opt-in int8 weights against ORT's q8 graphs
 * (results from before the q8 graphs existed set int8 against fp32, and say so).
 */
function headline(r) {
  const g = r.greedy;
  const c = r.cold;
  const timed = (name, key, lower) => [name, g.attnscope[key], g.ort[key], lower, undefined, pairedRatio(g.attnscope, g.ort, key)];
  const int8 = (name, key, lower) => (g.ortQ8
    ? [`${name}, attnscope int8 vs ORT q8`, g.attnscopeInt8[key], g.ortQ8[key], lower, undefined, pairedRatio(g.attnscopeInt8, g.ortQ8, key)]
    : [`${name}, attnscope int8 vs ORT fp32`, g.attnscopeInt8[key], g.ort[key], lower, undefined, pairedRatio(g.attnscopeInt8, g.ort, key)]);
  const lines = [
    timed('encoder, ms per sentence', 'encodePerSentenceMs', true),
    timed('time to first token, ms (encoder + first step)', 'firstTokenPerSentenceMs', true),
    timed('decoder, ms per generated token', 'decodePerTokenMs', true),
    timed('end to end, sentences/s', 'sentencesPerSecond', false),
    ...(g.attnscopeInt8 ? [
      int8('decoder, ms per generated token', 'decodePerTokenMs', true),
      ...(g.ortQ8 ? [int8('time to first token, ms', 'firstTokenPerSentenceMs', true), int8('end to end, sentences/s', 'sentencesPerSecond', false)] : []),
    ] : []),
    ['model load + first translation, ms (cold process)', c.attnscope.loadAndFirstMs, c.ort.loadAndFirstMs, true],
    ['peak WASM linear memory, MiB', c.attnscope.wasmMemoryBytes / 2 ** 20, c.ort.wasmMemoryBytes / 2 ** 20, true, ['smaller', 'larger']],
    ['peak RSS − RSS before loading, MiB', c.attnscope.peakRssDeltaBytes / 2 ** 20, c.ort.peakRssDeltaBytes / 2 ** 20, true, ['smaller', 'larger']],
  ];
  return table(['figure (median of repeats; exact vs fp32 unless the row says int8 vs q8)', 'attnscope (WASM)', 'onnxruntime-web', 'attnscope / ORT', 'attnscope is'],
    lines.map(([name, ours, theirs, lower, words, ratio = ours / theirs]) => [name, f(ours), f(theirs), f(ratio, 3), verdict(ratio, lower, words)]));
}

function targets(r) {
  const g = r.greedy;
  const speedup = pairedRatio(g.ort, g.attnscope, 'decodePerTokenMs');
  const int8Against = g.ortQ8 ?? g.ort;  // ORT q8 when the run has it
  const speedupInt8 = g.attnscopeInt8 ? pairedRatio(int8Against, g.attnscopeInt8, 'decodePerTokenMs') : NaN;
  const rf = roofline(r);
  const overhead = pairedRatio(r.capture.on, r.capture.off, 'perSentenceMs') - 1;
  const fraction = rf?.fractionOfHotPeak;
  const gz = r.meta.wasm.gzipBytes / 1024;
  const yes = (ok) => (ok === null ? 'n/a' : ok ? 'met' : 'not met');
  return table(['target', 'measured', ''], [
    ['greedy decode per token ≥ 2× faster than onnxruntime-web', `${f(speedup)}× (ORT ms/token ÷ attnscope ms/token), exact weights`, yes(speedup >= 2)],
    ...(g.attnscopeInt8 ? [[g.ortQ8 ? 'the same, attnscope\'s opt-in int8 weights against ORT\'s q8 graphs' : 'the same, with the opt-in int8 weights',
      `${f(speedupInt8)}× (ORT ${g.ortQ8 ? 'q8' : 'fp32'} ms/token ÷ attnscope int8 ms/token; BLEU: ${r.bleu ? 'Translation quality' : 'docs/benchmarks.md'})`,
      yes(speedupInt8 >= 2)]] : []),
    ['capture-on overhead ≤ 15%', `${pct(overhead)} (attention + logits on vs off, per sentence)`, yes(overhead <= 0.15)],
    ['decoder ≥ 50% of the measured WASM GEMV peak', fraction === undefined ? 'n/a' : `${pct(fraction)} of the cache-resident f32 GEMV peak` +
      (rf.int8 ? `; int8: ${pct(rf.int8.fractionOfHotPeak)} of the int8 GEMV peak` : ''),
      fraction === undefined ? 'n/a' : yes(fraction >= 0.5)],
    ['.wasm ≤ 400 KB gzip', `${f(gz, 1)} KiB (gzip -9 of web/wasm/attnscope-wasm.wasm)`, yes(r.meta.wasm.gzipBytes <= 400 * 1024)],
    ...speedTargets(r, speedup, yes),
  ]);
}

/** The rows of the speed targets: exact ≥ 2.5× ORT fp32, beam 4 ≤ 1.6× greedy, the page's latencies. */
function speedTargets(r, speedup, yes) {
  const rows = [['exact decoder per token ≥ 2.5× onnxruntime-web fp32', `${f(speedup)}×`, yes(speedup >= 2.5)]];
  if (r.beam?.beam4 && r.beam?.greedy) {
    const x = r.beam.beam4.perSentenceMs / r.beam.greedy.perSentenceMs;
    rows.push(['beam 4 ≤ 1.6× greedy per sentence (WASM, same sentences)', `${f(x)}×`, yes(x <= 1.6)]);
  }
  // Judged on the painted frame; the map on its canvas (drawn) is given beside it.
  for (const { name, drawn, painted, target } of pageFigures(r.page)) {
    rows.push([`${name} ≤ ${target} ms`, `median ${f(painted.median, 1)} ms, worst ${f(painted.worst, 1)} ms to the painted frame`
      + ` (drawn: median ${f(drawn.median, 1)} ms)`, yes(painted.median <= target)]);
  }
  return rows;
}

/** The page's figures beside their targets (tests/bench/page_latency.mjs; painted = the frame is on screen). */
function pageFigures(page) {
  if (!page) return [];
  const t = page.targets;
  const rows = [];
  const row = (name, figure, target) => rows.push({ name, drawn: figure.drawn, painted: figure.painted, target });
  if (page.firstHeatmap) {
    row('first heatmap, cold, toy model', page.firstHeatmap.toy, t.firstToy);
    row('first heatmap, cold, Multi30k model', page.firstHeatmap.multi30k, t.firstMulti30k);
  }
  if (page.next) {
    row(`a press of Next at step ${page.next.step1.step}`, page.next.step1, t.next);
    row(`a press of Next at step ${page.next.step30.step}`, page.next.step30, t.next);
  }
  if (page.beam4) row(`a beam-4 step (step ${page.beam4.step})`, page.beam4, t.beam);
  // The same presses with the page's lookahead off: the step is asked for at the click.
  if (page.next?.step30Asked) row(`a press of Next at step ${page.next.step30Asked.step}, asked at the click`, page.next.step30Asked, t.next);
  if (page.beam4Asked) row(`a beam-4 step (step ${page.beam4Asked.step}), asked at the click`, page.beam4Asked, t.beam);
  return rows;
}

/** Page latency in Chromium and the head sweep on 1, 2 and 4 workers. */
function renderPage(page) {
  const out = ['## Page latency in Chromium', ''];
  out.push(`tests/bench/page_latency.mjs, ${page.runs} runs each, ${page.browser ?? 'Chromium'} headless, the page served from ` +
    'localhost. *drawn*: the page\'s mark after the heatmap is on its canvas; *painted*: the next animation frame has run. ' +
    'A press of Next applies the step the page asked for once the previous answer was shown (web/app/worker/requests.js); ' +
    '*asked at the click*: the same press with that lookahead off (it waits for the worker). ' +
    'Cold: a fresh browser context (no cache, no service worker), navigation start to the first heatmap.', '');
  out.push(table(['figure', 'drawn: median / worst, ms', 'painted: median / worst, ms', 'target, ms', ''],
    pageFigures(page).map(({ name, drawn, painted, target }) => [name, `${f(drawn.median, 1)} / ${f(drawn.worst, 1)}`,
      `${f(painted.median, 1)} / ${f(painted.worst, 1)}`, `≤ ${target}`, painted.median <= target ? 'met' : 'not met'])), '');
  if (page.sweep) {
    const sw = page.sweep;
    out.push(`Head-importance sweep (${sw.model}, ${sw.pairs} pairs, ${sw.heads} heads, Δ log-likelihood) on a pool of Web ` +
      `Workers; navigator.hardwareConcurrency = ${sw.hardwareConcurrency}; results of every pool size identical to one ` +
      `worker's: ${sw.identical ? 'yes' : 'NO'}.`, '');
    const one = sw.workers[0].warmMs;
    out.push(table(['workers', 'first sweep of a new pool, s (workers start, load the model)', 'warm sweep, s', 'speed-up (warm)'],
      sw.workers.map((w) => [String(w.workers), f(w.coldMs / 1000, 2), f(w.warmMs / 1000, 2), `${f(one / w.warmMs)}×`])), '');
  }
  return out;
}

/**
 * Decoder GFLOP/s against the GEMV peaks. The peak is the cache-resident f32 GEMV (the fastest
 * a matrix-vector product runs in WASM SIMD on this machine, its matrix already in L1/L2): a
 * real step cannot have all its weights there, so this is the strict reference. The decoder-step
 * f32 stream (every decoder weight in turn, as a step reads them, 16 MB in f32) is sampled
 * between sentences too (`interleaved`), to show how much the step's memory traffic costs.
 * The int8 option's rate (2 operations per multiply-add, as FLOPs) is held against the int8
 * GEMV peak (i32x4.dot_i16x8_s, cache-resident).
 */
function roofline(r) {
  if (!r.roofline) return null;
  const perToken = r.flops.decoder / r.flops.tokens;
  const gflops = (ms) => perToken / (ms * 1e6);
  const ours = gflops(r.greedy.attnscope.decodePerTokenMs);
  const samples = r.roofline.interleaved;
  const stream = samples ? medianOf(samples.median) : r.roofline.gemv_decoder_step_gflops;
  const best = samples ? Math.max(...samples.max) : r.roofline.gemv_decoder_step_gflops;
  const hot = Math.max(r.roofline.gemv_hot_d_x_d_gflops, r.roofline.gemv_hot_dff_x_d_gflops);
  const gemm = Math.max(r.roofline.gemm_4x8_gflops, r.roofline.gemm_6x8_gflops, r.roofline.gemm_encoder_16_rows_gflops);
  const encPerSentence = r.flops.encoder / r.meta.sentences;
  const enc = encPerSentence / (r.greedy.attnscope.encodePerSentenceMs * 1e6);
  const q = r.greedy.attnscopeInt8;
  const int8 = q && r.roofline.gemv_hot_int8_gops ? {
    rate: gflops(q.decodePerTokenMs), hot: r.roofline.gemv_hot_int8_gops, stream: r.roofline.gemv_decoder_step_int8_gops,
    fractionOfHotPeak: gflops(q.decodePerTokenMs) / r.roofline.gemv_hot_int8_gops,
    fractionOfStream: gflops(q.decodePerTokenMs) / r.roofline.gemv_decoder_step_int8_gops,
  } : null;
  return {
    perToken, gemvShare: r.flops.decoderGemv / r.flops.decoder, ours, ort: gflops(r.greedy.ort.decodePerTokenMs),
    native: r.native ? gflops(r.native.decodePerTokenMs) : null,
    nativeEigen: r.nativeEigen ? gflops(r.nativeEigen.decodePerTokenMs) : null,
    nativeInt8: r.nativeInt8 ? gflops(r.nativeInt8.decodePerTokenMs) : null, stream, hot, gemm, best,
    fractionOfStream: ours / stream, ortFractionOfStream: gflops(r.greedy.ort.decodePerTokenMs) / stream,
    fractionOfHotPeak: ours / hot, int8, encPerSentence, enc, encFraction: enc / gemm,
  };
}

/** The RNN encoder-decoder section: WASM vs PyTorch, decode time per token. */
export function renderRnn(runs) {
  const out = ['## RNN encoder-decoder: attnscope (WASM) vs PyTorch', ''];
  const rows = runs.map((x) => {
    const c = x.config;
    const what = `${c.cell.toUpperCase()} ${c.d_hidden}, ${c.attention}${c.attention === 'none' ? '' : ` ${c.score}`}`;
    const ratio = pairedRatio(x.attnscope, x.torch, 'decodePerTokenMs');
    return [`${x.model} (${what})`, String(x.sentences), String(x.attnscope.tokens), f(x.attnscope.decodePerTokenMs, 3),
      x.torch ? f(x.torch.decodePerTokenMs, 3) : 'n/a', x.torch ? f(ratio, 3) : 'n/a',
      x.torch ? verdict(ratio, true) : 'n/a',
      x.agreement ? `${x.agreement.identical}/${x.agreement.sentences}` : 'n/a'];
  });
  out.push(table(['model', 'sentences', 'tokens', 'WASM, ms per token', 'PyTorch, ms per token', 'WASM / PyTorch',
    'WASM vs PyTorch', 'identical outputs'], rows), '');
  out.push('- Greedy decoding, decoder time per generated token (the encoder and the start state excluded on both sides), ' +
    'median over repeats of the per-repeat ratio. *WASM*: `model.translate()` then `step()`/`run()` with capture off, in ' +
    'Node. *PyTorch*: the reference models/reference/attnscope_ref/rnn.py on the CPU, `torch.set_num_threads(1)`, inference mode, ' +
    'its own `step()` per token (tests/bench/bench_torch.py; it computes W_k H again at every step for the additive and ' +
    'general scores, which attnscope projects once per sentence), fed the same source ids.', '');
  return out;
}

/** How the q8 graphs were made and checked (tests/bench/quantize_onnx.py, check_onnx.mjs --q8). */
function q8Note(m) {
  const q = m.onnxQ8;
  const c = m.onnxQ8Check;
  const mbytes = Object.values(q.graphs).reduce((a, x) => a + x.bytes, 0) / 1e6;
  const matmuls = Object.values(q.graphs).reduce((a, x) => a + x.matmul_integer, 0);
  return `- **ONNX q8** (tests/bench/quantize_onnx.py, python3-onnx ${q.settings.onnx}): the same three graphs rewritten as ` +
    'onnxruntime\'s dynamic quantization (`quantize_dynamic`, IntegerOps) writes them, the default dtype of transformers.js: ' +
    `each of the ${matmuls} MatMuls with a constant weight becomes DynamicQuantizeLinear (uint8 activations, per call) → ` +
    'MatMulInteger → Cast → Mul by the two scales, the embedding Gather reads an int8 table; weights int8, symmetric, ' +
    `${q.settings.per_channel ? 'per output channel' : 'per tensor'}${q.settings.reduce_range ? ', 7-bit range (reduce_range)' : ''} ` +
    `(transformers.js's published q8 settings), ${f(mbytes, 1)} MB; the attention products stay f32. ` +
    (c ? `Checked against the fp32 graphs on ${c.sentences} sentences: ${c.identical}/${c.sentences} identical outputs, ` +
      `token agreement ${pct(c.tokenAgreement)}, max |logit difference| ${f(c.maxAbsLogitDiff, 3)} (fed the fp32 tokens).` : 'Not checked.');
}

/** BLEU of the four engines on the test set, greedy, models/evaluation/bleu.py (sacreBLEU's defaults). */
function renderBleu(b) {
  const names = { attnscope: 'attnscope WASM, exact', ort: 'onnxruntime-web, fp32 graphs', attnscopeInt8: 'attnscope WASM, int8 weights (opt-in)',
    ortQ8: 'onnxruntime-web, q8 graphs' };
  const base = b.scores.attnscope?.score;
  const rows = Object.entries(b.scores).map(([k, s]) => [names[k] ?? k, f(s.score), k === 'attnscope' ? '—' : f(s.score - base),
    s.precisions.map((p) => f(p, 1)).join(' / '), f(s.bp, 3), String(s.hypLen)]);
  return [
    '## Translation quality: BLEU', '',
    table(['engine (greedy)', 'BLEU', 'vs exact', '1-4-gram precisions', 'BP', 'hypothesis length'], rows), '',
    `The first ${b.sentences} of the ${b.of} sentences of ${b.data.source.split('/').slice(-2).join('/')} (against ` +
      `${b.data.reference.split('/').pop()}), greedy, at most ${b.maxLength} tokens (the model's own limit, as attnscope-cli decodes ` +
      'under models/evaluation/evaluate.py, not the timed runs\' maximum length); every engine\'s ids detokenized by attnscope\'s ' +
      `tokenizer; corpus BLEU by models/evaluation/bleu.py as models/evaluation/evaluate.py computes it (${Object.values(b.scores)[0]?.signature ?? 'sacreBLEU defaults'}). ` +
      'The hypotheses are in bleu/ beside results.json (build/bench/bleu/ by default).',
  ];
}

export function renderReadmeBlock(r) {
  const m = r.meta;
  return [
    `Last run: ${m.date.slice(0, 10)} on ${m.machine.cpu} (nproc ${m.machine.nproc}, load average ${m.loadAverage.start[0].toFixed(1)} ` +
      `at the start), git ${m.git}, ${m.sentences} sentences × ${m.repeats} repeats, ` +
      `\`${m.command}\`; onnxruntime-web ${m.onnxruntimeWeb} (WASM, SIMD, 1 thread). Every figure, the native build, ` +
      'PyTorch, beam search, capture overhead and the roofline: [tests/bench/RESULTS.md](../tests/bench/RESULTS.md).',
    '',
    headline(r),
    '',
    targets(r),
    '',
  ].join('\n');
}

export function renderMarkdown(r) {
  const m = r.meta;
  const g = r.greedy;
  const out = [];
  out.push('# attnscope benchmark results', '');
  out.push('Generated by `npm run bench` (tests/bench/run.sh → tests/bench/bench.mjs); the raw figures are in `build/bench/results.json`.', '');
  const simd = m.machine.simdFlags ? ` (SIMD: ${m.machine.simdFlags.join(', ') || 'none of SSE4/AVX'})` : '';
  out.push(`- **Machine**: ${m.machine.cpu}${simd}, \`nproc\` = ${m.machine.nproc}, ${m.machine.platform}, Node ${m.machine.node}`);
  out.push(`- **Date**: ${m.date} (load average 1/5/15 min at start ${m.loadAverage.start.map((x) => x.toFixed(2)).join(' / ')}, ` +
    `at end ${m.loadAverage.end.map((x) => x.toFixed(2)).join(' / ')})`);
  out.push(`- **Command**: \`${m.command}\` (git ${m.git})`);
  out.push(`- **Engines**: attnscope's WASM build (web/attnscope.js, ${f(m.wasm.bytes / 1024, 1)} KiB .wasm, ` +
    `${f(m.wasm.gzipBytes / 1024, 1)} KiB gzipped) and onnxruntime-web ${m.onnxruntimeWeb} (wasm backend, SIMD, ` +
    `numThreads ${m.ortThreads}) in one Node process; attnscope built natively with g++ -O3 -march=native; ` +
    `PyTorch ${m.torch ?? 'n/a'} on the CPU with ${m.torchThreads ?? 'n/a'} thread.`);
  out.push(`- **Workload**: the first ${m.sentences} sentences of ${m.data.split('/').slice(-2).join('/')}, model ${m.model} ` +
    `(d_model ${r.config.d}, ${r.config.heads} heads, FFN ${r.config.dff}, ${r.config.encLayers}+${r.config.decLayers} layers, ` +
    `vocabulary ${r.config.vocab}), greedy, at most ${m.maxLength} tokens; every engine gets the same source ids ` +
    `(attnscope's tokenizer, </s> appended). Figures are medians over ${m.repeats} repeat(s), ratios the median of the ` +
    `per-repeat ratios (the engines of a repeat ran side by side); beam search and ` +
    `"all capture" use the first ${m.beamSentences} sentences.`);
  out.push(`- **ONNX export** (tests/bench/export_onnx.py, opset ${m.onnx.opset}, torch ${m.onnx.torch}): encoder, first decoder step, ` +
    `decoder step with past key/values (the transformers.js layout), ${Object.values(m.onnx.graphs).reduce((a, b) => a + b, 0) / 1e6 | 0} MB of f32 graphs; ` +
    (m.onnxCheck ? `checked against PyTorch: ${m.onnxCheck.ok ? 'same tokens' : 'MISMATCH'}, max |logit difference| ${m.onnxCheck.max_abs_logit_diff.toExponential(1)} ` +
      `on ${m.onnxCheck.cases.length} sentences.` : 'not checked.'));
  if (m.onnxQ8) out.push(q8Note(m));
  out.push('');

  out.push('## Same tokens first', '');
  const agreeRows = [];
  const names = { ortVsOurs: 'onnxruntime-web vs attnscope WASM', nativeVsOurs: 'attnscope native vs WASM',
    ortQ8VsOurs: 'onnxruntime-web q8 graphs (dynamic int8) vs attnscope WASM exact',
    nativeEigenVsOurs: 'attnscope native, Eigen product, vs WASM', torchVsOurs: 'PyTorch vs attnscope WASM',
    int8VsOurs: 'attnscope WASM with int8 weights (opt-in) vs exact' };
  for (const [k, a] of Object.entries(r.agreement)) {
    agreeRows.push([names[k], `${a.identical} / ${a.sentences} (${pct(a.identicalRate)})`, pct(a.tokenAgreement)]);
  }
  out.push(table(['greedy outputs', 'identical sentences', 'token agreement'], agreeRows), '');
  out.push('Token agreement: tokens up to the first difference ÷ the longer output, summed over sentences.', '');

  if (r.bleu) out.push(...renderBleu(r.bleu), '');

  out.push('## attnscope (WASM) vs onnxruntime-web', '');
  out.push(headline(r), '');
  const cold = r.cold;
  out.push(table(['cold start (fresh Node process)', 'attnscope', 'onnxruntime-web'], [
    ['import + runtime + model load, ms', f(cold.attnscope.loadMs), f(cold.ort.loadMs)],
    ['first translation, ms', f(cold.attnscope.firstMs), f(cold.ort.firstMs)],
    ['RSS before loading, MiB', mb(cold.attnscope.rssBeforeBytes), mb(cold.ort.rssBeforeBytes)],
    ['peak RSS, MiB', mb(cold.attnscope.maxRssBytes), mb(cold.ort.maxRssBytes)],
    ['model bytes loaded, MB', f(m.modelBytes / 1e6, 1), f(Object.values(m.onnx.graphs).reduce((a, b) => a + b, 0) / 1e6, 1)],
  ]), '');
  out.push(
    '- *Encoder*: attnscope\'s `model.translate()` (tokenizing the text, the encoder, and projecting the memory into every ' +
    'decoder layer\'s cross-attention keys and values) vs ORT\'s encoder graph (fed the ids). In the transformers.js layout the ' +
    'cross-attention keys and values are computed by the first decoder step, so ORT counts them in its decoder time; ' +
    '*time to first token* (encoder + first step, the first `session.step()` for attnscope) holds the same work for both.',
    '- *Decoder per token*: attnscope\'s `session.run()` vs ORT\'s decoder graphs, step after step, including the argmax in ' +
    'JavaScript and feeding back the present key/values; divided by the tokens generated (</s> included).',
    '- *End to end*: (encoder + decoder time) per sentence, as sentences per second; one sentence at a time (batch 1).',
    '- *Load + first translation*: a fresh Node process imports the engine, instantiates its WebAssembly, reads the model ' +
    `(attnscope: the .safetensors file with f16 weights; ORT: the three .onnx graphs with f32 weights) and translates sentence 1; median of ${m.repeats} processes.`,
    `- *Memory*: in the same fresh process after translating ${m.memorySentences} sentences: the WebAssembly linear memory ` +
    '(every `WebAssembly.Memory` the engine created or exported; it never shrinks, so its size is its peak) and the process\'s ' +
    'peak resident set (getrusage maxRSS) minus the RSS before the engine was imported (the JavaScript side included: ' +
    'model bytes read into JS, ORT\'s graph parsing).', '');

  out.push('## Beam search (attnscope only)', '');
  out.push('onnxruntime-web runs graphs; it has no generation loop and no beam search (transformers.js\'s `generate()` on ' +
    'top of it is a separate library), so there is no ORT column here.', '');
  const b = r.beam;
  const beamRows = [];
  for (const [name, v, nat] of [['greedy', b.greedy, b.native?.greedy], ['beam 4', b.beam4, b.native?.beam4], ['beam 8', b.beam8, b.native?.beam8]]) {
    beamRows.push([name, f(v.perSentenceMs), f(v.sentencesPerSecond), f(v.decodePerStepMs), f(v.perSentenceMs / b.greedy.perSentenceMs),
      nat ? f(nat.perSentenceMs) : 'n/a', nat ? f(nat.perSentenceMs / b.native.greedy.perSentenceMs) : 'n/a']);
  }
  out.push(table(['decoding', 'WASM ms/sentence', 'WASM sentences/s', 'WASM decoder ms/step', '× greedy', 'native ms/sentence', 'native × greedy'], beamRows), '');
  out.push(`First ${m.beamSentences} sentences, capture off. A step extends every live hypothesis (up to the beam width).`, '');

  out.push('## Capture overhead', '');
  const c = r.capture;
  const over = (on, off) => pct(pairedRatio(on, off, 'perSentenceMs') - 1);
  const capRows = [
    ['off', `all ${m.sentences}`, f(c.off.perSentenceMs), '—', c.native ? f(c.native.off.perSentenceMs) : 'n/a', '—'],
    ['attention + logits (the JS API\'s default)', `all ${m.sentences}`, f(c.on.perSentenceMs), over(c.on, c.off),
      c.native ? f(c.native.on.perSentenceMs) : 'n/a', c.native ? over(c.native.on, c.native.off) : 'n/a'],
    ['off', `first ${m.beamSentences}`, f(c.offSubset.perSentenceMs), '—', c.native ? f(c.native.offSubset.perSentenceMs) : 'n/a', '—'],
    ['attention + logits + named vectors', `first ${m.beamSentences}`, f(c.all.perSentenceMs), over(c.all, c.offSubset),
      c.native ? f(c.native.all.perSentenceMs) : 'n/a', c.native ? over(c.native.all, c.native.offSubset) : 'n/a'],
  ];
  out.push(table(['capture', 'sentences', 'WASM ms/sentence', 'WASM overhead', 'native ms/sentence', 'native overhead'], capRows), '');
  out.push('Greedy, end to end per sentence. Capture is recorded inside the engine during `run()`; reading it out into ' +
    'JavaScript (e.g. `session.crossAttention()`) is not included.', '');

  out.push('## Native and PyTorch', '');
  const nat = r.native;
  const eig = r.nativeEigen;
  const tor = r.torch;
  const cmpRows = [];
  for (const [name, key, lower] of [['encoder, ms per sentence', 'encodePerSentenceMs', true],
    ['time to first token, ms', 'firstTokenPerSentenceMs', true], ['decoder, ms per token', 'decodePerTokenMs', true],
    ['end to end, sentences/s', 'sentencesPerSecond', false]]) {
    const w = g.attnscope[key];
    const n = nat?.[key];
    const e = eig?.[key];
    const t = tor?.[key];
    const ratio = (a, b) => (a && b ? f(pairedRatio(a, b, key), 3) : 'n/a');
    cmpRows.push([name, f(w), f(n), f(e), f(t), ratio(g.attnscope, nat), ratio(g.attnscope, eig), ratio(g.attnscope, tor),
      ratio(eig, tor), t ? verdict(pairedRatio(g.attnscope, tor, key), lower) : 'n/a']);
  }
  out.push(table(['figure', 'WASM', 'native', 'native, Eigen product', 'PyTorch', 'WASM / native', 'WASM / native Eigen',
    'WASM / PyTorch', 'native Eigen / PyTorch', 'WASM vs PyTorch'], cmpRows), '');
  out.push('- *Native*: the same engine (src/) built with `g++ -O3 -march=native` into build/bench-native and driven by ' +
    'tests/bench/native/bench_native.cpp: `DecodeSession` construction (tokenize, encoder, cross K/V) and `run()`, capture off. ' +
    (r.nativeHasKernel
      ? '*native* runs the engine\'s own matrix kernel (src/ops/gemm_simd.*: the same 4-lane loops as the WASM build, ' +
        'compiled with GCC\'s generic vectors), *native, Eigen product* switches `ops::linear` to Eigen\'s product ' +
        '(`ops::set_matmul_path`), which -march=native lets use the CPU\'s widest vectors and FMA.'
      : 'This checkout has no hand-written kernel: both native columns are Eigen\'s product.'),
  '- *PyTorch*: the reference model (models/reference/attnscope_ref/model.py) on the CPU, `torch.set_num_threads(1)`, inference mode, ' +
    'decoding incrementally with a KV cache (its own `DecoderLayer.step`: the cross-attention keys/values projected once per ' +
    'sentence, each step feeds only the new token and appends its keys/values with `torch.cat`), fed the same source ids ' +
    '(tests/bench/bench_torch.py). Its encoder time includes the cross-attention key/value projection, as attnscope\'s does.', '');

  const rf = roofline(r);
  out.push('## Roofline', '');
  out.push('FLOPs per generated token, counted from the config (a multiply-add is 2 FLOPs; step t attends to t + 1 positions, ' +
    'S source tokens, L decoder layers):', '');
  out.push('    FLOPs(t) = L · (12·d² + 4·d·d_ff + 4·d·(t + 1) + 4·d·S) + 2·d·V', '');
  out.push('12·d²: self-attention Q, K, V, O and cross-attention Q, O projections; 4·d·d_ff: the FFN; 4·d·(t + 1) and 4·d·S: ' +
    'attention scores and weighted sums; 2·d·V: the output projection. The cross-attention K, V projections (4·S·d² per layer) ' +
    'are done once per sentence and counted with the encoder. Biases, LayerNorms, softmax and argmax (O(d + V) per step) are left out.', '');
  if (rf) {
    const step = r.flops.decoder / r.flops.tokens;
    out.push(`With d = ${r.config.d}, d_ff = ${r.config.dff}, L = ${r.config.decLayers}, V = ${r.config.vocab}: ` +
      `${f(step / 1e6, 3)} MFLOP per token on average over these sentences (${pct(rf.gemvShare)} of it matrix-vector products; ` +
      `the output projection alone is ${f(2 * r.config.d * r.config.vocab / 1e6, 2)} MFLOP). The weights a step reads are ` +
      `${f(r.roofline.gemv_decoder_step_mbytes, 1)} MB in f32.`, '');
    out.push(table(['WASM SIMD microbenchmark (tests/bench/roofline/simd_peak.cpp, emcc -O3 -msimd128, best of 5)', 'GFLOP/s'], [
      [`GEMV ${r.config.d}×${r.config.d}, one matrix over and over (cache-resident)`, f(r.roofline.gemv_hot_d_x_d_gflops)],
      [`GEMV ${r.config.dff}×${r.config.d}, cache-resident`, f(r.roofline.gemv_hot_dff_x_d_gflops)],
      ['GEMV: every matrix of one decoder step in turn, f32 (the decoder-step stream)', f(r.roofline.gemv_decoder_step_gflops)],
      [`GEMV ${r.config.vocab}×${r.config.d} (output projection alone)`, f(r.roofline.gemv_output_projection_gflops)],
      ...(r.roofline.gemv_hot_int8_gops ? [
        ['int8 GEMV (i32x4.dot_i16x8_s), cache-resident, G multiply-add ops × 2 / s', f(r.roofline.gemv_hot_int8_gops)],
        ['int8 GEMV, every matrix of one decoder step in turn', f(r.roofline.gemv_decoder_step_int8_gops)]] : []),
      [`GEMM ${r.config.d}×${r.config.d}×${r.config.d}, 4×8 register block`, f(r.roofline.gemm_4x8_gflops)],
      [`GEMM ${r.config.d}×${r.config.d}×${r.config.d}, 6×8 register block`, f(r.roofline.gemm_6x8_gflops)],
      [`GEMM 16×${r.config.d}×${r.config.d} (an encoder-sized sentence)`, f(r.roofline.gemm_encoder_16_rows_gflops)],
    ]), '');
    if (r.roofline.interleaved) {
      out.push(`The f32 decoder-step stream sampled between sentences (${r.roofline.interleaved.samplesPerRepeat} samples a repeat, ` +
        'each the best of 2 passes, taking turns with the engines so that it meets the same noise): median per repeat ' +
        `${r.roofline.interleaved.median.map((x) => f(x)).join(', ')} GFLOP/s, best sample ${f(rf.best)} GFLOP/s.`, '');
    }
    out.push(table(['achieved', 'GFLOP/s', 'of the cache-resident f32 GEMV peak (the target\'s reference)', 'of the f32 decoder-step stream'], [
      ['attnscope WASM decoder (exact: f32 step weights, rearranged)', f(rf.ours, 3), pct(rf.fractionOfHotPeak), pct(rf.fractionOfStream)],
      ['onnxruntime-web decoder (f32 weights)', f(rf.ort, 3), pct(rf.ort / rf.hot), pct(rf.ortFractionOfStream)],
      ['attnscope native decoder (not WASM: for scale only)', f(rf.native, 3), '—', '—'],
      ['attnscope native decoder, Eigen product (for scale only)', f(rf.nativeEigen, 3), '—', '—'],
    ]), '');
    if (rf.int8) {
      out.push(table(['achieved with the opt-in int8 weights', 'G ops/s', 'of the cache-resident int8 GEMV peak', 'of the int8 decoder-step stream'], [
        ['attnscope WASM decoder, int8', f(rf.int8.rate, 3), pct(rf.int8.fractionOfHotPeak), pct(rf.int8.fractionOfStream)],
        ['attnscope native decoder, int8 (for scale only)', f(rf.nativeInt8, 3), '—', '—'],
      ]), '');
    }
    out.push(`Encoder (attnscope WASM): ${f(rf.encPerSentence / 1e6, 2)} MFLOP per sentence on average, ${f(rf.enc, 3)} GFLOP/s, ` +
      `${pct(rf.encFraction)} of the best WASM GEMM figure (${f(rf.gemm)} GFLOP/s).`, '');
    out.push('The microbenchmark\'s kernels: GEMV takes four weight rows at a time with two f32x4 accumulators each (no FMA in ' +
      'baseline WASM SIMD: f32x4.mul + f32x4.add); the int8 GEMV widens 16 int8 weights to two i16x8 and multiplies them ' +
      'into int32 pairs with i32x4.dot_i16x8_s; GEMM packs the [out, in] weights into 8-column panels and keeps a 4×8 or 6×8 ' +
      'block of C in registers. Each figure is timed in batches of calls, after a warm-up that lets V8 tier the code up to ' +
      'its optimising compiler. The decoder-step streams read every decoder weight once per step, as a real step does, and ' +
      'are bound by cache and memory bandwidth (16 MB in f32, 4 MB in int8); the cache-resident figures are bound by ' +
      'arithmetic. The engine\'s exact decoder reads its f32 step weights (16 MB) rearranged into one stream per block of ' +
      'four outputs (src/ops/gemm_simd.h); binary16 weights (half the bytes, converted in registers) measured 30 % slower ' +
      'per token in WASM.', '');
  } else {
    out.push('(The roofline microbenchmark was not built: run tests/bench/run.sh.)', '');
  }

  if (r.page) out.push(...renderPage(r.page));
  if (r.rnn?.length) out.push(...renderRnn(r.rnn));

  out.push('## Targets', '');
  out.push(targets(r), '');
  return out.join('\n');
}
