// The benchmark: attnscope's WASM build against onnxruntime-web (WASM, SIMD,
// 1 thread) in one Node process on the same Multi30k sentences and the same weights, plus the
// native build (g++ -O3 -march=native), the PyTorch reference (CPU, 1 thread) and the WASM SIMD
// roofline. Run it through `npm run bench` (tests/bench/run.sh builds and exports first):
//
//   node tests/bench/bench.mjs [--sentences 200] [--repeats 3] [--beam-sentences 30]
//       [--max-length 64] [--memory-sentences 20] [--bleu-sentences 1000] [--no-publish] [--docs]
//   node tests/bench/bench.mjs --from build/bench/results.json [--docs]   # only re-render
//   node tests/bench/bench.mjs --rnn-only [--rnn-model FILE]   # only the RNN comparison
//   node tests/bench/bench.mjs --real-size [--real-size-sentences 12] [--real-size-max-length 32]
//   node tests/bench/bench.mjs --real-size-only [--docs]   # only the real-size section (below)
//   node tests/bench/bench.mjs --gpt2 [--gpt2-new-tokens 32] [--gpt2-generations 2]   # GPT-2 small too
//   node tests/bench/bench.mjs --gpt2-only [--docs]   # only GPT-2 small at real size (below)
//
// The RNN encoder-decoder family is compared with the PyTorch reference the same way:
// greedy decode time per token of attnscope's WASM build against models/reference/attnscope_ref/rnn.py on
// the CPU with one thread, same weights, same source ids (rnnBench below). The shipped toy RNN
// (its 36 sentences) always; models/multi30k-rnn-en-de.safetensors on the Multi30k sentences
// when it is shipped; --rnn-model adds a file (a toy-* file reads the toy sentences).
//
// ORT runs twice over: the fp32 export, set against attnscope's exact decoder, and
// its q8 copy (tests/bench/quantize_onnx.py: what onnxruntime's dynamic quantization makes, the
// graphs transformers.js users run), set against attnscope's opt-in int8 weights; all four in
// this process on the same sentences. --bleu-sentences N (0: none) also translates the first N
// sentences of Multi30k's test_2016_flickr with each of the four and scores them with
// models/evaluation/bleu.py (tests/bench/quality.mjs).
//
// --real-size adds the comparison at real size (tests/bench/real_size.mjs: an opus-mt-en-de-sized
// Marian against onnxruntime-web, per token with every attention map captured, load to first
// token, peak memory, and where they go); --real-size-only runs that alone, writes
// build/bench/real-size.json and puts it into the last full run's results (tests/bench/results.json)
// before they are published again, so RESULTS.md and docs/benchmarks.md show both. --gpt2 adds
// GPT-2 small at real size (tests/bench/real_size_gpt2.mjs: per token at a 128- and a 512-token
// context capturing every attention map, against onnxruntime-web; load and memory) to a full or a
// --real-size-only run; --gpt2-only runs it alone the same way (build/bench/gpt2-size.json).
//
// Writes build/bench/results.json and build/bench/RESULTS.md, and (unless --no-publish)
// tests/bench/RESULTS.md and tests/bench/results.json (committed together); --docs (or its old name --readme) also replaces the block between the
// bench markers in docs/benchmarks.md. What each figure measures is written into RESULTS.md (see render.mjs).
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { dataPath } from '../js/helpers.js';
import { median, summarize, timedOrt, timedTranslation, totals, watchWasmMemories } from './measure.mjs';
import { agreement, bleuScores, readTestSet } from './quality.mjs';
import { REAL_SIZE_DEFAULTS, realSizeBench } from './real_size.mjs';
import { decoderFlops, encoderFlops, pairedRatio, renderMarkdown, renderReadmeBlock } from './render.mjs';
import { GPT2_DEFAULTS, gpt2Bench } from './real_size_gpt2.mjs';
import { renderGpt2, renderGpt2Block, renderRealSize, renderRealSizeBlock } from './render_real_size.mjs';

const root = resolve(import.meta.dirname, '../..');
const here = (p) => resolve(root, p);
// Paths recorded in results.json are relative to the checkout, so the file says nothing of the machine.
const fromRoot = (p) => relative(root, p);

