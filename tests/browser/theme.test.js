// Theming the widget (docs/embed.md, Theming): its --attnscope-* custom properties and ::part()s
// reach the shadow DOM's computed styles, and prefers-color-scheme: dark switches its defaults
// (a page's own property still wins); the heatmap canvas redraws its labels in the theme's colour.
// The demo page has a dark theme too (web/app/app.css).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPage, screenshot, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Themed widgets</title>
<script type="module" src="/web/widget/attn-scope.js"></script>
<style>
  attn-scope.custom { --attnscope-color: rgb(200, 0, 0); --attnscope-background: rgb(250, 240, 230); --attnscope-font-size: 20px;
    --attnscope-font-family: Georgia, serif; }
  attn-scope.custom::part(figure) { border-color: rgb(0, 128, 0); }
  attn-scope.custom::part(title) { text-decoration: underline; }
</style>
<main>
<attn-scope id="plain" src="i can eat apple"></attn-scope>
<attn-scope id="custom" class="custom" src="i can eat apple"></attn-scope>
</main>`;

/** Computed styles inside a widget's shadow root: {selector: {property: value}}. */
const styles = (page, id, wanted) => page.evaluate(([id, wanted]) => {
  const root = document.getElementById(id).shadowRoot;
  const out = {};
  for (const [sel, props] of Object.entries(wanted)) {
    const cs = getComputedStyle(sel === ':host' ? root.host : root.querySelector(sel));
    out[sel] = Object.fromEntries(props.map((p) => [p, cs.getPropertyValue(p)]));
  }
  return out;
}, [id, wanted]);

/**
 * The mean RGB of the row labels' inked pixels on a heatmap canvas (0 dark … 255 light): a
 * widget's (its id) or the page's main map (null).
 */
const labelInk = (page, id) => page.evaluate((id) => {
  const canvas = id ? document.getElementById(id).shadowRoot.querySelector('canvas') : document.querySelector('#heatmap canvas');
  const grid = JSON.parse(canvas.dataset.grid);
  const dpr = canvas.width / parseFloat(canvas.style.width);
  const data = canvas.getContext('2d').getImageData(0, Math.round(grid.y * dpr), Math.round((grid.x - 4) * dpr), Math.round(grid.ch * grid.rows * dpr)).data;
  let sum = 0; let n = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 200) { sum += (data[i] + data[i + 1] + data[i + 2]) / 3; n++; }
  if (!n) throw new Error('no label pixels');
  return sum / n;
}, id);

it('custom properties and ::part restyle the widget; prefers-color-scheme: dark switches its defaults', async () => {
  const page = await env.browser.newPage({ viewport: { width: 900, height: 900 }, serviceWorkers: 'block', colorScheme: 'light' });
  const errors = watchErrors(page);
  await page.route('**/theme-test.html', (r) => r.fulfill({ contentType: 'text/html; charset=utf-8', body: PAGE }));
  await page.goto(env.url('/theme-test.html'));
  await page.waitForFunction(() => [...document.querySelectorAll('attn-scope')].every((w) => w.snapshot?.done));
  const WANT = { ':host': ['font-size', 'font-family'], figure: ['background-color', 'border-top-color'], '.title': ['color', 'text-decoration-line'], '.sentence b': ['color'] };

  // Light defaults.
  const light = await styles(page, 'plain', WANT);
  expect(light.figure).toEqual({ 'background-color': 'rgb(255, 255, 255)', 'border-top-color': 'rgb(208, 215, 222)' });
  expect(light['.title'].color).toBe('rgb(31, 35, 40)');
  expect(light[':host']['font-size']).toBe('14px');
  const lightInk = await labelInk(page, 'plain');
  expect(lightInk).toBeLessThan(110); // dark labels on a light card

  // The page's properties and parts.
  const custom = await styles(page, 'custom', WANT);
  expect(custom.figure).toEqual({ 'background-color': 'rgb(250, 240, 230)', 'border-top-color': 'rgb(0, 128, 0)' });
  expect(custom['.title']).toEqual({ color: 'rgb(200, 0, 0)', 'text-decoration-line': 'underline' });
  expect(custom['.sentence b'].color).toBe('rgb(200, 0, 0)');
  expect(custom[':host']).toEqual({ 'font-size': '20px', 'font-family': 'Georgia, serif' });

  // Dark: the defaults change, the page's own property still wins, the canvas redraws its labels.
  await page.emulateMedia({ colorScheme: 'dark' });
  const dark = await styles(page, 'plain', WANT);
  expect(dark.figure).toEqual({ 'background-color': 'rgb(13, 17, 23)', 'border-top-color': 'rgb(61, 68, 77)' });
  expect(dark['.title'].color).toBe('rgb(230, 237, 243)');
  await expect.poll(() => labelInk(page, 'plain')).toBeGreaterThan(160); // light labels on a dark card
  const customDark = await styles(page, 'custom', WANT);
  expect(customDark['.title'].color).toBe('rgb(200, 0, 0)');
  expect(customDark.figure['background-color']).toBe('rgb(250, 240, 230)');
  await screenshot(page, 'widget-dark');

  await page.emulateMedia({ colorScheme: 'light' });
  expect((await styles(page, 'plain', WANT)).figure['background-color']).toBe('rgb(255, 255, 255)');
  await expect.poll(() => labelInk(page, 'plain')).toBeLessThan(110);
  expect(errors).toEqual([]);
  await page.close();
});

it('every custom property and part the manifest lists is in the widget and in docs/embed.md', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { root } = await import('./browser.js');
  const [decl] = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8')).modules[0].declarations;
  const source = readFileSync(join(root, 'web/widget/attn-scope.js'), 'utf8');
  const readme = readFileSync(join(root, 'docs/embed.md'), 'utf8');
  expect(decl.cssProperties.length).toBeGreaterThan(10);
  for (const { name } of decl.cssProperties) {
    expect(source, name).toContain(`var(${name},`);
    expect(readme, name).toContain(`\`${name}\``);
  }
  // And the widget reads no --attnscope-* property the manifest does not list.
  const used = new Set(source.match(/--attnscope-[\w-]+/g));
  expect([...used].sort()).toEqual(decl.cssProperties.map((p) => p.name).sort());
  for (const { name } of decl.cssParts) expect(readme, name).toContain(`\`${name}\``);
});

it("the demo page follows prefers-color-scheme: app.css's colours are properties with dark values", async () => {
  const { page, errors } = await openPage(env, '/web/index.html');
  const look = () => page.evaluate(() => {
    const cs = (sel) => getComputedStyle(document.querySelector(sel));
    return { page: cs('html').backgroundColor, card: cs('.card').backgroundColor, text: cs('.card').color, input: cs('input[type=text]').backgroundColor };
  });
  expect(await look()).toEqual({ page: 'rgb(246, 248, 250)', card: 'rgb(255, 255, 255)', text: 'rgb(31, 35, 40)', input: 'rgb(255, 255, 255)' });
  expect(await labelInk(page, null)).toBeLessThan(110);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await look()).toEqual({ page: 'rgb(1, 4, 9)', card: 'rgb(13, 17, 23)', text: 'rgb(230, 237, 243)', input: 'rgb(13, 17, 23)' });
  await expect.poll(() => labelInk(page, null)).toBeGreaterThan(160);
  expect(errors).toEqual([]);
  await page.close();
});
