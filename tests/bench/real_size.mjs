// The benchmark at real size (`npm run bench -- --real-size`, or `--real-size-only` for this part
// alone): an opus-mt-en-de-sized Marian (random weights in Hugging Face's exact layout, 6 + 6
// layers, d 512, 8 heads, FFN 2048, vocabulary 58,101: models/goldens/make_hf_real_size.py, the
// snapshot converted to an f16 attnscope file) in attnscope's WASM build and in onnxruntime-web
// (WASM, SIMD, 1 thread) over the graphs tests/bench/export_onnx.py --hf traces from
// models/reference/hf_marian.py (and their q8 copies). Greedy, the same source ids for both:
//
// - decoder ms per generated token, in this process, the engines taking turns sentence by
//   sentence: attnscope capturing every attention map (self and cross, every layer and head)
//   against ORT's fp32 graphs (their normal outputs), attnscope's opt-in int8 weights (capturing
//   too) against ORT's q8 graphs, and attnscope with capture off beside them (what capture costs);
// - load to first token, each engine in a fresh process (`--cold`): from the file's bytes in
//   memory to the first token (runtime instantiation, model construction, encoder, first step);
// - peak WebAssembly linear memory in that process after a few sentences, set against the f16
//   file's size; with a profile of where attnscope's bytes go (computed from the config and
//   checked against the engine's own heap count).
//
//   node tests/bench/real_size.mjs --cold attnscope|attnscopeInt8|ort|ortQ8 --model FILE --onnx DIR
//       --sources FILE --max-length N --memory-sentences N      (one cold process; prints JSON)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkModelFile } from '../../web/model-header.js';
import { median, summarize, timedOrt, timedTranslation, watchWasmMemories } from './measure.mjs';
import { agreement, readLines } from './quality.mjs';

const root = resolve(import.meta.dirname, '../..');
const here = (p) => resolve(root, p);
const now = () => performance.now();

/** Where run.sh puts the model and its graphs. */
export const REAL_SIZE_DEFAULTS = {
  model: 'build/hf-real/opus-mt-en-de-size.safetensors',
  onnx: 'build/bench/onnx-opus-mt-en-de-size',
  data: 'tests/data/multi30k/val.first40.en',
};

// Every attention map of every step: the self and cross-attention sites, all layers and heads.
export const CAPTURE = { capture: { attention: true, logits: false, vectors: false } };
export const OFF = { capture: { attention: false, logits: false, vectors: false } };

/**
 * Greedy for exactly `maxLength` tokens: random weights end a sentence after a token or two, so
 * </s> is held back (minLength; ORT's loop the same) and not forced at the limit; the file's own
 * defaults (beam 4, as opus-mt's) are overridden.
 */
export const decoding = (maxLength, capture) => ({ strategy: 'greedy', maxLength, minLength: maxLength, forcedEos: false, alternatives: 0, ...capture });
const ortGreedy = (ort, ids, maxLength) => timedOrt(ort, ids, maxLength, { minLength: maxLength });
const COLD_ENGINES = ['attnscope', 'attnscopeInt8', 'ort', 'ortQ8'];

/**
 * The bytes attnscope holds for this model, by what they are (src/families/transformer/loader.cpp,
 * src/families/decoder_only/loader.cpp).
 */
export function memoryProfile(config, vocab, fileBytes, parameters) {
  const decoderOnly = config.architecture === 'decoder_only';
  const { d_model: d, d_ff: dff } = config;
  const L = decoderOnly ? config.n_layers : config.n_decoder_layers;
  // A decoder step's products: self q, k, v, out; cross q, out (an encoder-decoder's); fc1, fc2;
  // and the output projection.
  const stepElements = L * ((decoderOnly ? 4 : 6) * d * d + 2 * d * dff) + vocab * d;
  return {
    fileBytes,
    fileCopyBytes: fileBytes,             // the file's bytes copied into the engine for the load
    f32WeightsBytes: 4 * parameters,      // every tensor as f32 (the f16 file expanded)
    stepWeightsBytes: 4 * stepElements,   // the decoder's rearranged f32 step weights
    stepWeightsInt8Bytes: stepElements,   // the same in int8 (per-row scales aside)
    outputProjectionBytes: 4 * vocab * d, // of which the vocabulary-sized output projection
    stepElements,
  };
}

