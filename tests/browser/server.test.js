// web/serve.mjs (what `npm start` runs): "/" is an HTTP redirect to the page, so the page's
// relative assets resolve under /web/ and nothing 404s.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, screenshot, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

it('redirects / to /web/index.html over HTTP, keeping the query, and the page loads with no 404', async () => {
  const answer = await fetch(env.url('/?s=we%20can%20eat%20bread&step=2'), { redirect: 'manual' });
  expect(answer.status).toBe(302);
  expect(answer.headers.get('location')).toBe('/web/index.html?s=we%20can%20eat%20bread&step=2');

  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  const failed = [];
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`); });
  await page.goto(env.url('/?s=we%20can%20eat%20bread&step=2'));
  await idle(page);
  expect(new URL(page.url()).pathname).toBe('/web/index.html');
  expect(await page.locator('#sentence').inputValue()).toBe('we can eat bread');
  expect(await page.evaluate(() => window.attnscope.snapshot.steps)).toBe(2);
  expect(failed).toEqual([]);
  await screenshot(page, 'server-root-redirect', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});
