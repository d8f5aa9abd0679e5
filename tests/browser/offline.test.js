// Offline after the first load: the service worker (web/sw.js) caches the page, its modules,
// the WebAssembly engine and the model; with the server gone, a reload still translates.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { root, screenshot, startBrowser } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

it('works offline once loaded: the server stops, the page reloads and still translates', async () => {
  const context = await env.browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  const url = env.url('/web/index.html?s=we+can+eat+bread&step=end');
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#app')?.dataset.done === 'true', null, { timeout: 30_000 });
  // Wait until the service worker has installed (precached) and controls the page.
  await page.waitForFunction(() => navigator.serviceWorker?.controller?.state === 'activated', null, { timeout: 30_000 });

  // Take the network away for real: stop the server.
  env.server.closeAllConnections();
  await new Promise((ok) => env.server.close(ok));
  const direct = await page.evaluate(() => fetch('/web/index.html?probe', { cache: 'no-store' }).then((r) => r.status, (e) => String(e)));
  expect(direct).toBe(200); // answered by the service worker's cache

  await page.reload();
  await page.waitForFunction(() => document.querySelector('#app')?.dataset.done === 'true', null, { timeout: 30_000 });
  expect(await page.textContent('#translation')).toBe('wir konnen brot essen');
  expect(await page.locator('#heatmap canvas').count()).toBe(1);
  await screenshot(page, 'page-offline');
  await context.close();
});

it('precaches every module of the page and the widget (a module missing there breaks the first offline reload)', () => {
  const sw = readFileSync(join(root, 'web/sw.js'), 'utf8');
  const shell = sw.slice(sw.indexOf('const SHELL'), sw.indexOf('];'));
  const modules = ['app', 'api', 'widget'].flatMap((dir) => readdirSync(join(root, 'web', dir), { recursive: true }).filter((f) => /\.(js|css)$/.test(f)).map((f) => `${dir}/${f}`));
  // And web/'s own modules, but for the service worker and the package's one-file builds (widget.js,
  // worker.js: build outputs the page never loads).
  modules.push(...readdirSync(join(root, 'web')).filter((f) => f.endsWith('.js') && !['sw.js', 'widget.js', 'worker.js'].includes(f)));
  expect(modules.filter((m) => !shell.includes(`'${m}'`))).toEqual([]);
});
