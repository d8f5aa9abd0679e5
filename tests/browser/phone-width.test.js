// On a phone (390 CSS pixels wide) the page never scrolls sideways: for each kind of model (a
// transformer and an RNN that translate, a decoder-only model that continues a prompt, an
// encoder-only model that fills masks), with every card opened, the document is no wider than the
// screen. What is wider than the screen (a long map, the beam tree) scrolls inside its own box.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, screenshot, startBrowser } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const PHONE = { width: 390, height: 844 };

/** The document's width and the elements that stick out past the screen's right edge (deepest first). */
const overflow = (page) => page.evaluate(() => {
  const width = document.documentElement.clientWidth;
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > width + 0.5 && r.width > 0 && el.getClientRects().length) {
      out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')} → ${Math.round(r.right)}`);
    }
  }
  return { scrollWidth: document.documentElement.scrollWidth, width, wide: out.slice(-8) };
});

/** Opens every card and disclosure of the page, and waits for what they draw. */
async function openEverything(page, encoderOnly) {
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  await page.evaluate(() => window.attnscope.idle());
  if (!encoderOnly) await idle(page); // (an encoder-only page has no steps to wait for)
}

const KINDS = {
  'a transformer that translates': '/web/index.html?model=multi30k-en-de&step=4',
  'an RNN that translates': '/web/index.html?model=multi30k-rnn-en-de&step=3',
  'a decoder-only model that continues a prompt': '/web/index.html?model=multi30k-en-gpt&s=Two%20dogs%20are&step=3',
  'an encoder-only model that fills masks': `/web/index.html?model=multi30k-en-mlm&s=${encodeURIComponent('two dogs are playing in the [MASK] .')}`,
};

it.each(Object.entries(KINDS))('does not scroll sideways at 390 px: %s, every card open', async (kind, path) => {
  const encoderOnly = kind.includes('encoder-only');
  const { page, errors } = await openPage(env, path, { viewport: PHONE, wait: false });
  if (encoderOnly) await page.waitForSelector('#encoder[data-renders]', { timeout: 60_000 });
  else await idle(page);
  await openEverything(page, encoderOnly);
  const views = encoderOnly ? [null] : [null, '#tab-model', '#tab-beam', '#an-tab-vectors'];
  for (const tab of views) {
    if (tab) {
      await page.click(tab);
      await page.evaluate(() => window.attnscope.idle());
    }
    const o = await overflow(page);
    expect(o.scrollWidth, `${kind}${tab ? `, ${tab}` : ''}: ${o.wide.join('; ')}`).toBeLessThanOrEqual(o.width);
  }
  await screenshot(page, `phone-width-${kind.replace(/\W+/g, '-')}`);
  expect(errors).toEqual([]);
  await page.close();
});
