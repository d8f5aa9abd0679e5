// Exported figures say what they show: 1-based layers and heads in titles, pickers, labels and
// file names (0-based in the URL and the API); long titles wrap instead of running off the
// picture; the model-view sheet carries its colour legend; every Analyses pane exports; each view's
// values export as CSV and JSON, the engine's numbers under the labels the view draws.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { idle, openPage, root, screenshot, shippedConfig, startBrowser } from './browser.js';
import { parseCsv } from './csv.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const open = (path, viewport) => openPage(env, path, { viewport, acceptDownloads: true });
const LONG = 'A little girl in a bright red coat is playing with her brown dog in the shallow water near the old wooden pier.';

async function exported(page, selector) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: d.suggestedFilename(), path: await d.path() };
}

/** Draws `svg` in a blank page; returns its width and the right edge of every title line. */
async function titleEdges(svg) {
  const view = await env.browser.newPage();
  await view.setContent(`<!doctype html><body style="margin:0">${svg}</body>`);
  const out = await view.evaluate(() => {
    const el = document.querySelector('svg');
    return { width: Number(el.getAttribute('width')), lines: [...el.querySelectorAll(':scope > text.title')].map((t) => { const b = t.getBBox(); return { text: t.textContent, right: b.x + b.width }; }) };
  });
  await view.close();
  return out;
}

it('labels heads and layers from 1 in titles, pickers, screen-reader labels and file names, and wraps long titles', async () => {
  // layer=1, head=3 in the URL (0-based): the second layer's fourth head.
  const config = shippedConfig('multi30k-en-de');
  const { page, errors } = await open(`/web/index.html?model=multi30k-en-de&s=${encodeURIComponent(LONG)}&step=4&view=cross&layer=1&head=3`);
  expect(await page.locator('#layer option:checked').textContent()).toMatch(/^2\b/);
  expect(await page.locator('#head option:checked').textContent()).toMatch(/^4\b/);
  expect(await page.locator('#heatmap canvas').getAttribute('aria-label')).toMatch(/^Cross-attention, layer 2, head 4: /);
  const svg = await exported(page, '[data-export=view][data-format=svg]');
  expect(svg.name).toBe('attnscope-multi30k-en-de-step4-cross-L2-H4.svg');
  const text = readFileSync(svg.path, 'utf8');
  const { width, lines } = await titleEdges(text);
  expect(lines.map((l) => l.text).join(' ')).toBe(`Cross-attention · layer 2 of ${config.n_decoder_layers} · head 4 of ${config.n_heads} · “${LONG}” · multi30k-en-de · step 4`);
  expect(lines.length).toBeGreaterThan(1);
  for (const l of lines) expect(l.right).toBeLessThanOrEqual(width);
  // The model-view sheet: its legend, and every title line inside the picture.
  await page.click('#tab-model');
  await idle(page);
  const sheet = await exported(page, '[data-export=view][data-format=svg]');
  expect(sheet.name).toBe('attnscope-multi30k-en-de-step4-model-cross.svg');
  const sheetText = readFileSync(sheet.path, 'utf8');
  expect(sheetText).toContain('<g class="legend"');
  expect(sheetText).toMatch(/<linearGradient id="sheet-legend">/);
  expect(sheetText).toContain('>attention weight</text>');
  const edges = await titleEdges(sheetText);
  for (const l of edges.lines) expect(l.right).toBeLessThanOrEqual(edges.width);
  const png = await exported(page, '[data-export=view][data-format=png]');
  expect(png.name).toBe('attnscope-multi30k-en-de-step4-model-cross.png');
  expect(readFileSync(png.path).subarray(1, 4).toString()).toBe('PNG');
  expect(errors).toEqual([]);
  await page.close();
});

const readJson = async (page, sel) => { const f = await exported(page, sel); return { name: f.name, json: JSON.parse(readFileSync(f.path, 'utf8')) }; };
const readCsv = async (page, sel) => { const f = await exported(page, sel); return { name: f.name, rows: parseCsv(readFileSync(f.path, 'utf8')) }; };

