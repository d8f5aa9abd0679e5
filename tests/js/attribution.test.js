// Attribution in WASM (session.attribution, session.sentenceAttribution, model.maskAttribution)
// against torch.autograd through the PyTorch reference (tests/golden/attribution/, written by
// models/goldens/make_attribution_goldens.py), and its errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { WorkTimer } from '../../web/app/worker/attribution-timing.js';
import { FROZEN_TOY, path } from './helpers.js';

const golden = (name) => JSON.parse(readFileSync(path(`tests/golden/attribution/${name}.json`), 'utf8'));
const toy = golden('toy');

/** Largest |want - got|; a NaN or a length mismatch anywhere is Infinity. */
function maxDiff(want, got) {
  if (want.length !== got.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < want.length; i++) {
    const d = Math.abs(want[i] - got[i]);
    if (!Number.isFinite(d)) return Infinity;
    worst = Math.max(worst, d);
  }
  return worst;
}

describe('attribution in WASM', () => {
  it('gradient × input, integrated gradients and τ per head equal the reference at every step of the toy', async () => {
    const model = await loadModel(FROZEN_TOY);
    const session = model.translate(toy.sentence);
    session.run();
    expect(session.source.ids).toEqual(toy.source);
    toy.steps.forEach((want, t) => {
      const gi = session.attribution(t);
      expect(gi.tokenId).toBe(want.token);
      expect(gi.targetTokens.length).toBe(want.target.length);
      expect(maxDiff(want.gradient_input.source_scores, gi.sourceScores)).toBeLessThan(1e-4);
      expect(maxDiff(want.gradient_input.target_scores, gi.targetScores)).toBeLessThan(1e-4);
      expect(Math.abs(gi.f - want.gradient_input.f)).toBeLessThan(1e-4);
      expect(gi.agreement.site).toBe('cross');
      const tau = want.tau.flat();
      expect(gi.agreement.tau.length).toBe(tau.length);
      tau.forEach((v, k) => (v === null ? expect(gi.agreement.tau[k]).toBeNaN() : expect(Math.abs(gi.agreement.tau[k] - v)).toBeLessThan(1e-9)));

      const ig = session.attribution(t, { method: 'integrated-gradients', steps: toy.ig_steps });
      expect(maxDiff(want.integrated_gradients.source_scores, ig.sourceScores)).toBeLessThan(1e-4);
      expect(maxDiff(want.integrated_gradients.target_scores, ig.targetScores)).toBeLessThan(1e-4);
      expect(Math.abs(ig.completenessError - want.integrated_gradients.completeness_error)).toBeLessThan(1e-4);
      expect(Math.abs(ig.fBaseline - want.integrated_gradients.f_baseline)).toBeLessThan(1e-4);
      expect(ig.targetScores[0]).toBe(0); // <bos> is in the baseline as it is
      const change = Math.abs(want.integrated_gradients.f - want.integrated_gradients.f_baseline);
      expect(Math.abs(ig.completenessShare - want.integrated_gradients.completeness_share)).toBeLessThan(1e-4 * (1 + 1 / change));
    });
    const sentence = session.sentenceAttribution();
    expect(sentence.steps.map((s) => s.tokenId)).toEqual(toy.output_ids);
    // The mean over the steps where τ is defined, per head.
    const heads = toy.steps[0].tau.flat().length;
    for (let k = 0; k < heads; k++) {
      const defined = toy.steps.map((s) => s.tau.flat()[k]).filter((v) => v !== null);
      expect(Math.abs(sentence.meanAgreement.tau[k] - defined.reduce((a, b) => a + b, 0) / defined.length)).toBeLessThan(1e-9);
    }
    session.dispose();
    model.dispose();
  });

  it('a decoder-only model explains its continuation over the context, contrastive and erasure too', async () => {
    const g = golden('pre_learned_gelu_tanh');
    const model = await loadModel(path(`tests/golden/${g.model}`));
    const session = model.generate('i want to', { maxLength: 1 });
    session.run();
    for (const c of g.cases.filter((c) => c.target.length === 4)) {  // <bos> and the three prompt tokens
      const options = { method: c.method, steps: c.steps || 32, baseline: c.baseline };
      if (c.contrast >= 0) options.contrast = c.contrast;
      const a = session.attribution(0, options);
      expect(a.tokenId).toBe(c.token);
      expect(a.sourceScores.length).toBe(0);
      expect(maxDiff(c.target_scores, a.targetScores)).toBeLessThan(1e-4);
      expect(Math.abs(a.f - c.f)).toBeLessThan(1e-4);
      expect(a.agreement.site).toBe('self');
    }
    session.dispose();
    model.dispose();
  });

  it('an encoder-only model explains each [MASK]\'s best piece over the input', async () => {
    const g = golden('small_mlm');
    const text = JSON.parse(readFileSync(path('tests/golden/bert/small_mlm.json'), 'utf8')).cases[0].text;
    const model = await loadModel(path(`tests/golden/${g.model}`));
    for (const c of g.cases) {
      const options = { method: c.method, steps: c.steps || 32, baseline: c.baseline };
      if (c.contrast >= 0) options.contrast = c.contrast;
      const [a] = model.maskAttribution(text, options);
      expect(a.step).toBe(c.row);
      expect(a.tokenId).toBe(c.token);
      expect(maxDiff(c.source_scores, a.sourceScores)).toBeLessThan(1e-4);
      expect(a.targetScores.length).toBe(0);
      expect(a.agreement.site).toBe('self');
    }
    model.dispose();
  });

  it('bad options and steps are Errors naming the value', async () => {
    const model = await loadModel(FROZEN_TOY);
    const session = model.translate(toy.sentence);
    session.step();
    const error = (f) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(AttnscopeError);
        expect(e).toBeInstanceOf(Error);
        return e.message;
      }
      return 'no error';
    };
    expect(error(() => session.attribution(0, { method: 'saliency' }))).toMatch(/'saliency'/);
    expect(error(() => session.attribution(0, { method: 'integrated-gradients', steps: 0 }))).toMatch(/got 0/);
    expect(error(() => session.attribution(0, { baseline: 'mean' }))).toMatch(/'mean'/);
    expect(error(() => session.attribution(0, { contrast: 'no-such-token' }))).toMatch(/'no-such-token'/);
    expect(error(() => session.attribution(0, { contrast: 1e6 }))).toMatch(/outside the vocabulary/);
    expect(error(() => session.attribution(5))).toMatch(/5/);
    expect(error(() => session.attribution(0.5))).toMatch(/step must be an integer/);
    session.dispose();
    model.dispose();
  });

  it('integrated gradients over the budget are refused naming the most steps, which the cost says before', async () => {
    const model = await loadModel(path('models/multi30k-en-gpt.safetensors'));
    const session = model.generate('A man in a blue shirt is', { maxLength: 1 });
    session.run();
    const tokens = session.attribution(0).targetTokens.length; // <bos>, the prompt
    const ig = (steps) => ({ method: 'integrated-gradients', steps });
    // (3·m + 2) forwards of P·T multiply-adds, P the file's parameters as its header counts them.
    const cost = session.attributionCost(0, ig(4096));
    expect(cost.work).toBe((3 * 4096 + 2) * model.info.file.parameters * tokens);
    expect(cost.passes).toBe(4098);
    expect(cost.maxSteps).toBeLessThan(4096);
    expect(cost.maxSteps).toBeGreaterThan(32);
    const refused = (f) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(AttnscopeError);
        return e.message;
      }
      return 'no error';
    };
    for (const call of [() => session.attribution(0, ig(4096)), () => session.sentenceAttribution(ig(cost.maxSteps + 1))])
      expect(refused(call)).toMatch(new RegExp(`with \\d+ steps over ${tokens} tokens .* use at most ${cost.maxSteps} steps for this input`));
    expect(session.sentenceAttributionCost(ig(8))).toEqual(session.attributionCost(0, ig(8))); // one step so far
    session.dispose();
    model.dispose();
  });

  it('the page worker\'s estimate is the measured time per unit of work, none before a measurement', () => {
    const timer = new WorkTimer();
    expect(timer.estimate(1e9)).toBeNull();
    timer.record(2e9, 100);
    timer.record(1e9, 200); // a slower request: the speed is the total work over the total time
    expect(timer.estimate(3e9)).toBeCloseTo(300, 9);
    expect(timer.estimate(1.5e9)).toBeCloseTo(150, 9);
    timer.record(0, 50); // no work counted: nothing learnt
    expect(timer.estimate(3e9)).toBeCloseTo(300, 9);
  });
});
