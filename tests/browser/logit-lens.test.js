// The "Logit lens" card: a layers × steps grid of a committed two-layer golden transformer
// (tests/golden/small_pre_learned), each cell coloured by the chosen token's probability at that
// layer and labelled with the layer's top token, read against the engine run in Node; the grid
// grows with Next and shrinks with Back, the current step highlighted; hover shows the top 5. The
// card goes away when the page switches to a model without a lens (an RNN).
import { expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'i can eat apple';
const LENS_MODEL = { id: 'test-lens-small', file: '../tests/golden/small_pre_learned.safetensors', label: 'Test transformer · 2+2 layers, pre-norm (random weights)', example: SENTENCE };
const t = browserWithModel('tests/golden/small_pre_learned.safetensors');

/** The page with LENS_MODEL offered in its picker, at `query` (a URL state). */
async function open(query) {
  const page = await t.env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.route((url) => url.pathname === '/web/models.js', async (route) => {
    const body = `${await (await route.fetch()).text()}\nmodels.push(${JSON.stringify(LENS_MODEL)});\n`;
    await route.fulfill({ body, contentType: 'text/javascript' });
  });
  await page.goto(t.env.url(`/web/index.html${query}`));
  await idle(page);
  return { page, errors };
}

/** The grid as drawn: per layer (top row first), per step, the cell's {text, p, rank, current}. */
const grid = (page) => page.locator('#logit-lens .lens-grid tbody tr').evaluateAll((rows) => rows.map((r) =>
  [...r.querySelectorAll('td')].map((c) => ({ text: c.textContent, p: Number(c.dataset.p), rank: Number(c.dataset.rank), current: c.classList.contains('current') }))));

async function shown(page, steps) {
  await idle(page);
  await page.waitForSelector(`#logit-lens[data-steps="${steps}"]`);
  return grid(page);
}

it('draws the layers × steps grid the engine reads, growing with Next and shrinking with Back', async () => {
  const { page, errors } = await open(formatState({ ...parseState(''), model: LENS_MODEL.id, s: SENTENCE, step: 2 }));
  expect(await page.isHidden('#logit-lens')).toBe(false);
  await page.click('#logit-lens > summary');
  const two = await shown(page, 2);

  const session = t.model.translate(SENTENCE);
  try {
    session.step();
    session.step();
    const lens = session.logitLens(5);
    expect(two).toHaveLength(lens.layers);
    expect(two.map((row) => row.length)).toEqual([2, 2]);
    // Rows run from the last layer (the model's own prediction) down to the first.
    two.forEach((row, r) => row.forEach((cell, s) => {
      const reading = lens.steps[s].layers[lens.layers - 1 - r];
      expect(cell.text).toBe(reading.top[0].piece);
      expect(cell.p).toBe(reading.chosen.p);
      expect(cell.rank).toBe(reading.chosen.rank);
      expect(cell.current).toBe(s === 1);
    }));
    const cellTitle = await page.locator('#logit-lens td[data-layer="0"][data-step="1"]').getAttribute('title');
    for (const top of lens.steps[1].layers[0].top) expect(cellTitle).toContain(`“${top.piece}”`);

    await page.click('#next');
    const three = await shown(page, 3);
    session.step();
    const after = session.logitLens(5);
    expect(three.map((row) => row.length)).toEqual([3, 3]);
    expect(three.map((row) => row.map((c) => c.p))).toEqual([1, 0].map((l) => after.steps.map((s) => s.layers[l].chosen.p)));
    expect(three.map((row) => row.findIndex((c) => c.current))).toEqual([2, 2]);

    await page.hover('#logit-lens td[data-layer="1"][data-step="2"]');
    const detail = await page.textContent('#logit-lens .lens-detail');
    expect(detail).toContain('Layer 2, step 3');
    expect(detail).toContain(`“${after.steps[2].layers[1].top[4].piece}”`);
    await screenshot(page, 'logit-lens', { fullPage: false });

    await page.click('#prev');
    expect((await shown(page, 2)).map((row) => row.map((c) => c.p))).toEqual(two.map((row) => row.map((c) => c.p)));
  } finally {
    session.dispose();
  }
  expect(errors).toEqual([]);
  await page.close();
});

it('hides the card when the page switches to a model without a lens', async () => {
  const { page, errors } = await open(formatState({ ...parseState(''), model: LENS_MODEL.id, s: SENTENCE, step: 1 }));
  expect(await page.isHidden('#logit-lens')).toBe(false);
  await page.selectOption('#model', 'toy-rnn-bahdanau-additive');
  await page.waitForFunction(() => window.attnscope.snapshot?.url?.includes('toy-rnn-bahdanau-additive'));
  await idle(page);
  expect(await page.isHidden('#logit-lens')).toBe(true);
  expect(errors).toEqual([]);
  await page.close();
});
