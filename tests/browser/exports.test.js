// Exported figures say what they show: 1-based layers and heads in titles, pickers, labels and
// file names (0-based in the URL and the API); long titles wrap instead of running off the
// picture; the model-view sheet carries its colour legend; every Analyses pane exports.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, root, screenshot, shippedConfig, startBrowser } from './browser.js';

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
