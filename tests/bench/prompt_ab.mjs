// Reading a prompt at once with binary16 weights against binary32 weights of the same file, in
// one process, taking turns (prints numbers; not a test): the first step of a decoder-only
// model's generation, every attention map and the logits captured, so the prompt's products
// (many rows at a time) dominate. A sentence repeated to about 120 tokens by default.
//
//   node tests/bench/prompt_ab.mjs --model FILE [--repeat 12] [--rounds 5]
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { model: { type: 'string' }, repeat: { type: 'string', default: '12' }, rounds: { type: 'string', default: '5' } },
});
if (!args.model) throw new Error('prompt_ab.mjs needs --model FILE');
const { loadModel } = await import('../../web/attnscope.js');
const prompt = Array(Number(args.repeat)).fill('the quick brown fox jumps over a lazy dog and').join(' ');
const models = { binary16: await loadModel(args.model), binary32: await loadModel(args.model, { binary16: false }) };
const ms = { binary16: [], binary32: [] };
let tokens = 0;
for (let round = 0; round < Number(args.rounds); round++) {
  for (const [name, model] of Object.entries(models)) {
    const t0 = performance.now();
    const session = model.generate(prompt, { maxLength: 1024, capture: { attention: true, logits: true } });
    session.step();
    ms[name].push(performance.now() - t0);
    tokens = session.source.ids.length;
    session.dispose();
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(JSON.stringify({
  model: args.model, promptTokens: tokens, rounds: Number(args.rounds),
  firstStepMs: { binary16: Math.round(median(ms.binary16)), binary32: Math.round(median(ms.binary32)) },
}, null, 2));
for (const m of Object.values(models)) m.dispose();
