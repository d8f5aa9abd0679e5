// The real-size sections of RESULTS.md and of docs/benchmarks.md's bench block: the figures of
// tests/bench/real_size.mjs (Marian) and real_size_gpt2.mjs (GPT-2 small), their targets and the
// profile of where attnscope's time and memory go.
import { decoderFlops, f, pairedRatio, table, verdict } from './render.mjs';
import { pairedLaterRatio } from './real_size_gpt2.mjs';

const MiB = 2 ** 20;
const mib = (bytes) => f(bytes / MiB, 1);
const pct = (x) => `${f(100 * x, 1)}%`;
const yes = (ok) => (ok ? 'met' : 'not met');

/** The targets at real size: per token ≥ 1.5× ORT, peak ≤ 1.3× the f16 file + 64 MiB, first token ≤ 2 s. */
export const REAL_SIZE_TARGETS = { speedup: 1.5, memoryPerFileByte: 1.3, memoryExtraBytes: 64 * MiB, firstTokenMs: 2000 };

function headline(rs) {
  const g = rs.greedy;
  const c = rs.cold;
  const timed = (name, ours, theirs, key) => [name, ours[key], theirs[key], true, undefined, pairedRatio(ours, theirs, key)];
  const cold = (name, ours, theirs, key, scale = 1, words = undefined) => [name, ours[key] / scale, theirs[key] / scale, true, words];
  const smaller = ['smaller', 'larger'];
  const lines = [
    timed('decoder, ms per generated token: attnscope capturing every attention map vs ORT fp32', g.capture, g.ort, 'decodePerTokenMs'),
    timed('the same, attnscope int8 (capturing) vs ORT q8', g.int8, g.ortQ8, 'decodePerTokenMs'),
    timed('the same, attnscope capture off vs ORT fp32', g.off, g.ort, 'decodePerTokenMs'),
    timed('encoder + first step, ms (warm), capturing vs fp32', g.capture, g.ort, 'firstTokenPerSentenceMs'),
    cold('load to first token, ms (fresh process, from the bytes in memory), exact vs fp32', c.attnscope, c.ort, 'loadToFirstTokenMs'),
    cold('the same, int8 vs q8', c.attnscopeInt8, c.ortQ8, 'loadToFirstTokenMs'),
    cold('load to first token again in that process (its memory already touched), ms, exact vs fp32', c.attnscope.again, c.ort.again, 'loadToFirstTokenMs'),
    cold('peak WASM linear memory, MiB, exact vs fp32', c.attnscope, c.ort, 'wasmMemoryBytes', MiB, smaller),
    cold('the same, int8 vs q8', c.attnscopeInt8, c.ortQ8, 'wasmMemoryBytes', MiB, smaller),
    cold('peak RSS of the process, MiB, exact vs fp32', c.attnscope, c.ort, 'maxRssBytes', MiB, smaller),
  ];
  return table(['figure (median of repeats)', 'attnscope (WASM)', 'onnxruntime-web', 'attnscope / ORT', 'attnscope is'],
    lines.map(([name, ours, theirs, lower, words, ratio = ours / theirs]) => [name, f(ours), f(theirs), f(ratio, 3), verdict(ratio, lower, words)]));
}