const { values: args } = parseArgs({
  options: {
    sentences: { type: 'string', default: '200' },
    repeats: { type: 'string', default: '3' },
    'beam-sentences': { type: 'string', default: '30' },
    'memory-sentences': { type: 'string', default: '20' },
    'bleu-sentences': { type: 'string', default: '1000' },  // of test_2016_flickr; 0 = no BLEU
    'max-length': { type: 'string', default: '64' },
    model: { type: 'string', default: 'models/multi30k-en-de.safetensors' },
    data: { type: 'string', default: '' },
    onnx: { type: 'string', default: 'build/bench/onnx' },
    out: { type: 'string', default: 'build/bench' },
    native: { type: 'string', default: 'build/bench-native/attnscope-bench' },
    python: { type: 'string', default: process.env.ATTNSCOPE_TORCH_PYTHON ?? '/usr/bin/python3' },
    roofline: { type: 'string', default: 'build/bench/roofline/simd_peak.js' },
    'no-publish': { type: 'boolean', default: false },
    docs: { type: 'boolean', default: false },
    readme: { type: 'boolean', default: false },  // the old name of --docs
    'rnn-model': { type: 'string', multiple: true, default: [] },
    'rnn-only': { type: 'boolean', default: false },
    // The real-size section (tests/bench/real_size.mjs): added to the run, or run alone.
    'real-size': { type: 'boolean', default: false },
    'real-size-only': { type: 'boolean', default: false },
    'real-size-sentences': { type: 'string', default: '12' },
    'real-size-max-length': { type: 'string', default: '32' },
    'real-size-model': { type: 'string', default: REAL_SIZE_DEFAULTS.model },
    'real-size-onnx': { type: 'string', default: REAL_SIZE_DEFAULTS.onnx },
    // GPT-2 small at real size (tests/bench/real_size_gpt2.mjs): added to the run, or run alone.
    gpt2: { type: 'boolean', default: false },
    'gpt2-only': { type: 'boolean', default: false },
    'gpt2-new-tokens': { type: 'string', default: '32' },
    'gpt2-generations': { type: 'string', default: '2' },
    'gpt2-model': { type: 'string', default: GPT2_DEFAULTS.model },
    'gpt2-onnx': { type: 'string', default: GPT2_DEFAULTS.onnx },
    from: { type: 'string' },  // re-render the Markdown from an earlier results.json, run nothing
    cold: { type: 'string' },  // internal: one cold start in a child process ('attnscope' | 'ort')
  },
});
const count = (name) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} needs a positive integer, got '${args[name]}'`);
  return n;
};
const N = count('sentences');
const R = count('repeats');
const B = Math.min(count('beam-sentences'), N);
const M = Math.min(count('memory-sentences'), N);
const maxLength = count('max-length');
const bleuSentences = Number(args['bleu-sentences']);
if (!Number.isInteger(bleuSentences) || bleuSentences < 0) throw new Error(`--bleu-sentences needs an integer >= 0, got '${args['bleu-sentences']}'`);
const modelPath = here(args.model);
const outDir = here(args.out);
const now = () => performance.now();

// ------------------------------------------------------------------------------- shared bits

// Multi30k itself is not in the repository (tests/data holds only its first 40 sentences): the
// benchmark reads it beside the checkout, as the training scripts do.
const dataDir = () => process.env.ATTNSCOPE_DATA ?? here('../shared/data');

function readSentences() {
  const file = args.data ? here(args.data) : join(dataDir(), 'multi30k/val.en.gz');
  if (!existsSync(file)) throw new Error(`${file} is missing (the Multi30k data beside the checkout, or ATTNSCOPE_DATA)`);
  let bytes = readFileSync(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const lines = bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '');
  if (lines.length < N) throw new Error(`${file} has ${lines.length} sentences, --sentences asks for ${N}`);
  return { file, sentences: lines.slice(0, N) };
}

const OFF = { capture: { attention: false, logits: false, vectors: false } };
const variants = {
  off: { ...OFF },
  capture: { capture: { attention: true, logits: true, vectors: false } },   // the JS API's default capture
  captureAll: { capture: { attention: true, logits: true, vectors: true } },
  beam4: { ...OFF, strategy: 'beam', beamSize: 4 },
  beam8: { ...OFF, strategy: 'beam', beamSize: 8 },
};

/** One attnscope translation with one of `variants` (measure.mjs: timedTranslation). */
const ours = (model, text, variant) => timedTranslation(model, text, { maxLength, alternatives: 0, ...variants[variant] });
const ortRun = (ort, ids) => timedOrt(ort, ids, maxLength);

// ------------------------------------------------------------------- cold start (child process)

async function coldStart(engine) {
  const wasmBytes = watchWasmMemories();
  const { sentences } = readSentences();
  const sources = JSON.parse(readFileSync(join(outDir, 'sources.json'), 'utf8'));
  const rssBefore = process.memoryUsage().rss;
  const t0 = now();
  let translateOne;
  let heapInUse = null;
  if (engine === 'attnscope') {
    const api = await import('../../web/attnscope.js');
    const model = await api.loadModel(modelPath);
    const t1 = now();
    translateOne = (i) => ours(model, sentences[i], 'off');
    translateOne(0);
    const t2 = now();
    for (let i = 0; i < M; ++i) translateOne(i);
    heapInUse = await api.heapInUse();
    return report(t1 - t0, t2 - t1);
  }
  const { OrtTranslator } = await import('./ort_engine.mjs');
  const ort = await OrtTranslator.create(here(args.onnx), sources.config);
  const t1 = now();
  await ortRun(ort, sources.ids[0]);
  const t2 = now();
  for (let i = 0; i < M; ++i) await ortRun(ort, sources.ids[i]);
  return report(t1 - t0, t2 - t1);

  function report(loadMs, firstMs) {
    const mem = process.memoryUsage();
    return {
      engine, loadMs, firstMs, loadAndFirstMs: loadMs + firstMs,
      wasmMemoryBytes: wasmBytes(), heapInUseBytes: heapInUse,
      rssBeforeBytes: rssBefore, rssEndBytes: mem.rss,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      peakRssDeltaBytes: process.resourceUsage().maxRSS * 1024 - rssBefore,
      jsHeapUsedBytes: mem.heapUsed, externalBytes: mem.external, arrayBuffersBytes: mem.arrayBuffers,
    };
  }
}

function runChild(engine) {
  const childArgs = [import.meta.filename, '--cold', engine, '--sentences', String(N), '--memory-sentences', String(M),
    '--max-length', String(maxLength), '--model', modelPath, '--onnx', here(args.onnx), '--out', outDir];
  if (args.data) childArgs.push('--data', here(args.data));
  const out = execFileSync(process.execPath, childArgs, { encoding: 'utf8', maxBuffer: 16 << 20 });
  return JSON.parse(out.trim().split('\n').pop());
}

// -------------------------------------------------------------------- workers (native, torch)

class Worker {
  constructor(name, command, argv) {
    this.name = name;
    this.proc = spawn(command, argv, { stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.proc.stdout })[Symbol.asyncIterator]();
    this.exited = new Promise((res) => this.proc.on('exit', (code) => res(code)));
  }

  async next() {
    const { value, done } = await this.lines.next();
    if (done) throw new Error(`${this.name} exited (status ${await this.exited})`);
    const reply = JSON.parse(value);
    if (reply.error) throw new Error(`${this.name}: ${reply.error}`);
    return reply;
  }

  async ask(command) {
    this.proc.stdin.write(command + '\n');
    return this.next();
  }

  async quit() {
    this.proc.stdin.end('quit\n');
    await this.exited;
  }
}

async function startWorker(name, command, argv, skipReason) {
  if (skipReason) {
    console.log(`  ${name}: skipped (${skipReason})`);
    return null;
  }
  try {
    const worker = new Worker(name, command, argv);
    worker.ready = await worker.next();
    console.log(`  ${name}: ready (load ${worker.ready.load_ms.toFixed(0)} ms)`);
    return worker;
  } catch (e) {
    console.log(`  ${name}: not available (${e.message})`);
    return null;
  }
}

/** A worker's per-sentence answer, as the in-process runs record it. */
const fromWorker = (reply) => reply.encode_ms.map((encodeMs, i) => ({
  encodeMs, decodeMs: reply.decode_ms[i], firstTokenMs: reply.first_token_ms[i], ids: reply.ids[i],
  steps: reply.steps?.[i] ?? reply.tokens[i],
}));

// ---------------------------------------------------------------------------------- figures

function machine() {
  let cpu = cpus()[0]?.model ?? 'unknown';
  // The vector extensions that decide how a WASM engine's SIMD lowers (V8 uses AVX forms when it
  // has them): the ratios between engines depend on them, so they go beside the CPU's name.
  const wanted = ['sse4_1', 'sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512bw', 'avx512vl', 'avx512_vnni'];
  let simdFlags = [];
  try {
    const lines = execFileSync('lscpu', { encoding: 'utf8' }).split('\n');
    const line = lines.find((l) => l.startsWith('Model name:'));
    if (line) cpu = line.replace('Model name:', '').trim();
    const flags = new Set((lines.find((l) => l.startsWith('Flags:')) ?? '').replace('Flags:', '').trim().split(/\s+/));
    simdFlags = wanted.filter((f) => flags.has(f));
  } catch { /* lscpu missing: keep os.cpus() */ }
  let nproc = cpus().length;
  try { nproc = Number(execFileSync('nproc', { encoding: 'utf8' }).trim()); } catch { /* keep */ }
  return { cpu, simdFlags, nproc, node: process.version, platform: `${process.platform} ${process.arch}` };
}

function gitRevision() {
  try {
    const rev = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', 'src', 'bindings', 'web'],
      { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${rev} (with uncommitted changes in src/, bindings/ or web/)` : rev;
  } catch {
    return 'unknown';
  }
}

