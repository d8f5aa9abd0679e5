// The shipped toy RNN encoder-decoders (models/toy-rnn-*.safetensors, trained by
// `models/train/train.py toy --family rnn`, model cards in models/README.md) through the WASM engine.
// They are read from models/ on purpose: this is the test that fails if a shipped file breaks.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { models } from '../../web/models.js';
import { cliTranslate, path, toyPairs, translate } from './helpers.js';


// [file, attention style, score]; the no-attention twin has no attention site.
const SHIPPED = [
  ['toy-rnn-bahdanau-additive', 'bahdanau', 'additive'],
  ['toy-rnn-luong-dot', 'luong', 'dot'],
  ['toy-rnn-none', 'none', 'none'],
];

describe.each(SHIPPED)('%s', (name, attention, score) => {
  const file = path(`models/${name}.safetensors`);

  it('is an RNN of the style its name says, listed in web/models.js', async () => {
    const m = await loadModel(file);
    expect(m.config).toMatchObject({ architecture: 'rnn', attention, score });
    expect(m.info.sites.map((s) => s.name)).toEqual(attention === 'none' ? [] : ['cross']);
    m.dispose();
    const entry = models.find((e) => e.id === name);
    expect(entry).toMatchObject({ group: 'RNN encoder-decoder', example: 'i can eat apple' });
    expect(existsSync(path(entry.file.replace('../', '')))).toBe(true);
  });

  it('translates all 36 sentences of the grammar, as the native engine does', async () => {
    const m = await loadModel(file);
    const sources = toyPairs.map(([en]) => en);
    const wasm = sources.map((s) => translate(m, s));
    expect(wasm).toEqual(toyPairs.map(([, de]) => de));
    expect(wasm).toEqual(cliTranslate(file, sources));
    m.dispose();
  });
});

// The cards' claim: the toy RNN with attention translates "i can eat apple" -> "ich konnen apfel
// essen", and its one attention map puts each content word on its source word.
describe.each(SHIPPED.filter(([, attention]) => attention !== 'none'))('%s attends', (name) => {
  it('"i can eat apple" -> "ich konnen apfel essen", each content word on its source word', async () => {
    const m = await loadModel(path(`models/${name}.safetensors`));
    const s = m.translate('i can eat apple');
    const records = [];
    while (!s.done) records.push(s.step());
    expect(s.translation).toBe('ich konnen apfel essen');
    const source = s.source.pieces;
    const strongest = records.map((r) => {
      const a = r.expansions[0].attention.cross;
      expect(a.shape).toEqual([1, 1, source.length]);
      const row = Array.from(a.data);
      return source[row.indexOf(Math.max(...row))];
    });
    // konnen, apfel, essen: steps 1-3 (the first step's map depends on the style's query).
    expect(strongest.slice(1, 4)).toEqual(['can', 'apple', 'eat']);
    s.dispose();
    m.dispose();
  });
});

// The Multi30k pair (models/README.md): Bahdanau attention and its no-attention twin, the same
// sizes and BPE. Both translate the first 40 val sentences as the native engine does, and the
// attentive one's attention on a sentence it translates well puts each content word on its source.
const MULTI30K = [['multi30k-rnn-en-de', 'bahdanau', 'additive'], ['multi30k-rnn-none-en-de', 'none', 'none']];
const VAL40 = readFileSync(path('tests/data/multi30k/val.first40.en'), 'utf8').split('\n').filter(Boolean);

describe.each(MULTI30K)('%s', (name, attention, score) => {
  const file = path(`models/${name}.safetensors`);

  it('is the RNN its card says, listed in web/models.js, and translates as the native engine does', async () => {
    const m = await loadModel(file);
    expect(m.config).toMatchObject({ architecture: 'rnn', attention, score, d_embed: 256, d_encoder: 128, d_hidden: 256, bidirectional: true });
    expect(m.info.name).toBe(name);
    expect(models.find((e) => e.id === name)).toMatchObject({ group: 'RNN encoder-decoder' });
    expect(VAL40).toHaveLength(40);
    const wasm = VAL40.map((s) => translate(m, s));
    expect(wasm).toEqual(cliTranslate(file, VAL40));
    expect(wasm.every((t) => t.length > 0)).toBe(true);
    m.dispose();
  });
});

it('multi30k-rnn-en-de looks at the source word it translates', async () => {
  const m = await loadModel(path('models/multi30k-rnn-en-de.safetensors'));
  const s = m.translate('A man is riding a bike.');
  const strongest = [];
  while (!s.done) {
    const r = s.step();
    const row = Array.from(r.expansions[0].attention.cross.data);
    strongest.push([r.expansions[0].top[0].token, s.source.pieces[row.indexOf(Math.max(...row))]]); // greedy: the top token
  }
  console.log(`[rnn-models] multi30k-rnn-en-de: "${s.translation}"; strongest source piece per step: ${strongest.map(([t, p]) => `${t}->${p}`).join(' ')}`);
  expect(s.translation).toBe('Ein Mann fährt Fahrrad.');
  const on = Object.fromEntries(strongest);
  expect(on['▁Mann']).toBe('▁man');
  expect(on['▁Fahrrad.'] ?? on['▁Fahrrad']).toMatch(/^▁bike/);
  s.dispose();
  m.dispose();
});
