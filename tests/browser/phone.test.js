// A phone (390 × 844) and the keyboard: the view tabs wrap instead of being cut off, the page does
// not jump down on load, the model view fits every head of Multi30k's 8 on the screen, a
// focused heatmap's focus ring goes around the map, not around the whole wide canvas, and the
// widget's step buttons are touch targets and its tooltip stays on the screen, down to 320 pixels wide.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hoverCell, idle, openPage, screenshot, shippedConfig, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const PHONE = { width: 390, height: 844 };

it('wraps the tabs, keeps the page at the top on load, and fits the model view on a phone', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-en-de&step=4', { viewport: PHONE });
  // No jump: the header and the sentence field are where the reader starts.
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  expect((await page.locator('#sentence').boundingBox()).y).toBeLessThan(PHONE.height);
  // Every tab (views and analyses) wholly on screen.
  for (const sel of ['#attention [role=tab]', '#analyses [role=tab]']) {
    const tabs = await page.locator(sel).all();
    expect(tabs.length).toBeGreaterThanOrEqual(4);
    for (const tab of tabs) {
      const box = await tab.boundingBox();
      expect(box.x, await tab.textContent()).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, await tab.textContent()).toBeLessThanOrEqual(PHONE.width);
    }
    const list = page.locator(sel).first().locator('xpath=..');
    expect(await list.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  }
  await screenshot(page, 'phone-top', { fullPage: false });
  // The model view (cross-attention): all heads of a layer side by side, inside the screen.
  const { n_decoder_layers: layers, n_heads: heads } = shippedConfig('multi30k-en-de');
  await page.click('#tab-model');
  await idle(page);
  const grid = page.locator('.model-grid');
  expect(await grid.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
  const thumbs = await page.locator('.model-grid .thumb').all();
  expect(thumbs).toHaveLength(layers * heads);
  for (const t of thumbs.slice(0, heads)) {
    const box = await t.boundingBox();
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  }
  await grid.scrollIntoViewIfNeeded();
  await screenshot(page, 'phone-model-view', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});

it('draws a focused heatmap\'s focus ring around the map only', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?step=3');
  const canvas = page.locator('#heatmap canvas');
  await canvas.focus();
  expect(await canvas.evaluate((c) => c.matches(':focus-visible'))).toBe(true);
  expect(await canvas.evaluate((c) => getComputedStyle(c).outlineStyle)).toBe('none');
  const ring = page.locator('#heatmap .hm-ring');
  expect(await ring.isVisible()).toBe(true);
  const grid = JSON.parse(await canvas.getAttribute('data-grid'));
  const c = await canvas.boundingBox();
  const r = await ring.boundingBox();
  // Around the cells, a few pixels out: not the canvas' full width.
  expect(r.x).toBeCloseTo(c.x + grid.x - 5, 0);
  expect(r.y).toBeCloseTo(c.y + grid.y - 5, 0);
  expect(r.width).toBeCloseTo(grid.cw * grid.cols + 10, 0);
  expect(r.height).toBeCloseTo(grid.ch * grid.rows + 10, 0);
  expect(r.width).toBeLessThan(c.width - 100);
  await page.locator('#attention').scrollIntoViewIfNeeded();
  await screenshot(page, 'phone-focus-ring', { fullPage: false });
  // Blurred: no ring.
  await page.locator('#sentence').focus();
  expect(await ring.isVisible()).toBe(false);
  expect(errors).toEqual([]);
  await page.close();
});

// The narrowest screen a page must reflow to (WCAG 1.4.10: 320 CSS pixels), as small phones are.
const SMALL_PHONE = { width: 320, height: 640 };

it('gives the widget 44 × 44 step buttons and keeps its tooltip on the screen, at every cell of its right edge', async () => {
  const page = await env.browser.newPage({ viewport: SMALL_PHONE, serviceWorkers: 'block', isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/blog.html'));
  // The post's second widget on Multi30k: long labels, many columns.
  await page.evaluate(() => {
    const w = document.querySelector('#second');
    w.setAttribute('model', 'multi30k-en-de');
    w.setAttribute('src', 'A little girl in a bright red coat is playing with her brown dog in the water.');
  });
  await page.waitForFunction(() => document.querySelector('#second').snapshot?.url.includes('multi30k') && document.querySelector('#second').snapshot.done, null, { timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('#first').snapshot?.done === true);
  for (const sel of ['#first .prev', '#first .next', '#first a.open']) {
    const box = await page.locator(sel).boundingBox();
    expect(box.width, sel).toBeGreaterThanOrEqual(sel.endsWith('a.open') ? 24 : 44);
    expect(box.height, sel).toBeGreaterThanOrEqual(sel.endsWith('a.open') ? 24 : 44);
  }
  for (const id of ['first', 'second']) {
    const canvas = page.locator(`#${id} canvas`);
    await canvas.scrollIntoViewIfNeeded();
    const grid = JSON.parse(await canvas.getAttribute('data-grid'));
    const scroller = await page.locator(`#${id} .hm-scroll`).boundingBox();
    const canvasBox = await canvas.boundingBox();
    // The rightmost column on screen (the map may scroll sideways inside the widget).
    const visible = Math.min(grid.cols - 1, Math.floor((scroller.x + scroller.width - canvasBox.x - grid.x) / grid.cw) - 1);
    for (const row of [0, grid.rows - 1]) {
      await hoverCell(page, canvas, row, visible);
      const tip = page.locator(`#${id} .hm-tip`);
      await expect.poll(() => tip.getAttribute('data-col')).toBe(String(visible));
      const box = await tip.boundingBox();
      expect(box.x, `${id} ${row}`).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, `${id} ${row}`).toBeLessThanOrEqual(SMALL_PHONE.width);
      expect(box.y).toBeGreaterThanOrEqual(0);
      expect(box.y + box.height).toBeLessThanOrEqual(SMALL_PHONE.height);
    }
  }
  await screenshot(page, 'phone-widget-tooltip', { fullPage: false });
  expect(errors).toEqual([]);
  await page.close();
});
