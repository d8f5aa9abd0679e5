// The documentation's one-tag embed (README.md, docs/embed.md), from the package as npm packs it:
// one server plays the CDN (serves the unpacked tarball under /npm/attnscope@VERSION/ with CORS,
// as jsDelivr does), another on another port serves the blog post, without COOP/COEP. The widget
// renders without a CSP and under the documented policy; dropping any one source from that policy
// breaks it (the policy is minimal), and the policy raises no violation while the widget works.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { docBlock } from '../js/doc-blocks.js';
import { packed } from '../js/pack.js';
import { CHROMIUM_FLAGS, FROZEN_TOY, root, screenshot, watchErrors } from './browser.js';

const README_CDN = 'https://cdn.jsdelivr.net';
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const TYPES = { '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json' };

let cdn;
let blog;
let browser;
let unpacked;
const pages = new Map(); // path -> {html, csp}

/** The documented block after `<!-- MARKER -->` (README.md and docs/*.md; every copy the same). */
function readmeBlock(marker) {
  return docBlock(marker).trim();
}

const listen = (server) => new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(`http://127.0.0.1:${server.address().port}`)));
const close = (server) => { server?.closeAllConnections?.(); return new Promise((ok) => (server ? server.close(ok) : ok())); };

beforeAll(async () => {
  ({ unpacked } = packed());
  const prefix = `/npm/attnscope@${pkg.version}/`;
  cdn = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    // The packed toy is what ships; the translation asserted here is the frozen toy's (see browser.js).
    const file = path === `${prefix}models/toy-en-de.safetensors` ? FROZEN_TOY : normalize(join(unpacked, path.slice(prefix.length)));
    let size = -1;
    try { if (path.startsWith(prefix) && (file === FROZEN_TOY || file.startsWith(unpacked + sep))) size = statSync(file).size; } catch { /* 404 */ }
    if (size < 0) { res.writeHead(404, { 'access-control-allow-origin': '*' }).end(); return; }
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': size });
    createReadStream(file).pipe(res);
  });
  blog = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (path === '/favicon.ico') { res.writeHead(204).end(); return; }
    const page = pages.get(path);
    if (!page) { res.writeHead(404).end(); return; }
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    if (page.csp) headers['content-security-policy'] = page.csp;
    res.writeHead(200, headers).end(page.html);
  });
  cdn.origin = await listen(cdn);
  blog.origin = await listen(blog);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
});
afterAll(async () => {
  await browser?.close();
  await close(cdn);
  await close(blog);
});

/** The README's snippet, pointed at the local CDN. */
function snippet() {
  const html = readmeBlock('embed:cdn');
  expect(html).toContain(`${README_CDN}/npm/attnscope@${pkg.version}/web/widget.js`);
  return html.replaceAll(README_CDN, cdn.origin);
}
const policy = () => readmeBlock('embed:csp').replaceAll(README_CDN, cdn.origin);

const post = (body) => `<!doctype html><meta charset="utf-8"><title>A blog elsewhere</title><article><p>Some prose.</p>\n${body}\n</article>`;

/** Opens the post; collects CSP violations of the page (its worker inherits the policy). */
async function open(path, html, csp) {
  pages.set(path, { html: post(html), csp });
  const page = await browser.newPage({ viewport: { width: 900, height: 600 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  await page.goto(`${blog.origin}${path}`);
  return { page, errors };
}

async function expectRendered(page, errors) {
  await page.waitForFunction(() => document.querySelector('attn-scope')?.snapshot?.done === true || document.querySelector('attn-scope')?.shadowRoot.querySelector('.fallback:not([hidden]), .error:not([hidden])'), null, { timeout: 30_000 });
  const why = await page.evaluate(() => [...document.querySelector('attn-scope').shadowRoot.querySelectorAll('.fallback:not([hidden]), .error:not([hidden])')].map((e) => e.textContent.trim()));
  expect({ why, errors, violations: await page.evaluate(() => window.__violations) }).toEqual({ why: [], errors: [], violations: [] });
  await page.waitForFunction(() => document.querySelector('attn-scope')?.snapshot?.done === true, null, { timeout: 30_000 });
  const w = page.locator('attn-scope');
  expect(await w.locator('.sentence b').textContent()).toBe('ich konnen apfel essen');
  const grid = JSON.parse(await w.locator('canvas').getAttribute('data-grid'));
  expect([grid.rows, grid.cols]).toEqual([5, 5]);
  expect(await w.locator('.fallback').isHidden()).toBe(true);
  // The package ships no demo page: no "explore" link that would lead nowhere.
  expect(await w.locator('a.open').isHidden()).toBe(true);
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(false);
}

it("renders the README's one-tag snippet from a CDN origin, without COOP/COEP or a CSP", async () => {
  expect(cdn.origin).not.toBe(blog.origin);
  const { page, errors } = await open('/post.html', snippet());
  await expectRendered(page, errors);
  // Everything came from the CDN: the two modules, the engine and the model.
  const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name));
  expect(fetched).toContain(`${cdn.origin}/npm/attnscope@${pkg.version}/web/widget.js`);
  await screenshot(page, 'cdn-widget');
  expect(errors).toEqual([]);
  await page.close();
});

it("renders under the README's strict Content-Security-Policy, with no violation", async () => {
  const csp = policy();
  expect(csp).toMatch(/^default-src 'none'; /);
  const { page, errors } = await open('/csp.html', snippet(), csp);
  await expectRendered(page, errors);
  expect(await page.evaluate(() => window.__violations)).toEqual([]);
  await screenshot(page, 'cdn-widget-csp');
  expect(errors).toEqual([]);
  await page.close();
});

it('breaks when any one source is dropped from that policy (it is minimal)', async () => {
  const full = policy();
  const cuts = [
    // [what is dropped, the policy without it, the reason the widget gives]
    ["'wasm-unsafe-eval'", full.replace(" 'wasm-unsafe-eval'", ''), /WebAssembly\.instantiate\(\).*Content Security [Pp]olicy/],
    ['worker-src blob:', full.replace('worker-src blob: ', 'worker-src '), /the engine's worker failed/],
    ['worker-src the CDN', full.replace(`worker-src blob: ${cdn.origin}`, 'worker-src blob:'), /the engine's worker failed/],
    ['connect-src', full.replace(`; connect-src ${cdn.origin}`, ''), /could not start the attnscope WebAssembly engine: Failed to fetch/],
    ['script-src the CDN', full.replace(`script-src ${cdn.origin} `, 'script-src '), null],
  ];
  // (The worker's own violations are reported in the worker, not to the page: the reason is the proof.)
  for (const [i, [what, csp, reason]] of cuts.entries()) {
    expect(csp, what).not.toBe(full);
    const { page } = await open(`/cut-${i}.html`, snippet(), csp);
    if (what === 'script-src the CDN') {
      // The module never runs: the element stays undefined and the browser shows its text.
      await page.waitForLoadState('load');
      expect(await page.evaluate(() => customElements.get('attn-scope')), what).toBeUndefined();
      expect(await page.locator('attn-scope').innerText(), what).toMatch(/^Attention heatmap of “i can eat apple”/);
    } else {
      // The widget runs but its engine cannot start: it shows the author's fallback with the reason.
      const fallback = page.locator('attn-scope .fallback');
      await fallback.waitFor({ state: 'visible', timeout: 30_000 });
      expect(await fallback.locator('.why').textContent(), what).toMatch(reason);
      expect(await page.evaluate(() => document.querySelector('attn-scope').snapshot), what).toBeNull();
    }
    await page.close();
  }
});