function targets(rs) {
  const g = rs.greedy;
  const c = rs.cold;
  const t = REAL_SIZE_TARGETS;
  const speed = pairedRatio(g.ort, g.capture, 'decodePerTokenMs');
  const speedInt8 = pairedRatio(g.ortQ8, g.int8, 'decodePerTokenMs');
  const limit = t.memoryPerFileByte * rs.fileBytes + t.memoryExtraBytes;
  const memory = (x) => `${mib(x.wasmMemoryBytes)} MiB (${f(x.wasmMemoryBytes / rs.fileBytes)}× the file)`;
  return table(['target (real size)', 'measured', ''], [
    [`decoder per token ≥ ${t.speedup}× onnxruntime-web fp32, attnscope capturing every attention map`,
      `${f(speed)}× (ORT ms/token ÷ attnscope ms/token)`, yes(speed >= t.speedup)],
    [`the same, attnscope int8 against ORT q8`, `${f(speedInt8)}×`, yes(speedInt8 >= t.speedup)],
    [`peak WASM linear memory ≤ ${t.memoryPerFileByte}× the f16 file + 64 MiB (${mib(limit)} MiB)`,
      `exact ${memory(c.attnscope)}, int8 ${memory(c.attnscopeInt8)}; ORT fp32 ${memory(c.ort)}, q8 ${memory(c.ortQ8)}`,
      yes(c.attnscope.wasmMemoryBytes <= limit)],
    [`load to first token ≤ ${t.firstTokenMs / 1000} s`, `exact ${f(c.attnscope.loadToFirstTokenMs, 0)} ms; int8 ${f(c.attnscopeInt8.loadToFirstTokenMs, 0)} ms ` +
      `(fresh process; with its memory already touched: ${f(c.attnscope.again.loadToFirstTokenMs, 0)} ms, ${f(c.attnscopeInt8.again.loadToFirstTokenMs, 0)} ms)`,
      yes(c.attnscope.loadToFirstTokenMs <= t.firstTokenMs)],
  ]);
}

/** The rows of the bytes table every real-size model has: computed from its config, and measured. */
function bytesRows(p, exact) {
  const x = (bytes) => f(bytes / p.fileBytes);
  const sum = p.fileCopyBytes + p.f32WeightsBytes + p.stepWeightsBytes;
  return [
    ['the file\'s bytes, copied into the engine for the load (freed after it)', mib(p.fileCopyBytes), x(p.fileCopyBytes)],
    ['every tensor as f32 (the f16 file expanded)', mib(p.f32WeightsBytes), x(p.f32WeightsBytes)],
    [`the decoder's step weights, rearranged f32 (of which the vocabulary-sized output projection ${mib(p.outputProjectionBytes)})`,
      mib(p.stepWeightsBytes), x(p.stepWeightsBytes)],
    ['sum, exact', mib(sum), x(sum)],
    ['measured, exact: heap in use after the load / peak linear memory', `${mib(exact.heapAfterLoadBytes)} / ${mib(exact.wasmMemoryBytes)}`,
      `${x(exact.heapAfterLoadBytes)} / ${x(exact.wasmMemoryBytes)}`],
  ];
}

const BYTES_HEADER = ['attnscope\'s bytes during a load (computed from the config; all held at once)', 'MiB', '× the f16 file'];

/** One engine's load to first token in words: its parts, its page faults, and a second load in the same process. */
const loadSplit = (e) => `${e.runtimeMs === null ? '' : `runtime instantiation ${f(e.runtimeMs, 0)} ms, `}` +
  `model construction ${f(e.constructMs, 0)} ms, encoder + first step ${f(e.encoderAndFirstStepMs, 0)} ms, ` +
  `${f(e.pageFaults / 1000, 0)} k page faults; a second load in the same process: construction ${f(e.again.constructMs, 0)} ms, ` +
  `${f(e.again.pageFaults / 1000, 0)} k page faults`;

const PAGE_FAULTS = 'A page fault is the first touch of a fresh page of memory: each byte an engine holds costs one on its first use, ' +
  'expensive on virtual machines such as the one measured (CONTRIBUTING.md: ~12 us a page, against 0.1-0.3 us on bare metal).';

