// Attention that describes itself: model.info.sites, the generic session.attention(),
// step records that carry what the step computed, and a Session whose getters read the state
// the last call returned instead of asking the engine again. Uses only the frozen golden
// models under tests/golden (no ../shared).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AttnscopeError, init, loadModel } from '../../web/attnscope.js';
import { path } from './helpers.js';

const DEEP = path('tests/golden/deep_pre_sin_bpe.safetensors');  // 3 encoder + 2 decoder layers, 8 heads

let model;
beforeAll(async () => { model = await loadModel(DEEP); });
afterAll(() => model?.dispose());

describe('model.info.sites', () => {
  it("lists the transformer's sites in table order, frozen", () => {
    const { sites, config } = model.info;
    expect(model.info.architecture).toBe('transformer');
    expect(sites.map((s) => [s.name, s.queries, s.keys, s.perStep])).toEqual([
      ['encoder', 'source', 'source', false],
      ['self', 'target', 'target', true],
      ['cross', 'target', 'source', true],
    ]);
    expect(sites.map((s) => s.layers)).toEqual([config.n_encoder_layers, config.n_decoder_layers, config.n_decoder_layers]);
    for (const s of sites) {
      expect(s.heads).toBe(config.n_heads);
      expect(typeof s.label).toBe('string');
      expect(s.label.length).toBeGreaterThan(0);
      expect(Object.isFrozen(s)).toBe(true);
    }
    expect(Object.isFrozen(sites)).toBe(true);
  });
});

describe('session.attention', () => {
  it('is what the thin wrappers return, for every site, and what the step record carried', () => {
    const s = model.translate('i can eat an apple', { strategy: 'beam', beamSize: 3, minLength: 4 });
    const records = [s.step(), s.step(), s.step()];
    const enc = s.attention('encoder', undefined);
    expect(enc).toEqual(s.encoderAttention());
    expect(enc.shape).toEqual([3, 8, s.source.ids.length, s.source.ids.length]);
    expect(s.attention('encoder', 0, { layer: 1, head: 2 })).toEqual(s.encoderAttention({ layer: 1, head: 2 }));
    for (const [t, record] of records.entries()) {
      for (const [i, e] of record.expansions.entries()) {
        expect(s.attention('cross', t, { hypothesis: i })).toEqual(s.crossAttention(t, { hypothesis: i }));
        expect(s.attention('self', t, { hypothesis: i, layer: 1, head: 7 }))
          .toEqual(s.selfAttention(t, { hypothesis: i, layer: 1, head: 7 }));
        const perStep = model.info.sites.filter((x) => x.perStep).map((x) => x.name);
        expect(Object.keys(e.attention).sort()).toEqual([...perStep].sort());
        for (const site of perStep) expect(e.attention[site]).toEqual(s.attention(site, t, { hypothesis: i }));
        expect(e.attention.self.shape).toEqual([2, 8, t + 1]);
      }
    }
    s.dispose();
  });

  it('names the model sites when given an unknown one', () => {
    const s = model.translate('i eat');
    s.step();
    expect(() => s.attention('decoder', 0)).toThrow(AttnscopeError);
    expect(() => s.attention('decoder', 0)).toThrow("unknown attention site 'decoder' (this model has encoder, self, cross)");
    expect(() => s.valueWeightedAttention('decoder', 0)).toThrow(/unknown attention site 'decoder'/);
    expect(() => s.attention('cross', 0, { layer: 2, head: 0 })).toThrow('cross attention: layer 2 is out of range [0, 2)');
    s.dispose();
  });

  it('leaves attention out of the records when capture.attention is off', () => {
    const s = model.translate('i eat', { capture: { attention: false } });
    const r = s.step();
    expect(r.expansions[0].attention).toBeUndefined();
    expect(() => s.attention('cross', 0)).toThrow(/capture.attention = true/);
    s.dispose();
  });
});

describe('the session state', () => {
  it('comes back with every step, force, back and run, and the getters make no engine call', async () => {
    const runtime = await init();
    const state = vi.spyOn(runtime.SessionHandle.prototype, 'state');
    try {
      const s = model.translate('we want to drink beer', { strategy: 'beam', beamSize: 2, minLength: 3 });
      expect(s.steps).toBe(0);
      expect(s.done).toBe(false);
      const r = s.step();
      expect(r.state).toEqual(s.state());
      expect(r.state.steps).toBe(1);
      expect(s.steps).toBe(1);
      expect(s.hypotheses()).toEqual(r.state.live);
      expect(s.hypotheses().length).toBe(2);
      const f = s.force(5, 1);
      expect(f.forced).toBe(true);
      expect(f.state.steps).toBe(2);
      expect(s.hypotheses()).toHaveLength(1);
      s.back();
      expect(s.steps).toBe(1);
      expect(s.hypotheses()).toEqual(r.state.live);
      s.run();
      expect(s.done).toBe(true);
      expect(s.translation).toBe(s.nbest()[0].text);
      expect(s.translation.length).toBeGreaterThan(0);
      expect(s.state().steps).toBe(s.steps);
      expect(state).not.toHaveBeenCalled();

      // A failed call asks for the state once, so the cache never lags the engine.
      expect(() => s.step()).toThrow(/decoding has finished/);
      expect(state).toHaveBeenCalledTimes(1);
      expect(s.done).toBe(true);
      s.dispose();
      expect(() => s.done).toThrow(/disposed/);
    } finally {
      state.mockRestore();
    }
  });
});
