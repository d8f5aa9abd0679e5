// Accessibility: every heatmap is a keyboard stop (tabindex 0) whose arrow keys move a cell cursor
// read aloud by a polite live region, and carries its numbers as a visually hidden <table>; axe-core
// (from node_modules, injected into the page) finds no serious or critical violation on the demo
// page or in the widget, light and dark. The counts by impact of every run are written to
// tests/artifacts/axe.json (nothing is printed).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { artifacts, openPage, root, screenshot, startBrowser, watchErrors } from './browser.js';

const AXE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');
const results = {};
let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => {
  await env?.close();
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(join(artifacts, 'axe.json'), `${JSON.stringify(results, null, 2)}\n`);
});

/** axe-core over the whole document (open shadow roots included): {counts by impact, violations}. */
async function axe(page, name) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
  const counts = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  for (const v of violations) counts[v.impact] += v.nodes;
  results[name] = { counts, violations };
  return { counts, violations };
}
const severe = ({ violations }) => violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/**
 * Every visible heatmap of the document, or of every widget's shadow root when `widget`, once
 * their tables have followed the maps (a table is filled after the frame that shows its map).
 */
const maps = async (page, widget) => page.waitForFunction((widget) => {
  const roots = widget ? [...document.querySelectorAll('attn-scope')].map((w) => w.shadowRoot) : [document];
  return !roots.some((r) => r.querySelector('[data-table-pending]'));
}, widget).then(() => page.evaluate((widget) => {
  const roots = widget ? [...document.querySelectorAll('attn-scope')].map((w) => w.shadowRoot) : [document];
  return roots.flatMap((r) => [...r.querySelectorAll('.hm')]).filter((hm) => hm.offsetParent !== null).map((hm) => {
    const canvas = hm.querySelector('canvas');
    const table = hm.querySelector('table.hm-table');
    const grid = JSON.parse(canvas.dataset.grid);
    return {
      tabIndex: canvas.tabIndex, label: canvas.getAttribute('aria-label'), grid: [grid.rows, grid.cols],
      live: hm.querySelector('.hm-readout')?.getAttribute('aria-live'),
      caption: table?.caption?.textContent,
      cols: [...(table?.tHead?.rows[0]?.cells ?? [])].slice(1).map((c) => [c.tagName, c.scope, c.textContent]),
      rows: [...(table?.tBodies[0]?.rows ?? [])].map((tr) => [tr.cells[0].tagName, tr.cells[0].scope, tr.cells[0].textContent, ...[...tr.cells].slice(1).map((c) => c.textContent)]),
      hidden: table ? table.parentElement.getBoundingClientRect().width <= 1 : null,
    };
  });
}, widget));