function profile(rs) {
  const p = rs.profile;
  const c = rs.cold;
  const g = rs.greedy;
  const x = (bytes) => f(bytes / p.fileBytes);
  const sumInt8 = p.fileCopyBytes + p.f32WeightsBytes + p.stepWeightsInt8Bytes;
  const capture = pairedRatio(g.capture, g.off, 'decodePerTokenMs') - 1;
  const outputShare = p.outputProjectionBytes / p.stepWeightsBytes;
  const gemv = decoderFlops(rs.config, 0, 1).gemv;  // matrix-vector FLOPs of one step
  const rate = (summary) => gemv / (summary.decodePerStepMs * 1e6);  // GFLOP/s
  // Against the stream's median: its samples were taken between the engines' sentences and met the same load.
  const ofStream = (summary) => rate(summary) / rs.stream.gflopsMedian;
  const stream = rs.stream ? ` The f32 decoder-step stream at this size (tests/bench/roofline/simd_peak.cpp's plain SIMD GEMV over the ` +
    `same ${mib(p.stepWeightsBytes)} MiB, sampled between sentences): median ${f(rs.stream.gflopsMedian)} GFLOP/s ` +
    `(${f(gemv / (rs.stream.gflopsMedian * 1e6))} ms a step), best ${f(rs.stream.gflopsBest)}. attnscope's decoder runs its ` +
    `matrix-vector products at ${f(rate(g.off))} GFLOP/s (${pct(ofStream(g.off))} of the stream's median; capturing ${f(rate(g.capture))}), ` +
    `ORT fp32 at ${f(rate(g.ort))} (${pct(ofStream(g.ort))}). ` +
    (ofStream(g.off) >= 0.6
      ? 'attnscope reads its f32 step weights at about the rate this core streams them from memory: an exact f32 decoder ' +
        'cannot get much faster; fewer bytes a step can (binary16 or int8 step weights).'
      : 'Well below the stream: most of a step goes elsewhere than reading the weights (per-step work, attention, capture).') : '';
  return [
    table(BYTES_HEADER, [
      ...bytesRows(p, c.attnscope).slice(0, 4),
      ['sum, int8 (its step weights in int8)', mib(sumInt8), x(sumInt8)],
      bytesRows(p, c.attnscope)[4],
      ['measured, int8: heap in use after the load / peak linear memory', `${mib(c.attnscopeInt8.heapAfterLoadBytes)} / ${mib(c.attnscopeInt8.wasmMemoryBytes)}`,
        `${x(c.attnscopeInt8.heapAfterLoadBytes)} / ${x(c.attnscopeInt8.wasmMemoryBytes)}`],
    ]),
    '',
    `- *Load to first token*: attnscope exact: ${loadSplit(c.attnscope)}; int8: ${loadSplit(c.attnscopeInt8)}. ` +
      `ORT fp32: ${loadSplit(c.ort)} (its runtime starts with the first model it loads); q8: ${loadSplit(c.ortQ8)}. ${PAGE_FAULTS}`,
    `- *Per token*: capturing every attention map costs ${pct(capture)} over capture off. A step streams ${mib(p.stepWeightsBytes)} MiB ` +
      `of f32 weights (${mib(p.stepWeightsInt8Bytes)} MiB in int8), ${pct(outputShare)} of it the output projection (vocabulary ${rs.config.vocab} × d ${rs.config.d}), ` +
      `which therefore takes about that share of a step.${stream}`,
  ];
}

/** The table and the targets, for docs/benchmarks.md's block. */
export function renderRealSizeBlock(rs) {
  return [
    `At real size (${describe(rs)}; ${rs.meta.date.slice(0, 10)}, load average ${rs.meta.loadAverage.start[0].toFixed(1)} at the start): ` +
      'the section "Real size" of [tests/bench/RESULTS.md](../tests/bench/RESULTS.md) has the profile.',
    '',
    headline(rs),
    '',
    targets(rs),
    '',
  ].join('\n');
}

function describe(rs) {
  const c = rs.config;
  return `a Marian of ${c.encLayers}+${c.decLayers} layers, d ${c.d}, ${c.heads} heads, FFN ${c.dff}, ` +
    `vocabulary ${c.vocab}, ${f(rs.parameters / 1e6, 1)} M parameters, f16 file ${f(rs.fileBytes / 1e6, 1)} MB`;
}