// ---------------------------------------------------------------------------- RNN vs PyTorch

/** The RNN files to compare: the shipped toy, the shipped Multi30k RNN if any, and --rnn-model. */
function rnnModels() {
  const files = ['models/toy-rnn-bahdanau-additive.safetensors'];
  if (existsSync(here('models/multi30k-rnn-en-de.safetensors'))) files.push('models/multi30k-rnn-en-de.safetensors');
  return [...new Set([...files, ...args['rnn-model']])];
}

/**
 * The sentences an RNN file is timed on: --sentences of Multi30k's, or for a toy-* file the 36 of
 * the toy grammar, repeated up to --sentences (a pass over 36 short sentences is too short to time).
 */
function rnnSentences(file) {
  if (!/(^|\/)toy-[^/]*$/.test(file)) return readSentences().sentences;
  const toy = readFileSync(dataPath('toy/eng_de.csv'), 'utf8').trim().split('\n').map((l) => l.trim().split(',')[0]);
  return Array.from({ length: N }, (_, i) => toy[i % toy.length]);
}

/**
 * One RNN file: an untimed pass (the same tokens from both engines, and warm-up), then R repeats
 * of attnscope's WASM greedy decode (capture off) and the PyTorch worker's, one after the other.
 */
async function rnnBench(api, file) {
  const path = here(file);
  const model = await api.loadModel(path);
  const config = model.config;
  if (config.architecture !== 'rnn') throw new Error(`${file} is not an RNN (architecture ${config.architecture})`);
  const sentences = rnnSentences(file);
  const ids = sentences.map((s) => {
    const t = model.tokenize(s);
    return config.src_append_eos ? [...t.ids, config.special_tokens.eos] : t.ids;
  });
  const sources = join(outDir, `sources-${file.replace(/[^A-Za-z0-9.-]+/g, '_')}.json`);
  writeFileSync(sources, JSON.stringify({ model: file, config, sentences, ids }));
  console.log(`RNN ${file}: ${sentences.length} sentences`);
  const torch = await startWorker('pytorch', args.python,
    [here('tests/bench/bench_torch.py'), '--model', path, '--sources', sources, '--max-length', String(maxLength)]);
  const first = sentences.map((s) => ours(model, s, 'off'));
  const out = { model: file, bytes: statSync(path).size, config, sentences: sentences.length, attnscope: null, torch: null };
  const passes = { off: [], torch: [] };
  if (torch) out.agreement = agreement(first, fromWorker(await torch.ask('greedy')));
  for (let r = 0; r < R; ++r) {
    passes.off.push(sentences.map((s) => ours(model, s, 'off')));
    if (torch) passes.torch.push(fromWorker(await torch.ask('greedy')));
  }
  await torch?.quit();
  model.dispose();
  out.attnscope = summarize(passes.off, sentences.length);
  if (torch) out.torch = summarize(passes.torch, sentences.length);
  const a = out.attnscope.decodePerTokenMs;
  const t = out.torch?.decodePerTokenMs;
  // The ratio RESULTS.md prints: the median over repeats of each repeat's ratio.
  const ratio = pairedRatio(out.attnscope, out.torch, 'decodePerTokenMs');
  console.log(`  attnscope WASM ${a.toFixed(3)} ms/token, PyTorch ${t ? t.toFixed(3) : 'n/a'} ms/token (medians)` +
    (out.agreement ? `; WASM / PyTorch ${ratio.toFixed(3)}; ${out.agreement.identical}/${out.agreement.sentences} identical` : ''));
  return out;
}