it('the demo page: every heatmap is a keyboard stop with a live readout and a table of its numbers; axe finds nothing serious', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?s=i%20can%20eat%20apple&step=end');
  const all = await maps(page, false);
  expect(all.length).toBeGreaterThan(0);
  for (const m of all) {
    expect(m.tabIndex, m.label).toBe(0);
    expect(m.live, m.label).toBe('polite');
    expect(m.hidden, m.label).toBe(true);
    expect(m.caption, m.label).toContain(m.label);
    expect([m.rows.length, m.cols.length], m.label).toEqual(m.grid);
    for (const [tag, scope] of m.cols) expect([tag, scope]).toEqual(['TH', 'col']);
    for (const [tag, scope] of m.rows) expect([tag, scope]).toEqual(['TH', 'row']);
  }
  // The main map's table holds the engine's numbers (to 4 decimals), and the keyboard reads them.
  const values = await page.evaluate("import('/web/app/views/heatmap.js').then(({ heatmapOf }) => heatmapOf(document.querySelector('#heatmap canvas')).spec.values.map((r) => [...r]))");
  const table = await page.evaluate(() => [...document.querySelectorAll('#heatmap table.hm-table tbody tr')].map((tr) => [...tr.cells].slice(1).map((c) => c.textContent)));
  expect(table.length).toBe(values.length);
  table.forEach((row, r) => row.forEach((text, c) => {
    if (c < values[r].length) expect(Math.abs(Number(text) - values[r][c]), `${r},${c}`).toBeLessThanOrEqual(5e-5);
    else expect(text).toBe('—');
  }));
  const canvas = page.locator('#heatmap canvas');
  await canvas.focus();
  await page.keyboard.press('ArrowDown'); // the cursor appears on the current row, first column
  await page.keyboard.press('ArrowRight');
  const readout = page.locator('#heatmap .hm-readout');
  await expect.poll(() => readout.textContent()).toMatch(/attends to .*: \d\.\d{4}$/);
  const tip = page.locator('#heatmap .hm-tip');
  const [r, c] = [Number(await tip.getAttribute('data-row')), Number(await tip.getAttribute('data-col'))];
  expect(c).toBe(1);
  expect(await readout.textContent()).toBe(`${await tip.locator('b').textContent()}: ${values[r][c].toFixed(4)}`);
  expect(await tip.getAttribute('aria-hidden')).toBe('true'); // the readout speaks; the tooltip is for the eyes

  const light = await axe(page, 'page (light)');
  expect(severe(light)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' }); // app.css's dark theme
  const dark = await axe(page, 'page (dark)');
  expect(severe(dark)).toEqual([]);
  await screenshot(page, 'page-dark');
  expect(errors).toEqual([]);
  await page.close();
});

it("the demo page's other views (every head at once, the beam tree, a modified model, the vectors): heatmaps are keyboard stops with tables; axe finds nothing serious, light or dark", async () => {
  const views = {
    'page, model view': '/web/index.html?s=i%20can%20eat%20apple&step=end&view=model',
    'page, beam search': '/web/index.html?s=i%20can%20eat%20apple&step=end&mode=beam&view=beam',
    'page, Multi30k model view, modified model': '/web/index.html?model=multi30k-en-de&step=2&view=model&mask=cross.0.1',
    'page, analyses: vectors': '/web/index.html?s=i%20can%20eat%20apple&step=end&an=vectors',
  };
  for (const [name, path] of Object.entries(views)) {
    const { page, errors } = await openPage(env, path);
    for (const m of await maps(page, false)) {
      expect([m.tabIndex, m.live, m.hidden], `${name}: ${m.label}`).toEqual([0, 'polite', true]);
      expect([m.rows.length, m.cols.length], `${name}: ${m.label}`).toEqual(m.grid);
    }
    expect(severe(await axe(page, `${name} (light)`)), name).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(severe(await axe(page, `${name} (dark)`)), name).toEqual([]);
    await screenshot(page, `a11y-${name.replace(/\W+/g, '-')}-dark`);
    expect(errors, name).toEqual([]);
    await page.close();
  }
});

it('the logit lens and the attribution card (its τ grids, this step\'s and the mean over steps 1–k): every cell\'s text readable on its colour; axe finds nothing serious, light or dark', async () => {
  const name = 'page, logit lens and attribution';
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-en-de&step=6');
  await page.evaluate(() => { for (const id of ['logit-lens', 'attribution']) document.getElementById(id).open = true; });
  await page.waitForSelector('#logit-lens[data-steps="6"]', { timeout: 30_000 });
  await page.waitForSelector('#attribution[data-step="5"][data-state="ready"]', { timeout: 60_000 });
  // Cells of every colour: the lens gives the chosen token probabilities from ~0 to ~1.
  const ps = await page.locator('#logit-lens td[data-p]').evaluateAll((tds) => tds.map((td) => Number(td.dataset.p)));
  expect(ps.length).toBeGreaterThan(12);
  expect(Math.max(...ps) - Math.min(...ps)).toBeGreaterThan(0.5);
  expect(await page.locator('#attribution .agreement-grid td[data-tau]').count()).toBeGreaterThan(0);
  // The second grid is the mean over the steps so far (step 6 of a longer sentence), and says so.
  expect((await page.locator('#attribution .agreement-grid caption').allTextContents()).map((c) => c.replace(/ \(.*\)$/, ''))).toEqual(['This step', 'Mean over steps 1–6']);
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    const run = await axe(page, `${name} (${scheme})`);
    expect(severe(run), `${name} (${scheme})`).toEqual([]);
    // axe checked these very cells (none left out as hidden or off screen).
    expect(await page.evaluate(() => document.querySelector('#logit-lens td[data-p]').checkVisibility())).toBe(true);
  }
  await page.locator('#logit-lens').scrollIntoViewIfNeeded();
  await screenshot(page, 'a11y-logit-lens-dark', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});