/** The section of RESULTS.md. */
export function renderRealSize(rs) {
  const m = rs.meta;
  const o = rs.onnx;
  const graphBytes = (info) => Object.values(info).reduce((a, b) => a + (b.bytes ?? b), 0);
  const agreeRows = Object.entries({ ortVsOurs: 'onnxruntime-web fp32 vs attnscope (capturing)', int8VsOurs: 'attnscope int8 vs exact',
    ortQ8VsOurs: 'onnxruntime-web q8 vs attnscope exact', captureOffVsOn: 'attnscope capture off vs on' })
    .map(([k, name]) => [name, `${rs.agreement[k].identical} / ${rs.agreement[k].sentences}`, pct(rs.agreement[k].tokenAgreement)]);
  return [
    '## Real size: an opus-mt-en-de-sized Marian', '',
    `- **Model**: ${describe(rs)}: random weights in Hugging Face's exact layout (models/goldens/make_hf_real_size.py), ` +
      `converted to ${rs.model} (models/convert/convert_hf.py --f16).`,
    `- **Run**: ${m.date} on ${m.machine.cpu}, \`nproc\` = ${m.machine.nproc} (load average 1/5/15 min at the start ` +
      `${m.loadAverage.start.map((v) => v.toFixed(2)).join(' / ')}, at the end ${m.loadAverage.end.map((v) => v.toFixed(2)).join(' / ')}), ` +
      `\`${m.command}\`, git ${m.git}.`,
    `- **Workload**: the first ${rs.sentences} sentences of ${rs.data}, greedy, at most ${rs.maxLength} tokens, the same source ids ` +
      `for both engines (attnscope's tokenizer); medians over ${rs.repeats} repeats, the engines taking turns sentence by sentence; ` +
      `load and memory in a fresh Node process per engine (median of ${rs.repeats}), after ${rs.memorySentences} sentences.`,
    `- **ONNX**: tests/bench/export_onnx.py --hf traced the snapshot through models/reference/hf_marian.py ` +
      `(${o.export.weights} weights), ${f(graphBytes(o.export.graphs) / 1e6, 0)} MB of f32 graphs; against that reference: ` +
      `${o.check.ok ? 'same tokens' : 'MISMATCH'}, max |logit difference| ${o.check.max_abs_logit_diff.toExponential(1)} on ` +
      `${o.check.cases.length} sentences. q8 (tests/bench/quantize_onnx.py): ${f(graphBytes(o.quantize.graphs) / 1e6, 0)} MB.`,
    '',
    table(['greedy outputs', 'identical sentences', 'token agreement'], agreeRows),
    '',
    headline(rs),
    '',
    targets(rs),
    '',
    '### Where the time and the memory go', '',
    ...profile(rs),
    '',
  ];
}

// ------------------------------------------------------------------------ GPT-2 small (real_size_gpt2.mjs)

function describeGpt2(rs) {
  const c = rs.config;
  return `GPT-2 small's shape: ${c.layers} layers, n_embd ${c.d}, ${c.heads} heads, n_positions ${c.positions}, ` +
    `vocabulary ${c.vocab}, ${f(rs.parameters / 1e6, 1)} M parameters, f16 file ${f(rs.fileBytes / 1e6, 1)} MB`;
}

function gpt2Headline(rs) {
  const perToken = (name, ours, theirs) => [name, ours.laterPerTokenMs, theirs.laterPerTokenMs, pairedLaterRatio(ours, theirs)];
  const lines = rs.contexts.flatMap((x) => [
    perToken(`ms per generated token at a ${x.context}-token context: attnscope capturing every attention map vs ORT fp32`, x.capture, x.ort),
    perToken(`the same, attnscope capture off vs ORT fp32`, x.off, x.ort),
    [`first token (<bos> + the ${x.promptTokens}-token prompt read at once), ms, capturing vs fp32`, x.capture.firstTokenMs, x.ort.firstTokenMs],
  ]);
  const c = rs.cold;
  lines.push(['load to first token, ms (fresh process, from the bytes in memory; 128-token context)', c.attnscope.loadToFirstTokenMs, c.ort.loadToFirstTokenMs]);
  lines.push(['peak WASM linear memory, MiB (after both contexts)', c.attnscope.wasmMemoryBytes / MiB, c.ort.wasmMemoryBytes / MiB, undefined, ['smaller', 'larger']]);
  lines.push(['peak RSS of the process, MiB', c.attnscope.maxRssBytes / MiB, c.ort.maxRssBytes / MiB, undefined, ['smaller', 'larger']]);
  return table(['figure (median of repeats)', 'attnscope (WASM)', 'onnxruntime-web', 'attnscope / ORT', 'attnscope is'],
    lines.map(([name, ours, theirs, ratio = ours / theirs, words]) => [name, f(ours), f(theirs), f(ratio, 3), verdict(ratio, true, words)]));
}

