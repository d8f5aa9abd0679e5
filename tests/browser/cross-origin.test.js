// The documentation's cross-origin recipe (<!-- embed:cross-origin -->: README.md, docs/embed.md),
// as printed, against `npm start`'s server (web/serve.mjs) on one port and a host page served from
// another: the widget renders; when its model cannot load it shows the author's fallback text with
// the reason; when its script cannot load, the browser shows that text.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { docBlock } from '../js/doc-blocks.js';
import { CHROMIUM_FLAGS, root, screenshot, watchErrors } from './browser.js';

const README_ORIGIN = 'http://127.0.0.1:8080';
let demo; // the `npm start` server: {child, origin}
let host; // the embedding site, another port
let browser;
const pages = new Map(); // path -> html of the host site

/** The documented cross-origin html block (README.md, docs/embed.md): its script points at README_ORIGIN. */
function recipe() {
  const block = docBlock('embed:cross-origin');
  expect(block, 'the recipe loads the widget from npm start\'s server').toContain(`${README_ORIGIN}/web/widget/attn-scope.js`);
  return block;
}

beforeAll(async () => {
  // As `npm start` runs it (web/wasm is built), on a free port; the URL it prints is the origin.
  const child = spawn(process.execPath, ['web/serve.mjs', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const printed = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/(http:\/\/[\d.]+:\d+)\//);
      if (m) ok(m[1]);
    });
    child.once('exit', (code) => fail(new Error(`web/serve.mjs exited (${code}): ${out}`)));
  });
  demo = { child, origin: printed };
  host = createServer((req, res) => {
    const html = pages.get(new URL(req.url, 'http://x').pathname);
    if (!html) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise((ok) => host.listen(0, '127.0.0.1', ok));
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
});
afterAll(async () => {
  await browser?.close();
  host?.closeAllConnections?.();
  await new Promise((ok) => (host ? host.close(ok) : ok()));
  demo?.child.kill();
});

const hostUrl = (path) => `http://127.0.0.1:${host.address().port}${path}`;
const post = (body) => `<!doctype html><meta charset="utf-8"><title>A blog elsewhere</title><link rel="icon" href="data:,"><article><p>Some prose.</p>\n${body}\n</article>`;

it('renders the README recipe from another origin with npm start\'s server', async () => {
  expect(new URL(demo.origin).port).not.toBe(String(host.address().port));
  pages.set('/post.html', post(recipe().replaceAll(README_ORIGIN, demo.origin)));
  const page = await browser.newPage({ viewport: { width: 900, height: 700 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(hostUrl('/post.html'));
  await page.waitForFunction(() => document.querySelector('attn-scope')?.snapshot?.done === true, null, { timeout: 30_000 });
  const w = page.locator('attn-scope');
  expect(await w.locator('.sentence b').textContent()).toBe('ich konnen apfel essen');
  const grid = JSON.parse(await w.locator('canvas').getAttribute('data-grid'));
  expect([grid.rows, grid.cols]).toEqual([5, 5]);
  expect(await w.locator('.fallback').isHidden()).toBe(true);
  // The author's fallback text is not shown once the widget works.
  expect(await page.locator('article').innerText()).not.toMatch(/needs JavaScript/);
  await screenshot(page, 'cross-origin-widget');
  expect(errors).toEqual([]);
  await page.close();
});

it('shows the fallback text with the reason when the model cannot load, and the browser shows it when the script cannot', async () => {
  const block = recipe().replaceAll(README_ORIGIN, demo.origin).replace('model="toy-en-de"', `model="${demo.origin}/models/no-such-model.safetensors"`);
  pages.set('/broken-model.html', post(block));
  const page = await browser.newPage({ viewport: { width: 900, height: 500 }, serviceWorkers: 'block' });
  await page.goto(hostUrl('/broken-model.html'));
  const fallback = page.locator('attn-scope .fallback');
  await fallback.waitFor({ state: 'visible', timeout: 30_000 });
  // The fallback box shows the author's text (slotted from the element) and the reason.
  const slotted = await page.locator('attn-scope').evaluate((el) => el.shadowRoot.querySelector('.fallback slot').assignedNodes().map((n) => n.textContent).join('').trim());
  expect(slotted).toMatch(/^Attention heatmap of “i can eat apple” \(needs JavaScript/);
  expect(await fallback.locator('.why').textContent()).toBe(`cannot fetch model '${demo.origin}/models/no-such-model.safetensors': HTTP 404`);
  expect(await page.locator('attn-scope .error').isHidden()).toBe(true);
  expect(await page.locator('attn-scope canvas').isVisible()).toBe(false);
  await screenshot(page, 'cross-origin-widget-fallback');
  await page.close();

  // No server on that port: the module never loads, the element stays undefined, its text shows.
  const dead = createServer();
  await new Promise((ok) => dead.listen(0, '127.0.0.1', ok));
  const deadOrigin = `http://127.0.0.1:${dead.address().port}`;
  await new Promise((ok) => dead.close(ok));
  pages.set('/no-script.html', post(recipe().replaceAll(README_ORIGIN, deadOrigin)));
  const page2 = await browser.newPage({ viewport: { width: 900, height: 300 }, serviceWorkers: 'block' });
  await page2.goto(hostUrl('/no-script.html'));
  await page2.waitForLoadState('load');
  expect(await page2.locator('attn-scope').innerText()).toMatch(/^Attention heatmap of “i can eat apple” \(needs JavaScript/);
  await page2.close();
});
