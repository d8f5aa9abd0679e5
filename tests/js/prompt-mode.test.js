// Prompt mode in the JS API: a decoder-only model (tests/golden/decoder_only/, random weights whose
// expected values come from the PyTorch reference models/reference/attnscope_ref/gpt.py) through
// the WASM engine: what info() says by capability, the first step's full causal map of the prompt,
// the prompt's rollout, <bos> read as the file says or as prependBos overrides it (the native
// CLI's --prepend-bos / --no-prepend-bos), the empty prompt (<bos> alone), and the engine's error
// for a prompt too long, reaching JS as the native CLI words it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { cli, FROZEN_TOY, path } from './helpers.js';

const GOLDEN = 'tests/golden/decoder_only/pre_learned_gelu_tanh';
const golden = JSON.parse(readFileSync(path(`${GOLDEN}.json`), 'utf8'));
const MODEL = path(`${GOLDEN}.safetensors`);
const close = (values) => values.map((x) => expect.closeTo(x, 4)); // a NaN is close to nothing

/** The native CLI's error for `prompt` (its message, without the "(sentence: …)" it appends). */
function cliError(prompt) {
  let message = null;
  try {
    cli(['generate', '--model', MODEL, prompt]);
  } catch (e) {
    message = String(e.stderr).match(/error: (.*?) \(sentence: /)?.[1];
  }
  expect(message, 'the CLI refuses it too').toBeTruthy();
  return message;
}

/** Rollout (Abnar & Zuidema 2020) written out here: R = Â_L ··· Â_1, Â = rows of (mean of heads + I) / 2, renormalised. */
function rollout(attention) {
  const T = attention[0][0].length;
  let r = Array.from({ length: T }, (_, i) => Array.from({ length: T }, (_, j) => Number(i === j)));
  for (const layer of attention) {
    const a = Array.from({ length: T }, (_, i) => {
      const row = Array.from({ length: T }, (_, j) => 0.5 * layer.reduce((s, head) => s + head[i][j], 0) / layer.length + 0.5 * (i === j));
      const sum = row.reduce((s, x) => s + x, 0);
      return row.map((x) => x / sum);
    });
    r = a.map((row) => r[0].map((_, j) => row.reduce((s, x, k) => s + x * r[k][j], 0)));
  }
  return r.flat();
}

describe('a decoder-only model in the JS API', () => {
  let model;
  beforeAll(async () => { model = await loadModel(MODEL); });
  afterAll(() => model?.dispose());

  it('says by capability that it continues a prompt: a decoder, no encoder, one self-attention site', async () => {
    // A file without prepend_bos: the engine's own models read <bos> first, as they were trained.
    expect(model.info).toMatchObject({ input: 'prompt', hasEncoder: false, hasDecoder: true, prependBos: true });
    expect(model.info.sites.map((s) => [s.name, s.queries, s.keys, s.perStep])).toEqual([['self', 'target', 'target', true]]);
    const translator = await loadModel(FROZEN_TOY);
    expect(translator.info).toMatchObject({ input: 'source', hasEncoder: true, hasDecoder: true, prependBos: false });
    expect(() => translator.translate('a dog', { prependBos: true })).toThrow(/prependBos is for a decoder-only model's prompt/);
    translator.dispose();
  });

  it('generate() steps as the reference does: the first step is the full causal map of <bos> and the prompt', () => {
    const [c] = golden.cases;
    const session = model.generate(c.prompt, { strategy: 'greedy', maxLength: c.max_steps });
    try {
      // What the model reads: <bos>, then the prompt's tokens.
      expect(session.source.ids).toEqual([golden.config.special_tokens.bos, ...c.prompt_ids]);
      expect(session.source.pieces[0]).toBe('<s>');
      const first = session.step();
      const P = c.prompt_ids.length;
      const { shape, data } = first.expansions[0].attention.self;
      expect(shape).toEqual([golden.config.n_layers, golden.config.n_heads, P + 1, P + 1]);
      expect(Array.from(data)).toEqual(close(c.greedy.steps[0].attention.flat(3)));
      expect(Array.from(session.logits(0))).toEqual(close(c.greedy.steps[0].logits));
      // Each later step: one row over the whole context.
      const second = session.step();
      expect(second.expansions[0].attention.self.shape).toEqual([golden.config.n_layers, golden.config.n_heads, P + 2]);
      expect(Array.from(second.expansions[0].attention.self.data)).toEqual(close(c.greedy.steps[1].attention.flat(3)));
      session.run();
      expect([...session.nbest(), ...session.finished()][0].ids.slice(0, c.greedy.tokens.length)).toEqual(c.greedy.tokens);
    } finally {
      session.dispose();
    }
  });

  it('rolls out the prompt\'s causal map once the first step has read it', () => {
    const [c] = golden.cases;
    const session = model.generate(c.prompt);
    try {
      expect(() => session.promptRollout()).toThrow(/first step/);
      session.step();
      const r = session.promptRollout();
      expect(r.shape).toEqual([c.prompt_ids.length + 1, c.prompt_ids.length + 1]);
      expect(Array.from(r.data)).toEqual(close(rollout(c.greedy.steps[0].attention)));
      expect(session.promptPatterns()).toHaveLength(golden.config.n_layers * golden.config.n_heads);
    } finally {
      session.dispose();
    }
  });

  it('beam search and greedy stop where the context is full, as attnscope-cli generate does', () => {
    const words = golden.cases[0].prompt.split(' ');
    const prompt = Array.from({ length: golden.config.max_positions - 4 }, (_, i) => words[i % words.length]).join(' ');
    for (const [options, flags] of [[{ strategy: 'beam', beamSize: 3 }, ['--beam', '3']], [{ strategy: 'greedy' }, ['--greedy']]]) {
      const session = model.generate(prompt, options);
      try {
        session.run();
        expect(session.done).toBe(true);
        expect(session.steps).toBeLessThanOrEqual(4);
        expect(session.translation).toBe(cli(['generate', '--model', MODEL, ...flags, prompt]).trim());
      } finally {
        session.dispose();
      }
    }
  });

  it('prependBos overrides the file: the prompt\'s tokens alone, as attnscope-cli generate --no-prepend-bos reads them', () => {
    const [c] = golden.cases;
    const native = JSON.parse(cli(['generate', '--model', MODEL, '--json', '--max-length', '1', '--alternatives', '5',
      '--no-prepend-bos', c.prompt]));
    const session = model.generate(c.prompt, { maxLength: 1, alternatives: 5, prependBos: false });
    try {
      expect(session.source.ids).toEqual(c.prompt_ids);
      expect(native.source_ids).toEqual(c.prompt_ids);
      const first = session.step();
      const P = c.prompt_ids.length;
      expect(first.expansions[0].attention.self.shape).toEqual([golden.config.n_layers, golden.config.n_heads, P, P]);
      expect(first.expansions[0].top.map((a) => [a.id, a.logit]))
        .toEqual(native.steps[0].expansions[0].top_k.map((a) => [a.id, expect.closeTo(a.logit, 5)]));
      // ... a different computation from the file's reading, with <bos>.
      expect(first.expansions[0].top[0].logit).not.toBeCloseTo(c.greedy.steps[0].logits[first.expansions[0].top[0].id], 3);
    } finally {
      session.dispose();
    }
    const read = model.generate(c.prompt, { maxLength: 1, prependBos: true });
    expect(read.source.ids).toEqual([golden.config.special_tokens.bos, ...c.prompt_ids]);
    read.dispose();
    expect(() => model.generate(c.prompt, { prependBos: 'no' })).toThrow(/prependBos.*true or false/);
    expect(model.score(c.prompt, 'to', { prependBos: false }).logProb)
      .not.toBeCloseTo(model.score(c.prompt, 'to').logProb, 3);
    expect(() => model.score(c.prompt, 'to', { prependBos: 0 })).toThrow(AttnscopeError);
  });

  it('an empty prompt is <bos> alone, whatever prependBos says, as attnscope-cli generate reads it', () => {
    const native = JSON.parse(cli(['generate', '--model', MODEL, '--json', '--max-length', '3', '']));
    for (const prompt of ['', '   ']) {
      for (const prependBos of [undefined, true, false]) {
        const session = model.generate(prompt, { strategy: 'greedy', maxLength: 3, prependBos });
        try {
          expect(session.source.ids).toEqual([golden.config.special_tokens.bos]);
          expect(session.step().expansions[0].attention.self.shape).toEqual([golden.config.n_layers, golden.config.n_heads, 1, 1]);
          session.run();
          expect(session.nbest()[0].ids).toEqual(native.output_ids);
        } finally {
          session.dispose();
        }
      }
    }
  });

  it('a prompt longer than the model\'s context is an AttnscopeError with the engine\'s message', () => {
    // <bos> and max_positions words: one position more than the context.
    const words = golden.cases[0].prompt.split(' ');
    const prompt = Array.from({ length: golden.config.max_positions }, (_, i) => words[i % words.length]).join(' ');
    const expected = cliError(prompt);
    expect(() => model.translate(prompt)).toThrow(AttnscopeError);
    expect(() => model.generate(prompt)).toThrow(expected);
    // The model still works after the refusal.
    const session = model.generate(golden.cases[0].prompt);
    expect(session.step().expansions).toHaveLength(1);
    session.dispose();
  });
});
