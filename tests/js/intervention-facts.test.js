// What interventions may do to each attention site is the engine's to say: its site table
// (model.info.sites) carries the skip name, whether custom weights fit, and whether the copied
// source encoding replaces the site's output; the engine enforces exactly that, and the page's
// helpers (web/app/model/sites.js, web/app/panels/interventions.js) read those facts instead of re-deriving
// them from a site's name or roles.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { editsOf, fitInterventions } from '../../web/app/panels/interventions.js';
import { noInterventions } from '../../web/app/state/state.js';
import { root } from './helpers.js';

let model;
beforeAll(async () => { model = await loadModel(join(root, 'models/toy-en-de.safetensors')); });
afterAll(() => model?.dispose());

it('publishes each site\'s intervention facts in the table, and the engine enforces exactly those', () => {
  const { sites } = model.info;
  expect(sites.map((s) => [s.name, s.skip, s.customWeights, s.copiedBySourceEncoding])).toEqual([
    ['encoder', 'encoderSelfAttention', true, false],
    ['self', 'decoderSelfAttention', false, false],
    ['cross', 'crossAttention', true, true],
  ]);
  const src = model.tokenize('i can eat apple').ids.length + 1; // with </s>
  for (const site of sites) {
    const custom = () => model.translate('i can eat apple', { interventions: { attention: [{ site: site.name, pattern: 'custom', weights: Array(src).fill(1) }] } }).dispose();
    if (site.customWeights) expect(custom).not.toThrow();
    else expect(custom).toThrow(/custom attention weights need a fixed length/);
    expect(() => model.translate('i can eat apple', { interventions: { skip: [site.skip] } }).dispose()).not.toThrow();
  }
});

it('the page\'s helpers follow the table\'s facts, not the sites\' names or roles', () => {
  // The same roles, other facts: a table saying "cross" takes no custom weights, is switched off
  // by "ffn" and is not replaced by the copied encoding (a made-up family) changes the helpers.
  const sites = model.info.sites.map((s) => (s.name === 'cross' ? { ...s, customWeights: false, skip: 'ffn', copiedBySourceEncoding: false } : s));
  const cross = sites.find((s) => s.name === 'cross');
  const iv = { ...noInterventions(), attention: [{ site: 'cross', layer: '*', head: '*', pattern: 'custom', weights: [1, 1, 1, 1, 1] }], skip: ['ffn'], copySourceEncoding: true };
  expect(fitInterventions(iv, sites, 5).attention).toEqual([]);
  expect(fitInterventions(iv, model.info.sites, 5).attention).toHaveLength(1);
  expect(editsOf(iv, cross, 0, 0)).toMatchObject({ skipped: true, copied: false });
  expect(editsOf(iv, model.info.sites.find((s) => s.name === 'cross'), 0, 0)).toMatchObject({ skipped: false, copied: true });
});
