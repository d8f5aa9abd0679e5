// A load of the demo page asks the network only for what it shows: no HEAD request per model for
// the picker's sizes (they come with the page's bundle, measured from the files when it is built:
// web/build-page.mjs), and no request fails.
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { modelUrl, models } from '../../web/models.js';
import { formatBytes } from '../../web/app/worker/client.js';
import { idle, screenshot, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

it('loads with no HEAD request and no failed request, and shows each model\'s size from the manifest\'s files', async () => {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  const requests = [];
  page.on('request', (r) => requests.push(`${r.method()} ${new URL(r.url()).pathname}`));
  await page.goto(env.url('/web/index.html'));
  await idle(page);
  // Past the first heatmap, when the picker's sizes used to be asked for.
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => setTimeout(ok, 300))));
  expect(requests.filter((r) => !r.startsWith('GET '))).toEqual([]);
  expect(errors).toEqual([]);

  const labels = await page.locator('#model option').evaluateAll((os) => Object.fromEntries(os.map((o) => [o.value, o.textContent])));
  for (const m of models.filter((x) => x.file)) {
    const size = statSync(fileURLToPath(modelUrl(m))).size;
    expect(labels[m.id], m.id).toBe(`${m.label} · ${formatBytes(size)}`);
  }
  await screenshot(page, 'page-load', { fullPage: false });
  await page.close();
});