function gpt2Targets(rs) {
  const t = REAL_SIZE_TARGETS;
  const c = rs.cold;
  const limit = t.memoryPerFileByte * rs.fileBytes + t.memoryExtraBytes;
  const rows = rs.contexts.map((x) => {
    const speed = 1 / pairedLaterRatio(x.capture, x.ort);
    return [`per generated token ≥ ${t.speedup}× onnxruntime-web fp32 at a ${x.context}-token context, attnscope capturing every attention map`,
      `${f(speed)}× (ORT ms/token ÷ attnscope ms/token)`, yes(speed >= t.speedup)];
  });
  const fit = rs.fit;
  return table(['target (GPT-2 small)', 'measured', ''], [
    ...rows,
    [`peak WASM linear memory ≤ ${t.memoryPerFileByte}× the f16 file + 64 MiB (${mib(limit)} MiB)`,
      `${mib(c.attnscope.wasmMemoryBytes)} MiB (${f(c.attnscope.wasmMemoryBytes / rs.fileBytes)}× the file); ORT fp32 ${mib(c.ort.wasmMemoryBytes)} MiB`,
      yes(c.attnscope.wasmMemoryBytes <= limit)],
    [`load to first token ≤ ${t.firstTokenMs / 1000} s`, `${f(c.attnscope.loadToFirstTokenMs, 0)} ms (with its memory already touched: ` +
      `${f(c.attnscope.again.loadToFirstTokenMs, 0)} ms)`, yes(c.attnscope.loadToFirstTokenMs <= t.firstTokenMs)],
    ['the page takes the file (web/model-header.js: held tensors + the largest tensor as it loads + activations + the engine within the 2 GiB heap)',
      fit.accepted ? `${mib(fit.needBytes)} MiB of ${mib(fit.limitBytes)} MiB` : fit.message, fit.accepted ? 'yes' : 'no'],
  ]);
}

/**
 * FLOPs of the first step over C positions (<bos> and the prompt): per layer q, k, v, out and the
 * FFN (2·C·(4d² + 2d·d_ff)), causal scores and context (2 · 2·d per key, C(C + 1)/2 keys), and the
 * output projection of the last position.
 */
const promptFlops = ({ d, dff, layers, vocab }, C) => layers * (2 * C * (4 * d * d + 2 * d * dff) + 2 * d * C * (C + 1)) + 2 * d * vocab;

function gpt2Profile(rs) {
  const p = rs.profile;
  const gemv = rs.contexts.length ? 2 * p.stepElements : 0;  // matrix-vector FLOPs of one step
  const rate = (ms) => gemv / (ms * 1e6);  // GFLOP/s
  const byContext = rs.contexts.map((x) => `at ${x.context} tokens capturing costs ${pct(pairedLaterRatio(x.capture, x.off) - 1)} over capture off, ` +
    `whose step runs its matrix-vector products at ${f(rate(x.off.laterPerTokenMs))} GFLOP/s (ORT fp32 ${f(rate(x.ort.laterPerTokenMs))})`).join('; ');
  const stream = rs.stream ? ` The f32 step stream (tests/bench/roofline/simd_peak.cpp's plain SIMD GEMV over weights of this size, ` +
    `sampled after the timed runs): median ${f(rs.stream.gflopsMedian)} GFLOP/s, best ${f(rs.stream.gflopsBest)}.` : '';
  return [
    table(BYTES_HEADER, bytesRows(p, rs.cold.attnscope)),
    '',
    `- *Load to first token*: attnscope: ${loadSplit(rs.cold.attnscope)}. ORT fp32: ${loadSplit(rs.cold.ort)} ` +
      `(its runtime starts with the first model it loads; "encoder + first step" is the prompt's graph). ${PAGE_FAULTS}`,
    `- *First token*: the prompt read at once is a matrix-matrix product; ` + rs.contexts.map((x) => {
      const flops = promptFlops(rs.config, x.context);
      return `at ${x.context} tokens ${f(flops / 1e9, 1)} GFLOP, attnscope (capturing) at ${f(flops / (x.capture.firstTokenMs * 1e6))} GFLOP/s, ` +
        `ORT fp32 at ${f(flops / (x.ort.firstTokenMs * 1e6))}`;
    }).join('; ') + '.',
    `- *Per token*: a step streams ${mib(p.stepWeightsBytes)} MiB of f32 weights, ${pct(p.outputProjectionBytes / p.stepWeightsBytes)} of it the ` +
      `output projection (vocabulary ${rs.config.vocab} × d ${rs.config.d}); ${byContext}.${stream}`,
  ];
}

