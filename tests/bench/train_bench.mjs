// The training benchmark (run by `npm run bench`, tests/bench/run.sh, after the
// inference benchmark): time per epoch of the toy grammar (tests/data/toy/eng_de.csv, 36 pairs;
// 1+1 layers, 1 head, d_model 64, batches of ~24 target tokens, Adam lr 1e-3) in
//   WASM     the JS API (createTrainer / Trainer.runEpoch: the page's Training panel), in Node
//   native   `attnscope-cli train` (the same C++ code, g++ -O3 -march=native)
//   PyTorch  models/reference/attnscope_ref with models/train/train.py's toy recipe (tests/bench/train_torch.py), CPU, 1 thread
// Each times the training pass only (not the exact-match decoding the engine adds after each
// epoch). Prints the table with the ratios and writes build/bench/train.json. Nothing is asserted
// (speed is never a test); the same seeds reach 36/36 in tests/js/train.test.js.
//
//   node tests/bench/train_bench.mjs [--epochs 30] [--seed 1] [--cli build/bench-native/attnscope-cli]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createTrainer, init } from '../../web/attnscope.js';

const root = resolve(import.meta.dirname, '../..');
const { values: args } = parseArgs({
  options: {
    epochs: { type: 'string', default: '30' },
    seed: { type: 'string', default: '1' },
    pairs: { type: 'string', default: 'tests/data/toy/eng_de.csv' },
    cli: { type: 'string', default: 'build/bench-native/attnscope-cli' },
    python: { type: 'string', default: process.env.ATTNSCOPE_TORCH_PYTHON ?? '/usr/bin/python3' },
    out: { type: 'string', default: 'build/bench' },
  },
});
const epochs = Number(args.epochs);
const seed = Number(args.seed);
if (!Number.isInteger(epochs) || epochs < 2) throw new Error(`--epochs needs an integer >= 2, got '${args.epochs}'`);
if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed needs a non-negative integer, got '${args.seed}'`);
const pairsPath = resolve(root, args.pairs);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// Epoch 1 pays for first-touch allocations (and V8's tier-up in WASM): the figure is the median of
// the others; the mean of all is printed beside it.
function summary(name, secondsPerEpoch, extra = {}) {
  const ms = secondsPerEpoch.map((s) => s * 1e3);
  return { name, epochs: ms.length, medianMs: median(ms.slice(1)), meanMs: ms.reduce((a, b) => a + b, 0) / ms.length, firstMs: ms[0], ...extra };
}

async function wasm() {
  await init();
  const trainer = await createTrainer(readFileSync(pairsPath, 'utf8'), { seed });
  try {
    const seconds = [];
    let last;
    for (let e = 0; e < epochs; e++) {
      last = trainer.runEpoch();
      seconds.push(last.seconds);
    }
    return summary('WASM (JS API, Node)', seconds, { exact: `${last.exact}/${last.total}` });
  } finally {
    trainer.dispose();
  }
}

function native() {
  const cli = resolve(root, args.cli);
  const out = join(mkdtempSync(join(tmpdir(), 'attnscope-train-bench-')), 'toy.safetensors');
  const r = spawnSync(cli, ['train', '--pairs', pairsPath, '--epochs', String(epochs), '--seed', String(seed), '--out', out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cli} train failed: ${r.error?.message ?? r.stderr}`);
  const log = [...r.stderr.matchAll(/^epoch (\d+) loss [\d.]+ exact (\d+)\/(\d+) \(([\d.]+) s\)$/gm)];
  if (log.length !== epochs) throw new Error(`${cli} train printed ${log.length} epochs, not ${epochs}:\n${r.stderr}`);
  const last = log.at(-1);
  // The CLI prints each epoch's time in milliseconds (3 decimals of a second): enough at ~10 ms.
  return summary(`native (${args.cli})`, log.map((m) => Number(m[4])), { exact: `${last[2]}/${last[3]}` });
}

function torch() {
  const r = spawnSync(args.python, [join(root, 'tests/bench/train_torch.py'), '--pairs', pairsPath, '--epochs', String(epochs), '--seed', String(seed)],
    { encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1' } });
  if (r.status !== 0) return { name: 'PyTorch CPU, 1 thread', skipped: `${args.python} train_torch.py failed: ${r.error?.message ?? r.stderr.trim().split('\n').at(-1)}` };
  const o = JSON.parse(r.stdout);
  return summary(`PyTorch ${o.torch} CPU, ${o.threads} thread`, o.epochs.map((e) => e.seconds));
}

const results = { date: new Date().toISOString(), cpu: cpus()[0]?.model, epochs, seed, pairs: args.pairs, runs: [await wasm(), native(), torch()] };
const [w, n, t] = results.runs;
const ratio = (a, b) => (a.skipped || b.skipped ? null : a.medianMs / b.medianMs);
results.ratios = { wasmOverNative: ratio(w, n), torchOverNative: ratio(t, n), wasmOverTorch: ratio(w, t) };

console.log(`\nTraining: the toy grammar (${args.pairs}), ${epochs} epochs, seed ${seed}; time per epoch of the training pass (median of epochs 2..${epochs})`);
for (const r of results.runs) {
  console.log(r.skipped ? `  ${r.name.padEnd(44)} skipped: ${r.skipped}`
    : `  ${r.name.padEnd(44)} ${r.medianMs.toFixed(2).padStart(8)} ms  (mean ${r.meanMs.toFixed(2)}, epoch 1 ${r.firstMs.toFixed(2)})${r.exact ? `  exact ${r.exact}` : ''}`);
}
const fmt = (x) => (x === null ? 'n/a' : `${x.toFixed(2)}×`);
console.log(`  ratios: WASM / native ${fmt(results.ratios.wasmOverNative)}, PyTorch / native ${fmt(results.ratios.torchOverNative)}, `
  + `WASM / PyTorch ${fmt(results.ratios.wasmOverTorch)}`);
const outDir = resolve(root, args.out);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'train.json'), `${JSON.stringify(results, null, 2)}\n`);
console.log(`  wrote ${join(args.out, 'train.json')}`);