// ------------------------------------------------------------------ one cold process per engine

async function coldProcess(args) {
  const engine = args.cold;
  if (!COLD_ENGINES.includes(engine)) throw new Error(`--cold ${COLD_ENGINES.join('|')}, got '${engine}'`);
  const wasmBytes = watchWasmMemories();
  const sources = JSON.parse(readFileSync(args.sources, 'utf8'));
  const maxLength = Number(args['max-length']);
  const more = Number(args['memory-sentences']);
  const faults = () => process.resourceUsage().minorPageFault;
  let cold;
  let again;
  let heapAfterLoad = null;
  let wasmMemoryBytes;
  if (engine.startsWith('attnscope')) {
    const api = await import('../../web/attnscope.js');
    const bytes = new Uint8Array(readFileSync(args.model));
    const options = decoding(maxLength, CAPTURE);
    const loadToFirstToken = async () => {
      const f0 = faults();
      const t0 = now();
      await api.heapInUse();  // instantiates the runtime (once)
      const t1 = now();
      const model = await api.loadModel(bytes, { int8: engine === 'attnscopeInt8' });
      const t2 = now();
      const session = model.translate(sources.sentences[0], options);
      session.step();
      const t3 = now();
      session.dispose();
      return { model, runtimeMs: t1 - t0, constructMs: t2 - t1, encoderAndFirstStepMs: t3 - t2, loadToFirstTokenMs: t3 - t0, pageFaults: faults() - f0 };
    };
    const { model, ...first } = await loadToFirstToken();
    cold = first;
    heapAfterLoad = await api.heapInUse();
    for (let i = 0; i < more; ++i) timedTranslation(model, sources.sentences[i % sources.sentences.length], options);
    wasmMemoryBytes = wasmBytes();
    model.dispose();
    const { model: second, ...secondFigures } = await loadToFirstToken();
    again = secondFigures;
    second.dispose();
  } else {
    const { createOrt, graphFiles } = await import('./ort_engine.mjs');
    const variant = engine === 'ortQ8' ? 'q8' : 'fp32';
    const graphs = graphFiles(variant, sources.config).map((name) => new Uint8Array(readFileSync(join(args.onnx, name))));
    const loadToFirstToken = async () => {
      const f0 = faults();
      const t0 = now();
      const ort = await createOrt(args.onnx, sources.config, { variant, graphs });
      const t1 = now();
      const first = await ort.greedy(sources.ids[0], 1, { minLength: 1 });
      return { ort, runtimeMs: null, constructMs: t1 - t0, encoderAndFirstStepMs: first.firstTokenMs,
        loadToFirstTokenMs: t1 - t0 + first.firstTokenMs, pageFaults: faults() - f0 };
    };
    const { ort, ...first } = await loadToFirstToken();
    cold = first;
    for (let i = 0; i < more; ++i) await ortGreedy(ort, sources.ids[i % sources.ids.length], maxLength);
    wasmMemoryBytes = wasmBytes();
    await ort.release();
    const { ort: second, ...secondFigures } = await loadToFirstToken();
    again = secondFigures;
    await second.release();
  }
  // `again`: the same load in the same process, its memory already touched: without the first
  // touches of fresh pages, which cost ~12 us each on some virtual machines (CONTRIBUTING.md).
  return { engine, ...cold, again, wasmMemoryBytes, heapAfterLoadBytes: heapAfterLoad,
    maxRssBytes: process.resourceUsage().maxRSS * 1024 };
}

function runCold(engine, { model, onnx, sources, maxLength, memorySentences }) {
  const out = execFileSync(process.execPath, [import.meta.filename, '--cold', engine, '--model', model, '--onnx', onnx,
    '--sources', sources, '--max-length', String(maxLength), '--memory-sentences', String(memorySentences)],
  { encoding: 'utf8', maxBuffer: 16 << 20 });
  return JSON.parse(out.trim().split('\n').pop());
}

