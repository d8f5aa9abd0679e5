// The logit lens in the JS API (session.logitLens(k)) through the WASM engine, against the goldens
// the PyTorch reference wrote (tests/golden/logit_lens/, models/goldens/make_logit_lens_goldens.py):
// a pre- and a post-norm transformer and a pre- and a post-norm decoder-only model, their
// continuations forced. The CLI's --logit-lens gives the same object. A model without a lens (an
// RNN) says so in info and throws a clear error.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { cli, path } from './helpers.js';

const GOLDENS = ['small_pre_learned', 'deep_post_learned_f16', 'decoder_only_pre_learned_gelu_tanh',
  'decoder_only_post_sin_relu_untied'];
const golden = (name) => JSON.parse(readFileSync(path(`tests/golden/logit_lens/${name}.json`), 'utf8'));
const close = (values) => values.map((x) => expect.closeTo(x, 4)); // a NaN is close to nothing

/** A session of the case's source with its continuation forced, one token a step. */
function forced(model, c) {
  const session = model.translate(c.source, { maxLength: c.forced.length });
  for (const token of c.forced) session.force(token);
  return session;
}

describe('session.logitLens(k)', () => {
  for (const name of GOLDENS) {
    const g = golden(name);
    describe(name, () => {
      let model;
      beforeAll(async () => { model = await loadModel(path(`tests/golden/${g.model}`)); });
      afterAll(() => model?.dispose());

      it('reads every step and layer as the PyTorch reference does', () => {
        expect(model.info.logitLensLayers).toBe(g.layers);
        for (const c of g.cases) {
          const session = forced(model, c);
          try {
            const lens = session.logitLens(g.top_k);
            expect(lens.layers).toBe(g.layers);
            expect(lens.steps.map((s) => s.id)).toEqual(c.forced);
            lens.steps.forEach((step, s) => step.layers.forEach((layer, l) => {
              const want = c.steps[s].layers[l];
              expect(layer.top.map((t) => t.id), `${c.source} step ${s} layer ${l}`).toEqual(want.top_ids);
              expect(layer.top.map((t) => t.p)).toEqual(close(want.top_probs));
              expect(layer.chosen.p).toEqual(expect.closeTo(want.chosen_prob, 4));
              expect(layer.chosen.rank).toBe(want.chosen_rank);
            }));
          } finally {
            session.dispose();
          }
        }
      });
    });
  }

  it('is what the CLI prints with --logit-lens', async () => {
    const g = golden('small_pre_learned');
    const model = await loadModel(path(`tests/golden/${g.model}`));
    const source = g.cases[1].source;
    const session = model.translate(source, { strategy: 'greedy', maxLength: 4 });
    try {
      session.run();
      const printed = JSON.parse(cli(['translate', '--model', path(`tests/golden/${g.model}`), '--greedy',
        '--max-length', '4', '--logit-lens', '2', source]));
      const lens = session.logitLens(2);
      expect(lens.steps.length).toBeGreaterThan(0);
      expect(printed.logit_lens.layers).toBe(lens.layers);
      expect(printed.logit_lens.steps.map((s) => [s.id, s.token])).toEqual(lens.steps.map((s) => [s.id, s.token]));
      printed.logit_lens.steps.forEach((step, s) => step.layers.forEach((layer, l) => {
        const mine = lens.steps[s].layers[l];
        expect(layer.top.map((t) => [t.id, t.piece])).toEqual(mine.top.map((t) => [t.id, t.piece]));
        expect(layer.top.map((t) => t.p)).toEqual(close(mine.top.map((t) => t.p)));
        expect(layer.chosen).toEqual({ p: expect.closeTo(mine.chosen.p, 6), rank: mine.chosen.rank });
      }));
    } finally {
      session.dispose();
      model.dispose();
    }
  });

  it('throws a clear error for a model without a lens, and for a bad k', async () => {
    const rnn = await loadModel(path('tests/golden/rnn/gru_bahdanau_additive.safetensors'));
    const session = rnn.translate('i can eat apple', { maxLength: 2 });
    try {
      expect(rnn.info.logitLensLayers).toBe(0);
      session.step();
      expect(() => session.logitLens(3)).toThrow(AttnscopeError);
      expect(() => session.logitLens(3)).toThrow(/no logit lens/);
    } finally {
      session.dispose();
      rnn.dispose();
    }
    const g = golden('small_pre_learned');
    const model = await loadModel(path(`tests/golden/${g.model}`));
    const s = model.translate(g.cases[0].source, { maxLength: 2 });
    try {
      s.step();
      expect(() => s.logitLens(0)).toThrow(/at least 1/);
      expect(() => s.logitLens(1.5)).toThrow(AttnscopeError);
    } finally {
      s.dispose();
      model.dispose();
    }
  });
});
