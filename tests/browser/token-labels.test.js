// Tokens read the same in every view (web/app/util/pieces.js): a word-level model's tokens are
// words, with no marker anywhere; a BPE model's show as the words a person writes with "show
// subword pieces" off (no "▁"; a piece that continues a word, named alone, after "·"), and as the
// model's pieces, "▁" their one marker, with it on. Views read: the source chips, the output lines,
// the logits bars, the map's labels and tooltip, the beam tree, the compare panes and the widget.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, screenshot, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

// "afternoon" is cut in pieces by the Multi30k BPE (▁af tern o on.).
const SENTENCE = 'A man is riding a bicycle down the street in the afternoon.';
const special = (p) => /^<.*>$/.test(p);
/** How a BPE piece reads with pieces hidden, written out here as the page's help line says it. */
const asWord = (p) => (p.startsWith('▁') ? p.slice(1) : special(p) ? p : `·${p}`);

// A canvas' Heatmap sits under a registered symbol (web/app/views/heatmap.js heatmapOf).
const heatmapLabels = (page, host, sel) => page.evaluate(([h, s]) => {
  const root = h ? document.querySelector(h).shadowRoot : document;
  const spec = root.querySelector(s)[Symbol.for('attnscope.heatmap')].spec;
  return { rows: spec.rowLabels, cols: spec.colLabels, tip: spec.describe(spec.values.length - 1, 0) };
}, [host, sel]);

/** Every token label the page shows, by view, and the engine's tokens they stand for. */
async function readViews(page) {
  const snap = await page.evaluate(() => {
    const s = window.attnscope.snapshot;
    return { source: s.source.pieces, rows: s.rows.map((r) => [r.input, r.output]), top: s.rows.at(-1).top.map((a) => a.token), text: s.path.text };
  });
  const texts = (sel) => page.locator(sel).allTextContents();
  const views = {
    snap,
    chips: await texts('#source-tokens .tok'),
    // As drawn: the text, and anything CSS draws before it.
    lines: (await page.locator('#lines li').evaluateAll((lis) => lis.map((li) => ['.in', '.out'].map((c) => {
      const el = li.querySelector(c);
      const before = getComputedStyle(el, '::before').content;
      return (before === 'none' || before === 'normal' ? '' : JSON.parse(before)) + el.textContent;
    })))),
    bars: await texts('#bars .bar .tok'),
    barTokens: await page.locator('#bars .bar').evaluateAll((bs) => bs.map((b) => b.dataset.token)),
    caption: await page.textContent('#logits-caption .mono'),
    map: await heatmapLabels(page, null, '#heatmap canvas'),
    compare: await heatmapLabels(page, null, '.cv-pane[data-pane=other] canvas'),
  };
  await page.click('#tab-beam');
  await page.locator('.tree-scroll .node').first().waitFor();
  await idle(page);
  views.beam = await page.locator('.tree-scroll .node:not([display=none]) text:first-of-type').allTextContents();
  views.tree = await page.evaluate(() => window.attnscope.snapshot.tree.map((n) => [n.status, n.token]));
  await page.click('#tab-cross');
  await idle(page);
  return views;
}

const hasMarker = (labels) => labels.filter((l) => /▁|^·|\) ·/.test(l));
/** The beam tree's node labels (finished ones end in ✓), sorted; and the nodes it draws (the pruned are folded), as `label` shows them. */
const beamLabels = (v) => v.beam.map((l) => l.replace(/ ✓$/, '')).sort();
const drawnNodes = (v, label) => v.tree.filter(([status]) => status !== 'pruned').map(([, t]) => label(t)).sort();

it('shows a word-level model\'s tokens as words in every view, with no marker', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?model=toy-en-de&mode=beam&beam=2&step=end&compare=toy-en-de');
  await page.evaluate(() => window.attnscope.idle());
  expect(await page.isHidden('#pieces-line')).toBe(true);
  const v = await readViews(page);
  expect(v.chips).toEqual(v.snap.source);
  expect(v.lines).toEqual(v.snap.rows);
  expect(v.bars).toEqual(v.snap.top);
  expect(v.caption.split(' ')).toEqual(['<s>', ...v.snap.rows.slice(0, -1).map((r) => r[1])]);
  expect(v.map.cols).toEqual(v.snap.source);
  expect(v.map.rows).toEqual(v.snap.rows.map((r, k) => `${k + 1}) ${r[1]}`));
  expect(v.compare.cols).toEqual(v.snap.source);
  for (const labels of [v.chips, v.lines.flat(), v.bars, v.map.rows, v.map.cols, v.compare.rows, v.beam, [v.map.tip]]) expect(hasMarker(labels)).toEqual([]);
  expect(beamLabels(v)).toEqual(drawnNodes(v, (t) => t));
  expect(errors).toEqual([]);
  await page.close();
});

