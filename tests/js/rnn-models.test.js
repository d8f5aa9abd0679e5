// The shipped toy RNN encoder-decoders (models/toy-rnn-*.safetensors, trained by
// `models/train/train.py toy --family rnn`, model cards in models/README.md) through the WASM engine.
// They are read from models/ on purpose: this is the test that fails if a shipped file breaks.
import { existsSync } from 'node:fs';
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

// The issue's "done when": the toy RNN with attention translates "i can eat apple" -> "ich
// konnen apfel essen", and its one attention map puts each content word on its source word.
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