/**
 * `repeats` fresh processes per engine of `engines` (taking turns), each loading the model
 * (`options`: runCold's) and reading its memory; the median of each figure, and every run.
 */
export function coldProcesses(engines, repeats, options) {
  console.log('  cold processes (load to first token, memory)...');
  const cold = Object.fromEntries(engines.map((e) => [e, []]));
  for (let r = 0; r < repeats; ++r) {
    const order = [...engines];
    for (let k = 0; k < r % order.length; ++k) order.push(order.shift());
    for (const engine of order) cold[engine].push(runCold(engine, options));
  }
  const summary = {};
  for (const [engine, runs] of Object.entries(cold)) {
    summary[engine] = { runs };
    for (const key of ['runtimeMs', 'constructMs', 'encoderAndFirstStepMs', 'loadToFirstTokenMs', 'pageFaults', 'wasmMemoryBytes', 'heapAfterLoadBytes', 'maxRssBytes']) {
      summary[engine][key] = runs[0][key] === null ? null : median(runs.map((x) => x[key]));
    }
    summary[engine].again = {};
    for (const key of ['constructMs', 'encoderAndFirstStepMs', 'loadToFirstTokenMs', 'pageFaults']) {
      summary[engine].again[key] = median(runs.map((x) => x.again[key]));
    }
  }
  return summary;
}

// ---------------------------------------------------------------------------------- the section

/**
 * Runs the real-size section: `sentences` of `data` (tests/data: no download), `repeats` timed
 * passes, at most `maxLength` tokens; `memorySentences` translated in each cold process before
 * its memory is read. Returns what results.json keeps under realSize.
 */
