// The page and the <attn-scope> widget with RNN models: every view adapts to the
// model's site table (one cross-attention map, no self-attention tabs, a 1 × 1 model view, the
// analyses that do not apply say why), and the architecture card describes the family. Numbers
// are checked against the engine run here in Node (web/attnscope.js) on the random-weight golden
// RNNs of tests/golden/rnn/ (the page gets them from withGoldenRnns).
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { hoverCell, openPage, root, screenshot, startBrowser, watchErrors } from './browser.js';

const SENTENCE = 'i can eat apple';
const golden = (name) => join(root, `tests/golden/rnn/${name}.safetensors`);
let env;
beforeAll(async () => {
  env = await startBrowser();
});
afterAll(async () => {
  await env?.close();
});

const settle = (page) => page.evaluate(() => window.attnscope.idle());

/** Hovers every cell of row `r` of `canvas` (inside `scope`) and expects the engine's `values`. */
async function expectRow(page, scope, r, values) {
  const canvas = scope.locator('canvas').first();
  const grid = JSON.parse(await canvas.getAttribute('data-grid'));
  expect(grid.cols).toBe(values.length);
  for (let c = 0; c < grid.cols; c++) {
    await hoverCell(page, canvas, r, c);
    await expect.poll(() => scope.locator('.hm-tip').first().getAttribute('data-col')).toBe(String(c));
    expect(Number(await scope.locator('.hm-tip').first().getAttribute('data-value'))).toBe(values[c]);
  }
  await page.mouse.move(0, 0);
}

it('shows an RNN with attention: one map, no self-attention tabs, a 1 × 1 model view, and says which analyses do not apply', async () => {
  const model = await loadModel(golden('lstm_luong_dot_feed_local'));
  const { page, errors } = await openPage(env, `/web/index.html?s=${encodeURIComponent(SENTENCE)}&model=test-rnn-luong&step=3`, { goldenRnns: true });
  try {
    await settle(page);
    const [site] = model.info.sites;
    expect(model.info.sites).toHaveLength(1);
    // Tabs: the one site of the table, then the panes that are not a site.
    expect(await page.locator('#attention [role=tab]').allTextContents()).toEqual([site.label, 'Model view', 'Beam search']);
    expect(await page.getAttribute('#attention [role=tab][aria-selected=true]', 'data-view')).toBe(site.name);
    // ‖α·f(x)‖ needs the site's values, which an RNN's score does not have.
    expect(await page.locator('#vnorm-field').isHidden()).toBe(true);
    const s = model.translate(SENTENCE);
    const rows = [s.step(), s.step(), s.step()].map((rec) => Array.from(rec.expansions[0].attention[site.name].data));
    await expectRow(page, page.locator('#view-body'), 2, rows[2]);
    await expectRow(page, page.locator('#view-body'), 0, rows[0]);
    s.dispose();

    // The architecture in words and as a diagram, from the file's config.
    const c = model.info.config;
    expect(await page.textContent('#arch-family')).toBe('RNN encoder-decoder');
    expect(await page.textContent('#arch-body .arch-words')).toBe(
      `RNN encoder-decoder: bidirectional LSTM encoder (1 layer, ${c.d_encoder} units per direction), LSTM decoder (1 layer, ${c.d_hidden} units), `
      + `Luong attention, dot score, local-p window ±${c.local_window}, input feeding; vocabulary 18 source, 17 target words.`);
    expect(await page.locator('#arch-body svg g.arch-block').evaluateAll((gs) => gs.map((g) => g.dataset.block))).toEqual(['src', 'enc', 'tgt', 'dec', 'attn', 'out']);
    expect(await page.locator('#arch-body svg text.arch-link').allTextContents()).toEqual(['encoder states']);

    // The model view: one layer × one head.
    await page.click('#tab-model');
    await settle(page);
    expect(await page.locator('.model-grid .thumb canvas').count()).toBe(1);
    expect(await page.locator('#kind option').allTextContents()).toEqual([site.label.toLowerCase()]);

    // Analyses that need self-attention over the source or query/key vectors say why not.
    expect(await page.textContent('#rollout-body')).toMatch(/^Not for this model: it has no self-attention over the source/);
    await page.click('#an-tab-vectors');
    await page.waitForFunction(() => document.querySelector('#an-vectors').dataset.ready === 'true');
    await settle(page);
    expect(await page.locator('#factor-body').textContent()).toMatch(/^Not for this model: its attention has no query and key vectors/);
    expect(await page.locator('#fq-tools').isHidden()).toBe(true);
    expect(await page.locator('#pos-section').isHidden()).toBe(true); // no positional encoding table
    await screenshot(page, 'rnn-page');
    expect(await page.textContent('#error')).toBe('');
    expect(errors).toEqual([]);
  } finally {
    model.dispose();
    await page.close();
  }
});

