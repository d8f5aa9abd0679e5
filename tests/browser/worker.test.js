// The npm package in a real browser: streaming instantiation, inside a module Web Worker.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBrowser } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

it('translates inside a Web Worker, with errors arriving as Errors', async () => {
  const page = await env.browser.newPage();
  const wasmRequests = [];
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasmRequests.push(r.url()); });
  const console = [];
  page.on('console', (m) => console.push(m.text()));
  page.on('worker', (w) => w.on('console', (m) => console.push(m.text())));
  await page.goto(env.url('/tests/browser/fixtures/worker.html'));
  const result = await page.waitForFunction(() => window.result, null, { timeout: 60_000 }).then((h) => h.jsonValue());
  expect(result.error).toMatch(/^AttnscopeError: the sentence is empty/);
  expect(result.translation).toBe('ich konnen apfel essen');
  expect(result.cross).toHaveLength(5);
  expect(result.bytes).toBeGreaterThan(100_000);
  expect(wasmRequests).toHaveLength(1);
  // Emscripten says "falling back to ArrayBuffer instantiation" when streaming fails.
  expect(console.filter((m) => /streaming|falling back/.test(m))).toEqual([]);
  await page.close();
});