export async function realSizeBench({ model = REAL_SIZE_DEFAULTS.model, onnx = REAL_SIZE_DEFAULTS.onnx, data = REAL_SIZE_DEFAULTS.data,
  sentences: count, repeats, maxLength, memorySentences, outDir, roofline = null }) {
  const modelPath = here(model);
  const onnxDir = here(onnx);
  for (const needed of [modelPath, join(onnxDir, 'check.json'), join(onnxDir, 'quantize.json')]) {
    if (!existsSync(needed)) throw new Error(`real size: ${relative(root, needed)} is missing (tests/bench/run.sh --real-size-only makes it)`);
  }
  const api = await import('../../web/attnscope.js');
  const exact = await api.loadModel(modelPath);
  const int8 = await api.loadModel(modelPath, { int8: true });
  const config = exact.config;
  const vocab = exact.info.tgtVocabSize;
  const { createOrt } = await import('./ort_engine.mjs');
  const ort = await createOrt(onnxDir, config);
  const ortQ8 = await createOrt(onnxDir, config, { variant: 'q8' });

  const texts = readLines(here(data)).slice(0, count);
  const ids = texts.map((s) => {
    const t = exact.tokenize(s);
    return config.src_append_eos ? [...t.ids, config.special_tokens.eos] : t.ids;
  });
  const sources = join(outDir, 'real-size-sources.json');
  writeFileSync(sources, JSON.stringify({ model, config, sentences: texts, ids }));
  console.log(`real size: ${relative(root, modelPath)} (${(statSync(modelPath).size / 1e6).toFixed(1)} MB), ${texts.length} sentences of ${data}, ` +
    `${repeats} repeats, at most ${maxLength} tokens`);

  const options = (capture) => decoding(maxLength, capture);
  const run = {
    capture: (i) => timedTranslation(exact, texts[i], options(CAPTURE)),
    off: (i) => timedTranslation(exact, texts[i], options(OFF)),
    int8: (i) => timedTranslation(int8, texts[i], options(CAPTURE)),
    ort: (i) => ortGreedy(ort, ids[i], maxLength),
    ortQ8: (i) => ortGreedy(ortQ8, ids[i], maxLength),
  };
  // Untimed: the same tokens first (and warm-up), and the session's ids are the ones ORT gets.
  const first = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
  for (let i = 0; i < texts.length; ++i) {
    const session = exact.translate(texts[i], options(OFF));
    if (JSON.stringify(session.source.ids) !== JSON.stringify(ids[i])) throw new Error(`real size, sentence ${i}: the session's source ids differ from ORT's`);
    session.dispose();
    for (const [k, f] of Object.entries(run)) first[k].push(await f(i));
  }
  const agree = { ortVsOurs: agreement(first.capture, first.ort), int8VsOurs: agreement(first.capture, first.int8),
    ortQ8VsOurs: agreement(first.capture, first.ortQ8), captureOffVsOn: agreement(first.capture, first.off) };
  for (const [k, a] of Object.entries(agree)) console.log(`  ${k}: ${a.identical}/${a.sentences} identical, token agreement ${(100 * a.tokenAgreement).toFixed(2)}%`);

  // The f32 decoder-step stream at this size (tests/bench/roofline: every decoder weight read once
  // by a plain SIMD GEMV, as a step reads them), sampled between sentences to share their noise.
  let stream = null;
  if (roofline && existsSync(roofline)) {
    const { default: createRoofline } = await import(roofline);
    stream = await createRoofline({ print: () => {} });
    stream._setup(config.d_model, config.d_ff, vocab, config.n_decoder_layers);
  }
  const streamSamples = [];

  const passes = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
  for (let r = 0; r < repeats; ++r) {
    const pass = Object.fromEntries(Object.keys(run).map((k) => [k, []]));
    for (let i = 0; i < texts.length; ++i) {
      if (stream) streamSamples.push(stream._decoder_step_gflops(2));
      const order = Object.keys(run);
      for (let k = 0; k < (i + r) % order.length; ++k) order.push(order.shift());
      for (const k of order) pass[k].push(await run[k](i));
    }
    for (const [k, v] of Object.entries(pass)) passes[k].push(v);
    const ms = (k) => summarize([pass[k]], texts.length).decodePerTokenMs.toFixed(2);
    console.log(`  repeat ${r + 1}/${repeats}: ms/token attnscope capturing ${ms('capture')} (off ${ms('off')}, int8 ${ms('int8')}), ` +
      `ORT fp32 ${ms('ort')}, q8 ${ms('ortQ8')}`);
  }
  exact.dispose();
  int8.dispose();
  await ort.release();
  await ortQ8.release();

  const coldSummary = coldProcesses(COLD_ENGINES, repeats, { model: modelPath, onnx: onnxDir, sources, maxLength, memorySentences });

  const fileBytes = statSync(modelPath).size;
  const header = checkModelFile(readFileSync(modelPath), modelPath);
  const onnxInfo = (name) => JSON.parse(readFileSync(join(onnxDir, name), 'utf8'));
  return {
    model, data, sentences: texts.length, repeats, maxLength, memorySentences, fileBytes, parameters: header.parameters,
    config: { d: config.d_model, dff: config.d_ff, heads: config.n_heads, encLayers: config.n_encoder_layers,
      decLayers: config.n_decoder_layers, vocab },
    onnx: { dir: onnx, export: onnxInfo('export.json'), check: onnxInfo('check.json'), quantize: onnxInfo('quantize.json') },
    agreement: agree,
    stream: stream ? { gflopsMedian: median(streamSamples), gflopsBest: Math.max(...streamSamples), samples: streamSamples.length } : null,
    greedy: Object.fromEntries(Object.entries(passes).map(([k, v]) => [k, summarize(v, texts.length)])),
    cold: coldSummary,
    profile: memoryProfile(config, vocab, fileBytes, header.parameters),
  };
}

if (process.argv[1] === import.meta.filename) {
  const { values: args } = parseArgs({ options: {
    cold: { type: 'string' }, model: { type: 'string' }, onnx: { type: 'string' }, sources: { type: 'string' },
    'max-length': { type: 'string' }, 'memory-sentences': { type: 'string' },
  } });
  for (const name of ['cold', 'model', 'onnx', 'sources', 'max-length', 'memory-sentences']) {
    if (args[name] === undefined) throw new Error(`real_size.mjs (one cold process) needs --${name}`);
  }
  console.log(JSON.stringify(await coldProcess(args)));
}
