// binary16 against binary32 weights, like for like (prints numbers; not a test): one model file
// stored as F16, loaded twice in this process (loadModel's default, the file's binary16, and
// `binary16: false`, every weight expanded to binary32), the two taking turns sentence by sentence
// over the same sources, greedy for exactly --max-length tokens with every attention map captured.
// Reports the median ms per generated token of each load and their ratio, and checks that both
// loads chose the same tokens (binary16 products are binary32's bit for bit).
//
//   node tests/bench/binary16_ab.mjs --model FILE [--sources FILE] [--sentences N] [--max-length N] [--rounds N]
//
// A decoder-only file is continued from each line as a prompt; another is translated.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadModel } from '../../web/attnscope.js';
import { median, timedTranslation } from './measure.mjs';
import { CAPTURE, decoding } from './real_size.mjs';

const { values: args } = parseArgs({
  options: {
    model: { type: 'string' },
    sources: { type: 'string', default: 'tests/data/multi30k/val.first40.en' },
    sentences: { type: 'string', default: '8' },
    'max-length': { type: 'string', default: '32' },
    rounds: { type: 'string', default: '3' },
  },
});
if (!args.model) throw new Error('binary16_ab.mjs needs --model FILE (an F16 attnscope file)');
const sentences = readFileSync(args.sources, 'utf8').trim().split('\n').slice(0, Number(args.sentences));
const options = decoding(Number(args['max-length']), CAPTURE);
const bytes = new Uint8Array(readFileSync(args.model));
const loads = { binary16: await loadModel(bytes), binary32: await loadModel(bytes, { binary16: false }) };
const perToken = { binary16: [], binary32: [] };
for (let round = 0; round < Number(args.rounds); ++round)
  for (const text of sentences) {
    const ids = {};
    for (const [name, model] of Object.entries(loads)) {
      // timedTranslation steps a prompt just as it steps a source (model.translate on a decoder-only
      // model continues the prompt: web/api/model.js)
      const r = timedTranslation(model, text, options);
      perToken[name].push(r.laterStepsMs / Math.max(1, r.steps - 1));
      ids[name] = r.ids.join(' ');
    }
    if (ids.binary16 !== ids.binary32) throw new Error(`the two loads chose different tokens for '${text}'`);
  }
const b16 = median(perToken.binary16), b32 = median(perToken.binary32);
console.log(JSON.stringify({ model: args.model, sentences: sentences.length, rounds: Number(args.rounds),
  maxLength: Number(args['max-length']), binary16MsPerToken: +b16.toFixed(3), binary32MsPerToken: +b32.toFixed(3),
  binary16OverBinary32: +(b16 / b32).toFixed(3) }));
for (const model of Object.values(loads)) model.dispose();
