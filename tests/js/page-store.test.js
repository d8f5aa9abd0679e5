// The page's pure logic in Node, against the engine itself: the step store (web/app/state/step-store.js)
// fed with what the worker protocol sends (the open answer, then updates that keep some steps and
// append new ones) gives the same rows and attention as asking the engine directly; the site table
// (web/app/model/sites.js) and the URL codec with a model's sites (web/app/state/state.js).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { StepStore } from '../../web/app/state/step-store.js';
import { growsWithSteps, mainSite, skipOf, tabOrder } from '../../web/app/model/sites.js';
import { formatState, normalizeInterventions, parseState } from '../../web/app/state/state.js';
import { root } from './helpers.js';

const SENTENCE = 'i can eat apple';
let model;
let sites;

beforeAll(async () => {
  model = await loadModel(join(root, 'models/toy-en-de.safetensors'));
  sites = model.info.sites;
});
afterAll(() => model?.dispose());

/** A step as the worker stores it: the record, each expansion with the attention it carries. */
function entry(record) {
  return {
    step: record.step, forced: record.forced, forcedToken: record.forcedToken,
    expansions: record.expansions.map((x) => ({
      hypothesis: x.hypothesis, node: x.node, prefix: x.prefix, score: x.score, top: x.top, chosen: {}, attention: x.attention,
    })),
  };
}

const stateOf = (s) => s.state();
const pathOf = (state) => {
  const ids = (state.done ? state.nbest[0] : state.live[0])?.ids ?? [];
  return { ids, tokens: ids.map((id) => model.vocab('target')[id]), text: '', selected: false };
};

describe('the step store', () => {
  it('appends steps, keeps what the worker kept, and gives the engine\'s rows and attention', () => {
    const session = model.translate(SENTENCE);
    const store = new StepStore();
    const vocab = model.vocab('target');
    const encoder = sites.find((s) => !s.perStep);
    const opened = {
      fresh: true, sid: 7, url: 'toy', options: {}, source: session.source, bos: vocab[model.config.special_tokens.bos],
      eos: vocab[model.config.special_tokens.eos], sites, attention: { [encoder.name]: session.attention(encoder.name, 0) },
      vectors: false, rollout: session.rollout().data, patterns: session.encoderPatterns(),
    };
    const steps = [entry(session.step())];
    let state = stateOf(session);
    let snap = store.apply({ ...opened, keep: 0, steps, state, tree: session.beamTree(), path: pathOf(state), forcedSteps: [] });
    expect(snap.rows.map((r) => r.output)).toEqual(['ich']);
    // Two more steps arrive, one at a time: the store appends them.
    for (let k = 0; k < 2; k++) {
      const added = entry(session.step());
      state = stateOf(session);
      snap = store.apply({ sid: 7, keep: store.size, steps: [added], state, tree: session.beamTree(), path: pathOf(state), forcedSteps: [] });
    }
    expect(store.size).toBe(3);
    expect(snap.rows.map((r) => r.output)).toEqual(['ich', 'konnen', 'apfel']);
    expect(snap.rows.map((r) => r.input)).toEqual(['<s>', 'ich', 'konnen']);
    // Back one step, forward with a forced token: the worker keeps 2 steps and sends the new third.
    session.back();
    const forced = entry(session.force('brot'));
    state = stateOf(session);
    snap = store.apply({ sid: 7, keep: 2, steps: [forced], state, tree: session.beamTree(), path: pathOf(state), forcedSteps: [2] });
    expect(store.size).toBe(3);
    expect(snap.rows.map((r) => r.output)).toEqual(['ich', 'konnen', 'brot']);
    expect(snap.rows[2].forced).toBe(true);
    // The attention the views get is the engine's, row by row, for each site.
    for (const site of sites) {
      const map = snap.attention(site.name);
      if (site.perStep) {
        expect(map.rows.map((t) => Array.from(t.data))).toEqual([0, 1, 2].map((k) => Array.from(session.attention(site.name, k).data)));
        expect(map.queries.labels).toEqual(['1) ich', '2) konnen', '3) brot']);
      } else {
        expect(Array.from(map.tensor.data)).toEqual(Array.from(session.attention(site.name, 0).data));
        expect(map.queries.labels).toEqual(session.source.pieces);
      }
      expect(map.keys.labels).toEqual(site.keys === 'source' ? session.source.pieces : ['<s>', 'ich', 'konnen']);
    }
    // An update about another session (a late answer after a re-translation) is ignored.
    expect(store.apply({ sid: 8, keep: 0, steps: [], state, tree: [], path: pathOf(state), forcedSteps: [] })).toBeNull();
    expect(() => store.apply({ sid: 7, keep: 5, steps: [], state, tree: [], path: pathOf(state), forcedSteps: [] })).toThrow(/kept 5 steps, the page has 3/);
    session.dispose();
  });
});

describe('the site table', () => {
  it("describes the transformer's three sites by their roles, the main one first in the tabs", () => {
    expect(sites.map((s) => [s.queries, s.keys, s.perStep])).toEqual([['source', 'source', false], ['target', 'target', true], ['target', 'source', true]]);
    expect(sites.every((s) => s.layers === 1 && s.heads === 1)).toBe(true);
    const main = mainSite(sites);
    expect([main.queries, main.keys]).toEqual(['target', 'source']);
    expect(tabOrder(sites)[0]).toBe(main);
    expect(tabOrder(sites)).toHaveLength(3);
    expect(sites.filter(growsWithSteps).map((s) => s.keys)).toEqual(['target']);
    expect(sites.map(skipOf)).toEqual(['encoderSelfAttention', 'decoderSelfAttention', 'crossAttention']);
  });

  it('keeps interventions on the model\'s sites only, masks in table order, and the URL round-trips', () => {
    const [first, second, third] = sites.map((s) => s.name);
    const iv = normalizeInterventions({
      attention: [{ site: 'nosuchsite', pattern: 'uniform' }, { site: third, pattern: 'end' }],
      maskHeads: [{ site: third, layer: 0, head: 0 }, { site: first, layer: 0, head: 0 }, { site: second, layer: 0, head: 0 }, { site: first, layer: 0, head: 0 }],
      skip: [],
    }, sites);
    expect(iv.attention).toEqual([{ site: third, layer: '*', head: '*', pattern: 'end' }]);
    expect(iv.maskHeads.map((m) => m.site)).toEqual([first, second, third]);
    const st = { ...parseState(''), view: second, iv };
    expect(parseState(formatState(st))).toEqual(st);
    // A name that cannot be a site is not taken from a URL.
    expect(parseState('?view=<b>').view).toBeNull();
    expect(parseState('?mask=x"y.0.0').iv.maskHeads).toEqual([]);
  });
});