it('exports the logits chart with its whole title, and each view\'s values as CSV and JSON: the engine\'s numbers, named as drawn', async () => {
  const model = await loadModel(join(root, 'models/multi30k-en-de.safetensors'));
  const session = model.translate(LONG);
  const records = Array.from({ length: 4 }, () => session.step());
  const config = shippedConfig('multi30k-en-de');
  const { page, errors } = await open(`/web/index.html?model=multi30k-en-de&s=${encodeURIComponent(LONG)}&step=4&view=cross&layer=1&head=3`);

  // The logits chart's title, wrapped inside the picture.
  const svg = await exported(page, '[data-export=logits][data-format=svg]');
  expect(svg.name).toBe('attnscope-multi30k-en-de-step4-logits.svg');
  const { width, lines } = await titleEdges(readFileSync(svg.path, 'utf8'));
  expect(lines.map((l) => l.text).join(' ')).toBe(`Logits of step 4 · “${LONG}” · multi30k-en-de`);
  for (const l of lines) expect(l.right).toBeLessThanOrEqual(width);

  // The logits as data: every alternative the engine returned for step 4, named as the bars name them.
  const top = records[3].expansions[0].top;
  const bars = await page.locator('#bars .bar .tok').allTextContents();
  const logits = await readJson(page, '[data-export=logits][data-format=json]');
  expect(logits.name).toBe('attnscope-multi30k-en-de-step4-logits.json');
  expect(logits.json.alternatives.map((a) => [a.id, a.piece, a.logit, a.logProb, a.prob])).toEqual(top.map((a) => [a.id, a.token, a.logit, a.logProb, a.prob]));
  expect(logits.json.alternatives.map((a) => a.token)).toEqual(bars);
  const logitsCsv = await readCsv(page, '[data-export=logits][data-format=csv]');
  expect(logitsCsv.name).toBe('attnscope-multi30k-en-de-step4-logits.csv');
  expect(logitsCsv.rows[0]).toEqual(['rank', 'token', 'piece', 'id', 'logit', 'log-prob', 'probability', 'taken']);
  expect(logitsCsv.rows.slice(1).map((r) => [r[1], r[2], Number(r[3]), Number(r[4]), Number(r[5]), Number(r[6])])).toEqual(top.map((a, i) => [bars[i], a.token, a.id, a.logit, a.logProb, a.prob]));

  // The map (layer 2, head 4 of the cross-attention): every weight of every step, and its labels.
  const labels = await page.evaluate("import('/web/app/views/heatmap.js').then((m) => { const s = m.heatmapOf(document.querySelector('#heatmap canvas')).spec; return [s.rowLabels, s.colLabels]; })");
  const expected = Array.from({ length: 4 }, (_, k) => Array.from(session.crossAttention(k, { layer: 1, head: 3 }).data));
  const map = await readJson(page, '[data-export=view][data-format=json]');
  expect(map.name).toBe('attnscope-multi30k-en-de-step4-cross-L2-H4.json');
  expect(map.json.maps).toHaveLength(1);
  expect(map.json.maps[0]).toMatchObject({ site: 'cross', layer: 2, head: 4, value: 'attention weight', rows: labels[0], columns: labels[1] });
  expect(map.json.maps[0].values).toEqual(expected);
  const mapCsv = await readCsv(page, '[data-export=view][data-format=csv]');
  expect(mapCsv.name).toBe('attnscope-multi30k-en-de-step4-cross-L2-H4.csv');
  expect(mapCsv.rows[0]).toEqual(['site', 'layer', 'head', 'row', 'row label', 'column', 'column label', 'attention weight']);
  expect(mapCsv.rows.slice(1)).toEqual(expected.flatMap((row, r) => row.map((v, c) => ['cross', '2', '4', String(r + 1), labels[0][r], String(c + 1), labels[1][c], String(v)])));

  // The model view: every layer × head, counted from 1.
  await page.click('#tab-model');
  await idle(page);
  const sheet = await readJson(page, '[data-export=view][data-format=json]');
  expect(sheet.name).toBe('attnscope-multi30k-en-de-step4-model-cross.json');
  expect(sheet.json.maps.map((m) => [m.layer, m.head])).toEqual(Array.from({ length: config.n_decoder_layers * config.n_heads }, (_, i) => [Math.floor(i / config.n_heads) + 1, (i % config.n_heads) + 1]));
  for (const m of sheet.json.maps) {
    expect(m.values).toEqual(Array.from({ length: 4 }, (_, k) => Array.from(session.crossAttention(k, { layer: m.layer - 1, head: m.head - 1 }).data)));
  }

  // The beam tree: every candidate as the engine returned it.
  await page.click('#tab-beam');
  await page.locator('.tree-scroll .node').first().waitFor();
  const tree = await readJson(page, '[data-export=view][data-format=json]');
  expect(tree.name).toBe('attnscope-multi30k-en-de-step4-beam.json');
  expect(tree.json.nodes.map((n) => [n.id, n.parent ?? -1, n.piece, n.tokenId, n.logProb, n.score, n.status])).toEqual(
    session.beamTree().map((n) => [n.id, n.parent, n.token, n.tokenId, n.logProb, n.score, n.status]));

  // The rollout pane: the engine's rollout.
  const rollout = await readJson(page, '[data-export=analysis][data-format=json]');
  expect(rollout.name).toBe('attnscope-multi30k-en-de-rollout.json');
  expect(rollout.json.maps[0].values.flat()).toEqual(Array.from(session.rollout().data));
  session.dispose();
  model.dispose();
  expect(errors).toEqual([]);
  await page.close();
});

it('exports every Analyses pane as SVG and PNG', async () => {
  const { page, errors } = await open('/web/index.html?model=multi30k-en-de&step=3');
  const figures = { rollout: 1, vectors: 3, importance: 2, timeline: 1 }; // at least this many figures each
  for (const an of Object.keys(figures)) {
    await page.click(`#an-tab-${an}`);
    await idle(page);
    if (an === 'vectors') await page.locator('#pca-body svg').first().waitFor({ timeout: 30_000 });
    if (an === 'importance') await page.locator('#pre-results canvas').first().waitFor({ timeout: 30_000 });
    if (an === 'timeline') await page.locator('#an-timeline canvas').first().waitFor({ timeout: 60_000 });
    const svg = await exported(page, '[data-export=analysis][data-format=svg]');
    expect(svg.name).toBe(`attnscope-multi30k-en-de-${an}.svg`);
    const text = readFileSync(svg.path, 'utf8');
    expect(text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const drawn = (text.match(/<g transform="translate\(/g) ?? []).length + (text.match(/<svg [^>]*x="/g) ?? []).length;
    expect(drawn, an).toBeGreaterThanOrEqual(figures[an]);
    const png = await exported(page, '[data-export=analysis][data-format=png]');
    expect(png.name).toBe(`attnscope-multi30k-en-de-${an}.png`);
    expect(readFileSync(png.path).subarray(1, 4).toString()).toBe('PNG');
  }
  await page.locator('#analyses').scrollIntoViewIfNeeded();
  await screenshot(page, 'exports-analyses', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});

it('states in docs/embed.md that the widget\'s layer and head attributes count from 0', () => {
  const readme = readFileSync(join(root, 'docs/embed.md'), 'utf8');
  expect(readme).toMatch(/`layer`, `head` \(a number or `mean`; \*\*0-based\*\*/);
});