async function rnnAll(api) {
  const runs = [];
  for (const file of rnnModels()) runs.push(await rnnBench(api, file));
  return runs;
}

// ------------------------------------------------------------------------------------- main

async function main() {
  const startedAt = new Date();
  const load0 = loadavg();
  const { file: dataFile, sentences } = readSentences();
  mkdirSync(outDir, { recursive: true });
  console.log(`attnscope benchmark: ${N} sentences of ${dataFile}, ${R} repeats, max length ${maxLength}`);

  // Engines in this process.
  const api = await import('../../web/attnscope.js');
  const model = await api.loadModel(modelPath);
  // The same file with int8 decoder-step weights (opt-in, approximate: src/ops/gemm_int8.h).
  const modelInt8 = await api.loadModel(modelPath, { int8: true });
  const config = model.config;
  const { OrtTranslator, ort: ortModule } = await import('./ort_engine.mjs');
  const ort = await OrtTranslator.create(here(args.onnx), config);
  // The same graphs dynamically quantized (q8), as a transformers.js user runs them by default.
  if (!existsSync(join(here(args.onnx), 'quantize.json'))) {
    throw new Error(`${args.onnx} has no q8 graphs: run tests/bench/run.sh (or /usr/bin/python3 tests/bench/quantize_onnx.py)`);
  }
  const ortQ8 = await OrtTranslator.create(here(args.onnx), config, { variant: 'q8' });
  const ortVersion = JSON.parse(readFileSync(here('node_modules/onnxruntime-web/package.json'), 'utf8')).version;
  // The WASM SIMD roofline microbenchmark, in this process too: between sentences it samples the
  // decoder-step GEMV rate, so that the peak shares the engines' noise.
  const rooflineLines = [];
  let rooflineModule = null;
  if (existsSync(here(args.roofline))) {
    const { default: createRoofline } = await import(here(args.roofline));
    rooflineModule = await createRoofline({ print: (line) => rooflineLines.push(line) });
    rooflineModule._setup(config.d_model, config.d_ff, model.info.tgtVocabSize, config.n_decoder_layers);
  } else {
    console.log(`roofline: skipped (${args.roofline} is not built: run tests/bench/run.sh)`);
  }

  // The same source ids for every engine: attnscope's tokenizer (with </s> when the model appends it).
  const sourceIds = (s) => {
    const t = model.tokenize(s);
    return config.src_append_eos ? [...t.ids, config.special_tokens.eos] : t.ids;
  };
  const ids = sentences.map(sourceIds);
  writeFileSync(join(outDir, 'sources.json'), JSON.stringify({ model: args.model, config, sentences, ids }));
  writeFileSync(join(outDir, 'sentences.txt'), sentences.join('\n') + '\n');

  console.log('workers:');
  const native = await startWorker('native', here(args.native),
    ['--model', modelPath, '--input', join(outDir, 'sentences.txt'), '--max-length', String(maxLength)],
    existsSync(here(args.native)) ? null : `${args.native} is not built`);
  const torch = await startWorker('pytorch', args.python,
    [here('tests/bench/bench_torch.py'), '--model', modelPath, '--sources', join(outDir, 'sources.json'),
      '--max-length', String(maxLength)]);

  // Agreement (and warm-up): the same tokens before any timing.
  console.log('agreement pass (untimed)...');
  const first = { off: [], ort: [], int8: [], ortQ8: [] };
  for (let i = 0; i < N; ++i) {
    const run = ours(model, sentences[i], 'off');
    const session = model.translate(sentences[i], { ...OFF, maxLength });
    const sourceIds = session.source.ids;
    session.dispose();
    if (JSON.stringify(sourceIds) !== JSON.stringify(ids[i])) {
      throw new Error(`sentence ${i}: the session's source ids differ from the ids fed to the other engines`);
    }
    first.off.push(run);
    first.ort.push(await ortRun(ort, ids[i]));
    first.int8.push(ours(modelInt8, sentences[i], 'off'));
    first.ortQ8.push(await ortRun(ortQ8, ids[i]));
  }
  const agree = { ortVsOurs: agreement(first.off, first.ort), int8VsOurs: agreement(first.off, first.int8),
    ortQ8VsOurs: agreement(first.off, first.ortQ8) };
  if (native) {
    const runs = (await native.ask('greedy,eigen')).runs;
    agree.nativeVsOurs = agreement(first.off, fromWorker(runs.greedy));
    agree.nativeEigenVsOurs = agreement(first.off, fromWorker(runs.eigen));
  }
  if (torch) agree.torchVsOurs = agreement(first.off, fromWorker(await torch.ask('greedy')));
  for (const [k, a] of Object.entries(agree)) {
    console.log(`  ${k}: ${a.identical}/${a.sentences} identical, token agreement ${(100 * a.tokenAgreement).toFixed(2)}%`);
  }

  // Timed repeats. Within a repeat the in-process engines take turns sentence by sentence (the
  // order rotates), so they share the machine's noise; the workers run between them.
  const passes = { off: [], ort: [], capture: [], captureAll: [], beam4: [], beam8: [], gemv: [], int8: [], ortQ8: [],
    native: [], nativeEigen: [], nativeCapture: [], nativeCaptureAll: [], nativeBeam4: [], nativeBeam8: [], nativeInt8: [],
    torch: [] };
  for (let r = 0; r < R; ++r) {
    console.log(`repeat ${r + 1}/${R}...`);
    const pass = { off: [], ort: [], capture: [], captureAll: [], beam4: [], beam8: [], gemv: [], int8: [], ortQ8: [] };
    for (let i = 0; i < N; ++i) {
      const order = ['off', 'ort', 'capture', 'int8', 'ortQ8', ...(rooflineModule ? ['gemv'] : [])];
      for (let k = 0; k < (i + r) % order.length; ++k) order.push(order.shift());
      for (const v of order) {
        if (v === 'gemv') pass.gemv.push(rooflineModule._decoder_step_gflops(2));
        else if (v === 'ort') pass.ort.push(await ortRun(ort, ids[i]));
        else if (v === 'ortQ8') pass.ortQ8.push(await ortRun(ortQ8, ids[i]));
        else if (v === 'int8') pass.int8.push(ours(modelInt8, sentences[i], 'off'));
        else pass[v].push(ours(model, sentences[i], v));
      }
    }
    for (let i = 0; i < B; ++i) {
      const order = ['beam4', 'beam8', 'captureAll'];
      for (let k = 0; k < (i + r) % 3; ++k) order.push(order.shift());
      for (const v of order) pass[v].push(ours(model, sentences[i], v));
    }
    for (const [k, v] of Object.entries(pass)) passes[k].push(v);
    if (native) {
      // The worker interleaves its modes sentence by sentence too.
      const main = (await native.ask('greedy,eigen,capture,int8')).runs;
      const subset = (await native.ask(`beam4,beam8,capture-all ${B}`)).runs;
      passes.native.push(fromWorker(main.greedy));
      passes.nativeEigen.push(fromWorker(main.eigen));
      passes.nativeCapture.push(fromWorker(main.capture));
      passes.nativeInt8.push(fromWorker(main.int8));
      passes.nativeCaptureAll.push(fromWorker(subset['capture-all']));
      passes.nativeBeam4.push(fromWorker(subset.beam4));
      passes.nativeBeam8.push(fromWorker(subset.beam8));
    }
    if (torch) passes.torch.push(fromWorker(await torch.ask('greedy')));
    const t = totals(pass.off);
    const o = totals(pass.ort);
    const q = totals(pass.int8);
    const o8 = totals(pass.ortQ8);
    console.log(`  attnscope ${t.decodePerTokenMs.toFixed(2)} ms/token (int8 ${q.decodePerTokenMs.toFixed(2)}), ` +
      `ORT-web ${o.decodePerTokenMs.toFixed(2)} ms/token (q8 ${o8.decodePerTokenMs.toFixed(2)})`);
  }
  await native?.quit();
  await torch?.quit();

  // BLEU of the four on the test set (untimed), with the engines' own length limit (max_positions
  // - 1, as attnscope-cli under models/evaluation/evaluate.py decodes), not --max-length. Every engine's ids
  // become text through the same detokenizer (attnscope's, which the CLI prints).
  let bleu = null;
  if (bleuSentences > 0) {
    const testSet = readTestSet(dataDir(), bleuSentences);
    const limit = config.max_positions - 1;
    console.log(`BLEU on the first ${testSet.sources.length} of ${testSet.total} sentences of ${testSet.files.source} (greedy, at most ${limit} tokens)...`);
    const detokenizer = model.translate(testSet.sources[0], { ...OFF, maxLength: 1 });
    const greedyIds = (m) => (text) => {
      const session = m.translate(text, { ...OFF, alternatives: 0 });
      session.run();
      const best = session.nbest()[0];
      if (best.text !== detokenizer.detokenize(best.ids)) throw new Error(`'${text}': the session's text and detokenize(ids) differ`);
      session.dispose();
      return best.ids;
    };
    const scores = await bleuScores({
      attnscope: greedyIds(model),
      ort: async (text) => (await ort.greedy(sourceIds(text), limit)).ids,
      attnscopeInt8: greedyIds(modelInt8),
      ortQ8: async (text) => (await ortQ8.greedy(sourceIds(text), limit)).ids,
    }, testSet, { python: args.python, detokenize: (x) => detokenizer.detokenize(x), onEngine: (name) => console.log(`  ${name}...`) });
    detokenizer.dispose();
    mkdirSync(join(outDir, 'bleu'), { recursive: true });
    bleu = { data: { source: fromRoot(testSet.files.source), reference: fromRoot(testSet.files.reference) }, sentences: testSet.sources.length, of: testSet.total, maxLength: limit, scores: {} };
    for (const [name, { hypotheses, ...score }] of Object.entries(scores)) {
      writeFileSync(join(outDir, 'bleu', `${name}.de`), hypotheses.join('\n') + '\n');
      bleu.scores[name] = score;
      console.log(`  ${name}: ${score.formatted}`);
    }
  }
  await ort.release();
  await ortQ8.release();

  console.log('RNN encoder-decoders vs PyTorch...');
  const rnn = await rnnAll(api);

  // Cold starts and memory, each in a fresh Node process (alternating engines).
  console.log('cold starts and memory (child processes)...');
  const cold = { attnscope: [], ort: [] };
  for (let r = 0; r < R; ++r) {
    for (const engine of r % 2 ? ['ort', 'attnscope'] : ['attnscope', 'ort']) cold[engine].push(runChild(engine));
  }

  // Every roofline figure (best of 5 trials of >= 100 ms each).
  let roofline = null;
  if (rooflineModule) {
    console.log('WASM SIMD roofline microbenchmark...');
    rooflineModule.callMain([config.d_model, config.d_ff, model.info.tgtVocabSize, config.n_decoder_layers].map(String));
    roofline = JSON.parse(rooflineLines.join('\n'));
    // The decoder-step GEMV rate sampled between sentences: per repeat, the median and the best sample.
    roofline.interleaved = {
      samplesPerRepeat: N,
      median: passes.gemv.map((samples) => median(samples)),
      max: passes.gemv.map((samples) => Math.max(...samples)),
    };
  }

  // FLOPs of what the engines computed (analytic, from the config and each sentence's lengths).
  const dims = { d: config.d_model, dff: config.d_ff, heads: config.n_heads, encLayers: config.n_encoder_layers,
    decLayers: config.n_decoder_layers, vocab: model.info.tgtVocabSize };
  const flops = { decoder: 0, decoderGemv: 0, tokens: 0, encoder: 0 };
  for (let i = 0; i < N; ++i) {
    const f = decoderFlops(dims, ids[i].length, first.off[i].steps);
    flops.decoder += f.total;
    flops.decoderGemv += f.gemv;
    flops.tokens += first.off[i].steps;
    flops.encoder += encoderFlops(dims, ids[i].length);
  }

  const wasmFile = here('web/wasm/attnscope-wasm.wasm');
  const wasmBytes = readFileSync(wasmFile);
  const sum = (name, n = N) => (passes[name].length ? summarize(passes[name], n) : null);
  const results = {
    meta: {
      date: startedAt.toISOString(), finished: new Date().toISOString(), machine: machine(),
      loadAverage: { start: load0, end: loadavg() },
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
      git: gitRevision(), onnxruntimeWeb: ortVersion, ortBackend: 'wasm', ortThreads: ortModule.env.wasm.numThreads,
      torch: torch?.ready?.torch ?? null, torchThreads: torch?.ready?.threads ?? null,
      model: args.model, modelBytes: statSync(modelPath).size, data: fromRoot(dataFile), sentences: N, repeats: R, beamSentences: B, memorySentences: M, maxLength,
      onnx: JSON.parse(readFileSync(join(here(args.onnx), 'export.json'), 'utf8')),
      onnxQ8: JSON.parse(readFileSync(join(here(args.onnx), 'quantize.json'), 'utf8')),
      onnxQ8Check: existsSync(join(here(args.onnx), 'q8_check.json')) ? JSON.parse(readFileSync(join(here(args.onnx), 'q8_check.json'), 'utf8')) : null,
      onnxCheck: existsSync(join(here(args.onnx), 'check.json')) ? JSON.parse(readFileSync(join(here(args.onnx), 'check.json'), 'utf8')) : null,
      wasm: { bytes: wasmBytes.length, gzipBytes: gzipSync(wasmBytes, { level: 9 }).length },
    },
    config: dims,
    agreement: agree,
    greedy: { attnscope: sum('off'), ort: sum('ort'), attnscopeInt8: sum('int8'), ortQ8: sum('ortQ8') },
    ratios: namedRatios({ attnscope: sum('off'), ort: sum('ort'), attnscopeInt8: sum('int8'), ortQ8: sum('ortQ8') }),
    bleu,
    capture: {
      off: sum('off'), on: sum('capture'), offSubset: sum('off', B), all: sum('captureAll', B),
      native: native ? { off: sum('native'), on: sum('nativeCapture'), offSubset: sum('native', B), all: sum('nativeCaptureAll', B) } : null,
    },
    beam: {
      greedy: sum('off', B), beam4: sum('beam4', B), beam8: sum('beam8', B),
      native: native ? { greedy: sum('native', B), beam4: sum('nativeBeam4', B), beam8: sum('nativeBeam8', B) } : null,
    },
    native: native ? sum('native') : null,
    nativeEigen: native ? sum('nativeEigen') : null,
    nativeInt8: native ? sum('nativeInt8') : null,
    nativeHasKernel: native?.ready?.kernel ?? null,
    torch: torch ? sum('torch') : null,
    cold: {
      attnscope: summarizeCold(cold.attnscope), ort: summarizeCold(cold.ort),
    },
    flops,
    roofline,
    rnn,
    page: pageResults(),
    realSize: args['real-size'] ? await runRealSize() : null,
    realSizeGpt2: args.gpt2 ? await runGpt2() : null,
  };
  writeFileSync(join(outDir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  console.log(`wrote ${join(outDir, 'results.json')}`);
  publish(results);
}

/**
 * The page's figures (tests/bench/page_latency.mjs, which run.sh runs just before this script):
 * build/bench/page.json if it was written in the last hour, else none (a stale file would pass
 * an older tree's figures off as this one's).
 */
function pageResults() {
  const file = join(outDir, 'page.json');
  if (!existsSync(file) || Date.now() - statSync(file).mtimeMs > 3600e3) return null;
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** A real-size section, `run()`'s figures, with when, where and how it ran. */
async function withMeta(run) {
  const startedAt = new Date();
  const load0 = loadavg();
  const section = await run();
  section.meta = { date: startedAt.toISOString(), finished: new Date().toISOString(), machine: machine(),
    loadAverage: { start: load0, end: loadavg() }, command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(), git: gitRevision(),
    onnxruntimeWeb: JSON.parse(readFileSync(here('node_modules/onnxruntime-web/package.json'), 'utf8')).version };
  return section;
}

const runRealSize = () => withMeta(() => realSizeBench({ model: args['real-size-model'], onnx: args['real-size-onnx'],
  sentences: count('real-size-sentences'), repeats: R, maxLength: count('real-size-max-length'), memorySentences: 3, outDir,
  roofline: here(args.roofline) }));

const runGpt2 = () => withMeta(() => gpt2Bench({ model: args['gpt2-model'], onnx: args['gpt2-onnx'], newTokens: count('gpt2-new-tokens'),
  generations: count('gpt2-generations'), repeats: R, outDir, roofline: here(args.roofline) }));

/** The results' real-size sections, in RESULTS.md's form and in docs/benchmarks.md's block's. */
const realSizeMarkdown = (results) => [results.realSize && renderRealSize(results.realSize).join('\n'),
  results.realSizeGpt2 && renderGpt2(results.realSizeGpt2).join('\n')].filter(Boolean).map((x) => '\n' + x).join('');
const realSizeBlock = (results) => [results.realSize && renderRealSizeBlock(results.realSize),
  results.realSizeGpt2?.contexts && renderGpt2Block(results.realSizeGpt2)].filter(Boolean).map((x) => '\n' + x).join('');

function publish(results) {
  mkdirSync(outDir, { recursive: true });
  const markdown = renderMarkdown(results) + realSizeMarkdown(results);
  writeFileSync(join(outDir, 'RESULTS.md'), markdown);
  console.log('\n' + markdown);
  console.log(`wrote ${join(outDir, 'RESULTS.md')}`);
  if (!args['no-publish']) {
    writeFileSync(here('tests/bench/RESULTS.md'), markdown);
    writeFileSync(here('tests/bench/results.json'), JSON.stringify(results, null, 2) + '\n');
    console.log('wrote tests/bench/RESULTS.md and tests/bench/results.json');
  }
  if (args.docs || args.readme) {
    const page = here('docs/benchmarks.md');
    const text = readFileSync(page, 'utf8');
    const begin = '<!-- bench:begin -->';
    const end = '<!-- bench:end -->';
    const a = text.indexOf(begin);
    const b = text.indexOf(end);
    if (a < 0 || b < a) throw new Error(`docs/benchmarks.md has no ${begin} ... ${end} block`);
    const block = renderReadmeBlock(results) + realSizeBlock(results);
    writeFileSync(page, text.slice(0, a + begin.length) + '\n' + block + text.slice(b));
    console.log('updated the benchmark block of docs/benchmarks.md');
  }
}

/**
 * The like-for-like ratios, named: attnscope exact / ORT fp32 and attnscope int8 /
 * ORT q8 (times: < 1 is attnscope faster; sentences per second: > 1 is attnscope faster), each
 * the median over repeats of the per-repeat ratio, as the tables print them.
 */
function namedRatios(g) {
  const pairs = { exactVsOrtFp32: [g.attnscope, g.ort], int8VsOrtQ8: [g.attnscopeInt8, g.ortQ8], ortQ8VsOrtFp32: [g.ortQ8, g.ort] };
  const out = {};
  for (const [name, [a, b]] of Object.entries(pairs)) {
    out[name] = {};
    for (const key of ['decodePerTokenMs', 'firstTokenPerSentenceMs', 'encodePerSentenceMs', 'sentencesPerSecond']) out[name][key] = pairedRatio(a, b, key);
  }
  return out;
}

function summarizeCold(runs) {
  const out = { runs };
  for (const key of ['loadMs', 'firstMs', 'loadAndFirstMs', 'wasmMemoryBytes', 'peakRssDeltaBytes', 'maxRssBytes', 'rssBeforeBytes']) {
    out[key] = median(runs.map((r) => r[key]));
  }
  return out;
}

if (args.cold) {
  if (args.cold !== 'attnscope' && args.cold !== 'ort') throw new Error(`--cold attnscope|ort, got '${args.cold}'`);
  console.log(JSON.stringify(await coldStart(args.cold)));
} else if (args['rnn-only']) {
  // Only the RNN comparison: printed and written to build/bench/rnn-results.json (the published
  // RESULTS.md is left as it is: it needs the whole run).
  mkdirSync(outDir, { recursive: true });
  console.log(`attnscope RNN benchmark: up to ${N} sentences, ${R} repeats, max length ${maxLength}`);
  const rnn = await rnnAll(await import('../../web/attnscope.js'));
  const { renderRnn } = await import('./render.mjs');
  writeFileSync(join(outDir, 'rnn-results.json'), JSON.stringify({ meta: { machine: machine(), git: gitRevision() }, rnn }, null, 2) + '\n');
  console.log('\n' + renderRnn(rnn).join('\n'));
  console.log(`wrote ${join(outDir, 'rnn-results.json')}`);
} else if (args['real-size-only'] || args['gpt2-only']) {
  // Only the real-size sections asked for, put into the last full run's results (when there is one) and published with them.
  mkdirSync(outDir, { recursive: true });
  const sections = {};
  if (args['real-size-only']) sections.realSize = await runRealSize();
  if (args['gpt2-only'] || args.gpt2) sections.realSizeGpt2 = await runGpt2();
  for (const [key, file] of [['realSize', 'real-size.json'], ['realSizeGpt2', 'gpt2-size.json']]) {
    if (!sections[key]) continue;
    writeFileSync(join(outDir, file), JSON.stringify(sections[key], null, 2) + '\n');
    console.log(`wrote ${join(outDir, file)}`);
  }
  const last = here('tests/bench/results.json');
  if (existsSync(last)) publish({ ...JSON.parse(readFileSync(last, 'utf8')), ...sections });
  else console.log(realSizeMarkdown(sections));
} else if (args.from) {
  publish(JSON.parse(readFileSync(here(args.from), 'utf8')));
} else {
  await main();
}
