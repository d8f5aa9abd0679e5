// The widget's "explore in attnscope ↗" link goes somewhere or is not shown: hidden while the
// widget has drawn nothing (an interventions attribute that is not JSON, from the start) and
// while what it shows no longer matches its attributes (made invalid later); shown again, to
// the page of what it draws, once a translation is drawn.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const link = (page, id) => page.evaluate((id) => {
  const a = document.getElementById(id).shadowRoot.querySelector('a.open');
  return { visible: a.checkVisibility(), href: a.getAttribute('href') };
}, id);
const errorText = (page, id) => page.evaluate((id) => document.getElementById(id).shadowRoot.querySelector('.error').textContent, id);

it('shows no link from a widget whose interventions are not JSON, and links again once it draws', async () => {
  const page = await env.browser.newPage({ viewport: { width: 900, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/blog.html'));
  await page.waitForFunction(() => document.querySelector('#first').snapshot?.done);
  expect((await link(page, 'first')).visible).toBe(true);

  // A new widget whose attribute is broken from the start: it draws nothing, and links nowhere.
  await page.evaluate(() => {
    const w = document.createElement('attn-scope');
    w.id = 'broken';
    w.setAttribute('src', 'i can eat apple');
    w.setAttribute('interventions', '{"skip": [');
    document.querySelector('article').append(w);
  });
  await page.waitForFunction(() => document.querySelector('#broken').shadowRoot.querySelector('.error').textContent !== '');
  expect(await errorText(page, 'broken')).toMatch(/not valid JSON/);
  expect(await link(page, 'broken')).toEqual({ visible: false, href: null });

  // A widget that drew, then got a broken attribute: no link to what no longer matches it.
  await page.evaluate(() => document.querySelector('#first').setAttribute('interventions', '{oops'));
  await page.waitForFunction(() => document.querySelector('#first').shadowRoot.querySelector('.error').textContent !== '');
  expect((await link(page, 'first')).visible).toBe(false);
  // Fixed: drawn again, and the link is back, to the page of what it draws.
  await page.evaluate(() => document.querySelector('#first').setAttribute('interventions', '{"skip": []}'));
  await page.waitForFunction(() => document.querySelector('#first').shadowRoot.querySelector('.error').hidden);
  const back = await link(page, 'first');
  expect(back.visible).toBe(true);
  expect(new URL(back.href).searchParams.get('s')).toBe(await page.getAttribute('#first', 'src'));
  expect(errors).toEqual([]);
  await page.close();
});