it('the page for encoder-only models (the MLM: fill-mask, pattern grid, shares, ablation map): heatmaps are keyboard stops with tables; axe finds nothing serious, light or dark', async () => {
  const name = 'page, encoder-only model';
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 1000 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/index.html?model=multi30k-en-mlm'));
  await page.waitForSelector('#encoder[data-renders]', { timeout: 60_000 });
  await page.evaluate(() => window.attnscope.idle());
  const shown = await maps(page, false);
  expect(shown.length, 'heatmaps on the encoder-only page').toBeGreaterThan(0);
  for (const m of shown) {
    expect([m.tabIndex, m.live, m.hidden], `${name}: ${m.label}`).toEqual([0, 'polite', true]);
    expect([m.rows.length, m.cols.length], `${name}: ${m.label}`).toEqual(m.grid);
  }
  expect(severe(await axe(page, `${name} (light)`)), name).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(severe(await axe(page, `${name} (dark)`)), name).toEqual([]);
  expect(errors, name).toEqual([]);
  await page.close();
});

it('the widget: Tab reaches its heatmap, arrows are read aloud, its table holds the numbers; axe finds nothing serious, light or dark', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 900 }, serviceWorkers: 'block', colorScheme: 'light' });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/blog.html'));
  await page.waitForFunction(() => [...document.querySelectorAll('attn-scope')].every((w) => w.snapshot?.done));
  const all = await maps(page, true);
  expect(all.length).toBe(await page.locator('attn-scope').count());
  for (const m of all) {
    expect([m.tabIndex, m.live, m.hidden]).toEqual([0, 'polite', true]);
    expect([m.rows.length, m.cols.length]).toEqual(m.grid);
  }
  // The first widget's table: "i can eat apple" -> "ich konnen apfel essen", 5 x 5.
  expect(all[0].cols.map((c) => c[2])).toEqual(['i', 'can', 'eat', 'apple', '</s>']);
  expect(all[0].rows.map((r) => r[2])).toEqual(['1) ich', '2) konnen', '3) apfel', '4) essen', '5) </s>']);
  for (const row of all[0].rows) expect(row.slice(3).reduce((a, t) => a + Number(t), 0)).toBeCloseTo(1, 3);

  // From the top of the page, Tab alone reaches the first widget's heatmap.
  await page.evaluate(() => document.activeElement?.blur());
  let reached = false;
  for (let i = 0; i < 20 && !reached; i++) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.id === 'first' && document.activeElement.shadowRoot.activeElement?.tagName === 'CANVAS');
  }
  expect(reached).toBe(true);
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowUp');
  const first = page.locator('#first');
  await expect.poll(() => first.locator('.hm-readout').textContent()).toMatch(/“essen”.*“i”: 0\.\d{4}$/);
  expect([await first.locator('.hm-tip').getAttribute('data-row'), await first.locator('.hm-tip').getAttribute('data-col')]).toEqual(['3', '0']);
  expect(await first.locator('.hm-readout').textContent()).toBe(`${await first.locator('.hm-tip b').textContent()}: ${all[0].rows[3][3]}`);

  const light = await axe(page, 'widget page web/blog.html (light)');
  expect(severe(light)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await axe(page, 'widget page web/blog.html (dark)');
  expect(severe(dark)).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
