// What attribution adds to a loaded model's memory (prints numbers; not a test): one model file in
// one fresh process, greedy translations (or continuations) of --sentences sources with every
// attention map captured, then gradient × input attribution of every step of each, the peak
// WebAssembly linear memory read after each phase. The gradient pass runs on the loaded weights,
// so the second peak should exceed the first only by the activations a pass records.
//
//   node tests/bench/attribution_memory.mjs --model FILE [--sources FILE] [--sentences N] [--max-length N]
import { readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { watchWasmMemories } from './measure.mjs';
import { CAPTURE, decoding } from './real_size.mjs';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    sources: { type: 'string', default: 'tests/data/multi30k/val.first40.en' },
    sentences: { type: 'string', default: '3' },
    'max-length': { type: 'string', default: '32' },
  },
});
if (!args.model) throw new Error('attribution_memory.mjs needs --model FILE');
const wasmBytes = watchWasmMemories();
const { loadModel } = await import('../../web/attnscope.js');
const sentences = readFileSync(args.sources, 'utf8').trim().split('\n').slice(0, Number(args.sentences));
const options = decoding(Number(args['max-length']), CAPTURE);
const MiB = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;

const model = await loadModel(args.model); // streamed from the file, as a page's download is
const afterLoad = wasmBytes();
const sessions = sentences.map((text) => {
  const session = model.translate(text, options);
  while (!session.done) session.step();
  return session;
});
const afterTranslations = wasmBytes();
let steps = 0;
for (const session of sessions) steps += session.sentenceAttribution({ method: 'gradient-input' }).steps.length;
const afterAttribution = wasmBytes();
for (const session of sessions) session.dispose();
model.dispose();

console.log(JSON.stringify({
  model: args.model, fileMiB: MiB(statSync(args.model).size), sentences: sentences.length, attributedSteps: steps,
  peakWasmMiB: { afterLoad: MiB(afterLoad), afterTranslations: MiB(afterTranslations), afterAttribution: MiB(afterAttribution) },
  attributionAddsMiB: MiB(afterAttribution - afterTranslations),
}, null, 2));