it('shows the no-attention RNN: no attention tabs, the model view says why, the translation is the engine\'s', async () => {
  const model = await loadModel(golden('gru_none'));
  const { page, errors } = await openPage(env, `/web/index.html?s=${encodeURIComponent(SENTENCE)}&model=test-rnn-none&step=end`, { goldenRnns: true });
  try {
    await settle(page);
    expect(model.info.sites).toEqual([]);
    expect(await page.locator('#attention [role=tab]').allTextContents()).toEqual(['Model view', 'Beam search']);
    expect(await page.textContent('#view-body')).toMatch(/^This model has no attention/);
    const s = model.translate(SENTENCE);
    s.run();
    expect(await page.textContent('#translation')).toBe(s.translation);
    s.dispose();
    expect(await page.textContent('#arch-body .arch-words')).toMatch(/no attention: the decoder starts from, and is fed at every step, the encoder's final state/);
    expect(await page.locator('#arch-body svg text.arch-link').allTextContents()).toEqual(['final state only']);
    expect(await page.textContent('#error')).toBe('');
    expect(errors).toEqual([]);
  } finally {
    model.dispose();
    await page.close();
  }
});

it('keeps "last state only" in the URL: the RNN translates as the engine does with it, and the page says so', async () => {
  const model = await loadModel(golden('gru_bahdanau_additive'));
  const { page, errors } = await openPage(env, `/web/index.html?s=${encodeURIComponent(SENTENCE)}&model=test-rnn-bahdanau&step=end&lastsrc=1`, { goldenRnns: true });
  try {
    await settle(page);
    const s = model.translate(SENTENCE, { interventions: { lastSourceState: true } });
    s.run();
    const plain = model.translate(SENTENCE);
    plain.run();
    expect(s.translation).not.toBe(plain.translation); // the intervention changes this model's output
    expect(await page.textContent('#translation')).toBe(s.translation);
    expect(await page.textContent('#original')).toBe(plain.translation);
    expect(await page.isChecked('#last-state')).toBe(true);
    expect(await page.textContent('#modified-list')).toContain('last state only');
    expect(await page.textContent('#view-note')).toMatch(/^Last state only: this attention still runs/);
    expect(new URL(page.url()).searchParams.get('lastsrc')).toBe('1');
    // Unticked: the trained model again, and the URL forgets it.
    expect(await page.getAttribute('#break', 'open')).toBe(''); // opened: the link has an intervention
    await page.uncheck('#last-state');
    await settle(page);
    expect(await page.textContent('#translation')).toBe(plain.translation);
    expect(new URL(page.url()).searchParams.get('lastsrc')).toBeNull();
    s.dispose();
    plain.dispose();
    expect(errors).toEqual([]);
  } finally {
    model.dispose();
    await page.close();
  }
});

it('the <attn-scope> widget takes RNN model files: maps the engine\'s, beam included, an RNN intervention, and no map for no attention', async () => {
  const page = await env.browser.newPage({ viewport: { width: 900, height: 1400 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/tests/browser/fixtures/widget-rnn.html'));
  await page.waitForFunction(() => ['bahdanau', 'luong', 'last-state', 'none'].every((id) => document.querySelector(`#${id}`).snapshot), null, { timeout: 30_000 });
  await page.evaluate(() => Promise.all([...document.querySelectorAll('attn-scope')].map((w) => w.ready)));
  const bahdanau = await loadModel(golden('gru_bahdanau_additive'));
  const luong = await loadModel(golden('lstm_luong_dot_feed_local'));
  const none = await loadModel(golden('gru_none'));
  try {
    // Greedy, step 3.
    const s = bahdanau.translate(SENTENCE);
    const rows = [s.step(), s.step(), s.step()].map((rec) => Array.from(rec.expansions[0].attention.cross.data));
    const w = page.locator('#bahdanau');
    expect(await w.locator('.title').textContent()).toBe('Attention · layer 1/1 · head 1/1');
    expect(await w.locator('.sentence b').textContent()).toBe(s.state().live[0].text);
    expect(JSON.parse(await w.locator('canvas').getAttribute('data-grid')).rows).toBe(3);
    await expectRow(page, w, 2, rows[2]);
    s.dispose();

    // Beam 3, step 2: the best hypothesis' row.
    const b = luong.translate('we can eat bread', { strategy: 'beam', beamSize: 3, nbest: 3 });
    b.step();
    b.step();
    const snap = await page.evaluate(() => {
      const x = document.querySelector('#luong').snapshot;
      return { ids: x.path.ids, row: x.rows.at(-1).expansion };
    });
    expect(snap.ids).toEqual(b.state().live[0].ids);
    await expectRow(page, page.locator('#luong'), 1, Array.from(b.attention('cross', 1, { hypothesis: snap.row }).data));
    b.dispose();

    // lastSourceState ("last state only"): the engine's translation of the modified RNN.
    const l = bahdanau.translate(SENTENCE, { interventions: { lastSourceState: true } });
    l.step();
    l.step();
    expect(await page.locator('#last-state .sentence b').textContent()).toBe(l.state().live[0].text);
    expect(await page.locator('#last-state .modified').textContent()).toBe('Modified model: last state only (the decoder gets the encoder\'s final state, not its attention)');
    expect(await page.locator('#last-state .error').isHidden()).toBe(true);
    l.dispose();

    // No attention: the translation, and why there is no map.
    const n = none.translate(SENTENCE);
    n.step();
    n.step();
    expect(await page.locator('#none .sentence b').textContent()).toBe(n.state().live[0]?.text ?? n.translation);
    expect(await page.locator('#none .note').textContent()).toMatch(/^This model has no attention/);
    expect(await page.locator('#none canvas').isHidden()).toBe(true);
    expect(await page.locator('#none .error').isHidden()).toBe(true);
    n.dispose();
    await screenshot(page, 'widget-rnn');
    expect(await page.evaluate(() => window.hostErrors)).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    bahdanau.dispose();
    luong.dispose();
    none.dispose();
    await page.close();
  }
});
