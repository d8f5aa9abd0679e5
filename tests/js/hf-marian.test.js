// A converted Hugging Face Marian model (tests/golden/hf/, models/convert/convert_hf.py) through the
// public JS API on the WASM build: info() reports the checkpoint's generation defaults and the
// target tokenizer, and those defaults apply to every option a caller leaves out, so that a
// translation with only the goldens' length limit given is generate()'s beam search as the goldens
// record it (models/reference/hf_marian.py), and the native CLI prints the same.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadModel } from '../../web/attnscope.js';
import { cliTranslate, path } from './helpers.js';

const MODEL = path('tests/golden/hf/opus-mt-mul-en-tiny.safetensors');
const golden = JSON.parse(readFileSync(path('tests/golden/hf/opus-mt-mul-en-tiny.json'), 'utf8'));

let model;
beforeAll(async () => { model = await loadModel(MODEL); });
afterAll(() => model?.dispose());

describe('Hugging Face Marian in WASM', () => {
  it('reports the generation defaults and both tokenizers', () => {
    const g = model.info.generation;
    expect(g).toMatchObject({ strategy: 'beam', beam_size: golden.generation.num_beams, max_length: 511,
      length_penalty: 'power', alpha: golden.generation.length_penalty, early_stopping: 'heuristic',
      forced_eos: true, renormalize: true });
    expect(model.info.tokenizer.type).toBe('sentencepiece');
    expect(model.info.tgtTokenizer.type).toBe('sentencepiece');
    expect(model.config.positions).toBe('sinusoidal_halves');
    expect(model.config.suppress_tokens).toEqual([golden.generation.pad_token_id]);
  });

  it('decodes with those defaults unless told otherwise: generate()\'s beam search, as the CLI does', () => {
    const max = golden.generation.max_new_tokens;
    const k = golden.generation.num_beams;
    const sources = golden.cases.map((c) => c.source);
    const native = cliTranslate(MODEL, sources, ['--max-length', String(max)]);
    golden.cases.forEach((c, i) => {
      const s = model.translate(c.source, { maxLength: max, nbest: k });
      try {
        s.run();
        const nbest = s.nbest();
        expect(nbest.map((h) => h.ids)).toEqual(c.beam.sequences.map((q) => q.ids));
        nbest.forEach((h, k) => expect(Math.abs(h.normalizedScore - c.beam.sequences[k].score)).toBeLessThan(1e-4));
        expect(s.translation).toBe(c.beam.text);
        expect(native[i]).toBe(c.beam.text);
      } finally {
        s.dispose();
      }
    });
  });

  it('an option the caller gives wins over the defaults', () => {
    const c = golden.cases[0];
    const s = model.translate(c.source, { strategy: 'greedy', maxLength: golden.generation.max_new_tokens });
    try {
      s.run();
      expect(s.nbest()[0].ids).toEqual(c.greedy.ids);
      expect(s.translation).toBe(c.greedy.text);
    } finally {
      s.dispose();
    }
  });
});