/** GPT-2's table and targets, for docs/benchmarks.md's block. */
export function renderGpt2Block(rs) {
  return [
    `GPT-2 small at real size (${describeGpt2(rs)}; ${rs.meta.date.slice(0, 10)} on ${rs.meta.machine.cpu}, load average ` +
      `${rs.meta.loadAverage.start[0].toFixed(1)} at the start): the section "GPT-2 small" of [tests/bench/RESULTS.md](../tests/bench/RESULTS.md) has the profile.`,
    '',
    gpt2Headline(rs),
    '',
    gpt2Targets(rs),
    '',
  ].join('\n');
}

/** GPT-2's section of RESULTS.md. */
export function renderGpt2(rs) {
  if (!rs.contexts) return ['## Real size: GPT-2 small', '', `Not run: ${rs.fit.message}`, ''];
  const m = rs.meta;
  const o = rs.onnx;
  const graphBytes = Object.values(o.export.graphs).reduce((a, b) => a + b, 0);
  const agreeRows = rs.contexts.flatMap((x) => [
    [`${x.context}: onnxruntime-web fp32 vs attnscope (capturing)`, pct(x.agreement.ortVsOurs.tokenAgreement)],
    [`${x.context}: attnscope capture off vs on`, pct(x.agreement.captureOffVsOn.tokenAgreement)],
  ]);
  return [
    '## Real size: GPT-2 small', '',
    `- **Model**: ${describeGpt2(rs)}: random weights in Hugging Face's exact layout (models/goldens/make_hf_gpt2_checkpoints.py --size small), ` +
      `converted to ${rs.model} (models/convert/convert_hf.py --f16).`,
    `- **Run**: ${m.date} on ${m.machine.cpu}, \`nproc\` = ${m.machine.nproc} (load average 1/5/15 min at the start ` +
      `${m.loadAverage.start.map((v) => v.toFixed(2)).join(' / ')}, at the end ${m.loadAverage.end.map((v) => v.toFixed(2)).join(' / ')}), ` +
      `\`${m.command}\`, git ${m.git}, onnxruntime-web ${m.onnxruntimeWeb}.`,
    `- **Workload**: greedy continuations of a prompt of ${rs.contexts.map((x) => x.promptTokens).join(' and ')} tokens (sentences of ${rs.data}; ` +
      `with <bos>, contexts of ${rs.contexts.map((x) => x.context).join(' and ')} tokens), ${rs.newTokens} tokens each (<|endoftext|> held back: ` +
      `minLength, and ORT's loop the same), the same prompt ids for both engines (attnscope's tokenizer); per token: the steps after the ` +
      `first, divided by their tokens; ${rs.generations} continuations per engine and repeat, medians over ${rs.repeats} repeats, the engines ` +
      `taking turns; load and memory in a fresh Node process per engine (median of ${rs.repeats}), after a continuation at each context.`,
    `- **ONNX**: tests/bench/export_onnx.py --hf traced the snapshot through models/reference/hf_gpt2.py (tests/bench/hf_gpt2_onnx.py, ` +
      `${o.export.weights} weights), ${f(graphBytes / 1e6, 0)} MB of f32 graphs (the prompt's, and one token on the key/value cache, ` +
      `past_key_values.N.key/value as transformers.js names them); against that reference: ${o.check.ok ? 'same tokens' : 'MISMATCH'}, ` +
      `max |logit difference| ${o.check.max_abs_logit_diff.toExponential(1)} on ${o.check.cases.length} prompts.`,
    '',
    table(['greedy outputs (one continuation per context)', 'token agreement'], agreeRows),
    '',
    gpt2Headline(rs),
    '',
    gpt2Targets(rs),
    '',
    '### Where the time and the memory go', '',
    ...gpt2Profile(rs),
    '',
  ];
}
