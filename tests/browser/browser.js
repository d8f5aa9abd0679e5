// Debian's Chromium driven by playwright-core (never a downloaded browser), and the static server.
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { SERVED_FOLDERS, TEST_FOLDERS, serve } from '../../web/serve.mjs';

// --disable-features: each new window of headless Chromium 156 otherwise preloads its own
// "top chrome" WebUI (the omnibox popup, chrome://omnibox-popup.top-chrome) in a renderer of its
// own: ~2.4 s of CPU per new context, on the same 2 cores as the page under test. A cold load of
// the page measured 2.3-2.8 s with it and 1.1-1.6 s without (build/trace: a Chromium trace of a
// cold load). It is the browser's own UI, not the page, and a browser already open has it.
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run',
  '--disable-features=PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup'];

export const root = resolve(import.meta.dirname, '../..');
/** Screenshots and other test artefacts (gitignored). */
export const artifacts = join(root, 'tests/artifacts');

/**
 * The toy model frozen when the expected translations were made (tests/models/). The test server
 * answers the page's (and its workers') requests for the shipped models/toy-en-de.safetensors with
 * it, and the tests load it in Node to compare: `models/train/train.py toy` rewrites models/.
 */
export const FROZEN_TOY = join(root, 'tests/models/toy-en-de.frozen.safetensors');
/** The JSON header of a .safetensors file (its bytes) and the header's length in bytes. */
export function safetensorsHeader(bytes) {
  const n = Number(bytes.readBigUInt64LE(0));
  return { header: JSON.parse(bytes.subarray(8, 8 + n).toString('utf8')), n };
}

/**
 * The config of the shipped models/<id>.safetensors, from its metadata. Tests that count layers
 * and heads read them here, so that shipping a model of another shape changes no test.
 */
export function shippedConfig(id) {
  return JSON.parse(safetensorsHeader(readFileSync(join(root, `models/${id}.safetensors`))).header.__metadata__.config);
}

const SHIPPED_TOY_URL = '/models/toy-en-de.safetensors';
const FROZEN_TOY_URL = '/tests/models/toy-en-de.frozen.safetensors';

function serveFrozenToy(server) {
  const handlers = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    // A target that is no URL (`//`, a bad escape) goes through as it came: the server answers 400.
    const url = URL.parse(req.url, 'http://x');
    if (url?.pathname === SHIPPED_TOY_URL) req.url = FROZEN_TOY_URL + url.search;
    for (const h of handlers) h.call(server, req, res);
  });
}

/**
 * Random-weight RNN models of tests/golden/rnn/ (models/goldens/make_rnn_goldens.py, the toy grammar's
 * vocabulary), offered to a page under these ids by withGoldenRnns: values tests can check
 * against the engine, whatever the trained RNNs of models/ become.
 */
export const GOLDEN_RNNS = [
  { id: 'test-rnn-bahdanau', file: '../tests/golden/rnn/gru_bahdanau_additive.safetensors', label: 'Test RNN · GRU, Bahdanau additive (random weights)', example: 'i can eat apple', group: 'Test RNNs' },
  { id: 'test-rnn-luong', file: '../tests/golden/rnn/lstm_luong_dot_feed_local.safetensors', label: 'Test RNN · bi-LSTM, Luong dot, local, input feeding (random weights)', example: 'i can eat apple', group: 'Test RNNs' },
  { id: 'test-rnn-none', file: '../tests/golden/rnn/gru_none.safetensors', label: 'Test RNN · GRU, no attention (random weights)', example: 'i can eat apple', group: 'Test RNNs' },
];

/**
 * Makes `page` see web/models.js with GOLDEN_RNNS appended (the manifest as served, plus one
 * push): the page and its widgets then accept those ids in their URLs and attributes.
 */
export async function withGoldenRnns(page) {
  await page.route((url) => url.pathname === '/web/models.js', async (route) => {
    const response = await route.fetch();
    const body = `${await response.text()}\nmodels.push(...${JSON.stringify(GOLDEN_RNNS)});\n`;
    await route.fulfill({ response, body, headers: { ...response.headers(), 'content-length': String(Buffer.byteLength(body)) } });
  });
}