it('shows a BPE model\'s tokens as words with pieces hidden, and as pieces marked by ▁ when shown, in every view', async () => {
  const q = new URLSearchParams({ model: 'multi30k-en-de', s: SENTENCE, mode: 'beam', beam: '2', step: '14', compare: 'multi30k-en-de' });
  const { page, errors } = await openPage(env, `/web/index.html?${q}`);
  await page.evaluate(() => window.attnscope.idle());
  expect(await page.isVisible('#pieces-line')).toBe(true);
  let v = await readViews(page);
  expect(v.snap.source.some((p) => !p.startsWith('▁') && !special(p)), 'the sentence has a word cut in pieces').toBe(true);
  // Hidden: a run of tokens reads as the sentence; one token alone, without ▁ (·piece continues a word).
  expect(v.chips).toEqual([...SENTENCE.split(' '), '</s>']);
  expect(v.lines).toEqual(v.snap.rows.map((r) => r.map(asWord)));
  expect(v.bars).toEqual(v.barTokens.map(asWord));
  expect(v.caption.startsWith('<s> ')).toBe(true);
  expect(v.caption).not.toMatch(/▁|·/);
  expect(v.map.cols).toEqual(v.snap.source.map(asWord));
  expect(v.map.rows).toEqual(v.snap.rows.map((r, k) => `${k + 1}) ${asWord(r[1])}`));
  expect(v.compare).toEqual(v.map);
  expect(v.map.tip).not.toContain('▁');
  expect(beamLabels(v)).toEqual(drawnNodes(v, asWord));
  for (const labels of [v.chips, v.lines.flat(), v.bars, v.map.rows, v.map.cols, v.beam]) expect(labels.filter((l) => l.includes('▁'))).toEqual([]);
  await page.locator('#output-panel').scrollIntoViewIfNeeded();
  await screenshot(page, 'token-labels-words', { fullPage: false });
  // The Analyses card's vectors follow the rule too: the cosine map and the query picker.
  await page.click('#an-tab-vectors');
  await page.waitForSelector('#an-vectors[data-ready=true]', { timeout: 30_000 });
  await idle(page);
  const cosine = await heatmapLabels(page, null, '#cos-body canvas');
  const path = await page.evaluate(() => window.attnscope.snapshot.path.tokens);
  expect(cosine.rows).toEqual(v.snap.source.map(asWord));
  expect(cosine.cols).toEqual(path.map(asWord));
  expect(cosine.tip).not.toContain('▁');
  const queries = await page.locator('#fq-query option').allTextContents();
  expect(queries).toEqual(v.snap.source.map((p, i) => `${i}: ${asWord(p)}`));

  // Shown: the model's pieces as they are, ▁ the one marker (no "·" anywhere).
  await page.check('#pieces');
  await idle(page);
  v = await readViews(page);
  expect(v.chips).toEqual(v.snap.source);
  expect(v.lines).toEqual(v.snap.rows);
  expect(v.bars).toEqual(v.barTokens);
  expect(v.map.cols).toEqual(v.snap.source);
  expect(v.map.rows).toEqual(v.snap.rows.map((r, k) => `${k + 1}) ${r[1]}`));
  expect(v.compare).toEqual(v.map);
  expect(beamLabels(v)).toEqual(drawnNodes(v, (t) => t));
  for (const labels of [v.chips, v.lines.flat(), v.bars, v.map.rows, v.map.cols, v.beam]) expect(labels.filter((l) => l.includes('·'))).toEqual([]);
  expect(v.chips.filter((l) => l.startsWith('▁')).length).toBeGreaterThan(5);
  await screenshot(page, 'token-labels-pieces', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});

it('shows the widget\'s sentence and labels as words, for a word-level and a BPE model', async () => {
  const page = await env.browser.newPage({ viewport: { width: 900, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/blog.html'));
  const drawn = (src) => page.waitForFunction((s) => {
    const w = document.querySelector('#first');
    return w.snapshot?.done && w.snapshot.source.pieces.join(' ').replaceAll('▁', '').startsWith(s.slice(0, 5));
  }, src, { timeout: 60_000 });
  await drawn('i can eat apple');
  let labels = await heatmapLabels(page, '#first', 'canvas');
  expect(await page.locator('#first .sentence .s').textContent()).toBe('i can eat apple');
  expect(hasMarker([...labels.rows, ...labels.cols, labels.tip])).toEqual([]);

  await page.evaluate((s) => { const w = document.querySelector('#first'); w.setAttribute('model', 'multi30k-en-de'); w.setAttribute('src', s); }, SENTENCE);
  await drawn(SENTENCE);
  labels = await heatmapLabels(page, '#first', 'canvas');
  expect(await page.locator('#first .sentence .s').textContent()).toBe(SENTENCE);
  const source = await page.evaluate(() => document.querySelector('#first').snapshot.source.pieces);
  expect(labels.cols).toEqual(source.map(asWord));
  expect([...labels.rows, ...labels.cols, labels.tip].filter((l) => l.includes('▁'))).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
