// How fast an encoder-only model of a given size runs (docs/benchmarks.md, "BERT models in WebAssembly").
// For each model file: load time, then fill-mask of one [MASK] in texts of about 8, 32
// and 128 pieces (every attention map captured, as the page asks), median of the repeats, in WASM
// (the JS API in Node, one thread: what a browser tab's worker runs), and the process's peak
// resident memory after it. Prints a table and writes build/bench/bert.json; nothing is asserted
// (speed is never a test).
//   /usr/bin/python3 tests/bench/bert/make_random_bert.py base build/bench/bert-base.safetensors
//   node tests/bench/bert/bert_speed.mjs [--repeats 5] MODEL...  (one model per process: the memory is a peak)
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadModel } from '../../../web/attnscope.js';

const root = resolve(import.meta.dirname, '../../..');
const { values: args, positionals: files } = parseArgs({
  allowPositionals: true,
  options: { repeats: { type: 'string', default: '5' } },
});
const repeats = Number(args.repeats);
const WORDS = 'a man is riding a horse on the street . two dogs play in the snow . a woman with a red hat sits on a bench .'.split(' ');
/** A text of `n` words (cycling through WORDS) with its middle word a [MASK]. */
const textOf = (n) => Array.from({ length: n }, (_, i) => (i === Math.floor(n / 2) ? '[MASK]' : WORDS[i % WORDS.length])).join(' ');
const LENGTHS = [8, 32, 126]; // + [CLS] and [SEP]: 10, 34, 128 pieces (at most the model's positions)
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

const results = [];
for (const file of files) {
  const rssBefore = process.memoryUsage().rss;
  let t0 = process.hrtime.bigint();
  const model = await loadModel(readFileSync(file));
  const loadMs = ms(t0);
  const c = model.config;
  const row = { file, mb: statSync(file).size / 1e6, shape: `${c.n_layers} x ${c.n_heads} x ${c.d_model}`, vocab: model.info.srcVocabSize, loadMs, lengths: [] };
  for (const n of new Set(LENGTHS.map((n) => Math.min(n, c.max_positions - 2)))) {
    const text = textOf(n);
    const pieces = model.fillMask(text).tokens.length; // also the warm-up
    const times = [];
    for (let r = 0; r < repeats; r++) {
      t0 = process.hrtime.bigint();
      model.fillMask(text);
      times.push(ms(t0));
    }
    row.lengths.push({ pieces, wasmMs: median(times) });
  }
  row.rssMiB = (process.resourceUsage().maxRSS * 1024 - rssBefore) / 2 ** 20;
  model.dispose();
  results.push(row);
}

console.log(`fill-mask with every attention map captured, WASM (Node ${process.version}, one thread), median of ${repeats}; ${cpus()[0].model}, ${cpus().length} cores`);
console.log('| model | MB (file) | layers x heads x d | load, ms | peak RSS growth, MiB | pieces | fill-mask, ms |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  for (const [i, l] of r.lengths.entries()) {
    const first = i === 0;
    console.log(`| ${first ? r.file : ''} | ${first ? r.mb.toFixed(1) : ''} | ${first ? r.shape : ''} | ${first ? r.loadMs.toFixed(0) : ''} | ${first ? r.rssMiB.toFixed(0) : ''} | ${l.pieces} | ${l.wasmMs.toFixed(1)} |`);
  }
}
mkdirSync(join(root, 'build/bench'), { recursive: true });
writeFileSync(join(root, 'build/bench/bert.json'), `${JSON.stringify({ date: new Date().toISOString(), cpu: cpus()[0].model, results }, null, 2)}\n`);