export async function startBrowser() {
  // What `npm start` serves, and the frozen toy, the golden RNNs and the fixture pages.
  const server = await serve({ port: 0, folders: [...SERVED_FOLDERS, ...TEST_FOLDERS] });
  serveFrozenToy(server);
  const { port } = server.address();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  return {
    browser,
    server,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    async close() {
      await browser.close();
      server.closeAllConnections?.();
      await new Promise((ok) => server.close(ok));
    },
  };
}

/**
 * Saves a screenshot as tests/artifacts/NAME.png; returns its path. Full page by default (scrolled
 * to the top first, so sticky parts sit where they belong); {fullPage: false} keeps the viewport
 * as it is (a hover tooltip, say).
 */
export async function screenshot(page, name, { fullPage = true } = {}) {
  mkdirSync(artifacts, { recursive: true });
  const path = join(artifacts, `${name}.png`);
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path, fullPage });
  return path;
}

/** Moves the mouse over cell (row, col) of a heatmap canvas (its data-grid says where cells are). */
export async function hoverCell(page, canvas, row, col) {
  await canvas.scrollIntoViewIfNeeded();
  const grid = JSON.parse(await canvas.getAttribute('data-grid'));
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + grid.x + (col + 0.5) * grid.cw, box.y + grid.y + (row + 0.5) * grid.ch);
  return grid;
}

/**
 * Collects page errors, console errors and failed requests of a page and its workers (a download
 * the page makes of its own blob: URL is no request of the network's).
 */
export function watchErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => {
    if (!r.url().startsWith('blob:') && !r.url().startsWith('data:')) errors.push(`requestfailed: ${r.method()} ${r.url()} (${r.failure()?.errorText})`);
  });
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  page.on('worker', (w) => w.on('console', (m) => { if (m.type() === 'error') errors.push(`worker: ${m.text()}`); }));
  return errors;
}

/**
 * Waits until the demo page has no engine request in flight (and has rendered at least once),
 * its URL is up to date (a step's answer writes it a moment later: web/app/main.js) and every
 * heatmap's table holds its map (filled after the frame that shows the map: web/app/views/heatmap.js).
 */
export async function idle(page) {
  await page.waitForFunction(() => {
    const app = document.querySelector('#app');
    return app?.dataset.busy === 'false' && Number(app.dataset.renders) > 0 && !app.dataset.urlPending
      && !document.querySelector('[data-table-pending]'); // (a heatmap's table follows its frame)
  }, null, { timeout: 30_000 });
}

/** A fresh demo page at `path` (service workers blocked: the offline test has its own). */
export async function openPage(env, path, { viewport = { width: 1280, height: 900 }, acceptDownloads = false, goldenRnns = false, wait = true } = {}) {
  const page = await env.browser.newPage({ viewport, serviceWorkers: 'block', acceptDownloads });
  const errors = watchErrors(page);
  if (goldenRnns) await withGoldenRnns(page);
  await page.goto(env.url(path));
  if (wait) await idle(page); // (wait: false for a page that waits on the reader first)
  return { page, errors };
}

/**
 * Opens the page on a model file of another origin (`?model-url=URL`, after `query`, e.g.
 * `s=…&`), agrees to load it and waits until it is the page's model. `init` runs in the page
 * before its scripts. Returns { page, errors, loadSeconds } (from the reader's click to loaded).
 */
export async function openModelUrl(env, url, { query = '', init, timeout = 180_000 } = {}) {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  if (init) await page.addInitScript(init);
  await page.goto(env.url(`/web/index.html?${query}model-url=${encodeURIComponent(url)}`));
  await idle(page);
  const start = Date.now();
  await page.click('#notice button'); // the reader agrees to load a file of another origin
  await page.waitForFunction((want) => window.attnscope.state.model === want && window.attnscope.snapshot?.url === want, url, { timeout });
  await idle(page);
  return { page, errors, loadSeconds: (Date.now() - start) / 1000 };
}
