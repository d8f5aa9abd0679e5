// The first screen of a laptop (1400 × 900) shows a translation and its heatmap without
// scrolling: the Architecture card starts folded. Scrolled down, the sticky step bar never hides
// the attention card's tabs: they stay just below it, and so does a target the page jumps to.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, screenshot, startBrowser } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const LAPTOP = { width: 1400, height: 900 };

/** Whether `box` lies wholly inside the window. */
const inside = (box) => box.y >= 0 && box.x >= 0 && box.y + box.height <= LAPTOP.height && box.x + box.width <= LAPTOP.width;

it('shows the translation and the heatmap above the fold on first load, for the toy and for Multi30k', async () => {
  for (const path of ['/web/index.html', '/web/index.html?model=multi30k-en-de']) {
    const { page, errors } = await openPage(env, path, { viewport: LAPTOP });
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    expect(await page.locator('#architecture').evaluate((d) => d.open)).toBe(false);
    const canvas = await page.locator('#heatmap canvas').boundingBox();
    expect(inside(canvas), `${path}: the heatmap at ${JSON.stringify(canvas)}`).toBe(true);
    expect(inside(await page.locator('#translation').boundingBox()), path).toBe(true);
    await screenshot(page, `first-screen-${path.includes('multi30k') ? 'multi30k' : 'toy'}`, { fullPage: false });
    expect(errors).toEqual([]);
    await page.close();
  }
});

it('keeps the view tabs below the sticky step bar when the page is scrolled', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-en-de&step=4', { viewport: LAPTOP });
  const covered = () => page.evaluate(() => {
    const bar = document.querySelector('#stepper').getBoundingClientRect();
    return [...document.querySelectorAll('#attention [role=tab]')].filter((tab) => {
      const r = tab.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return r.top < bar.bottom || !tab.contains(hit);
    }).map((t) => t.textContent);
  });
  // The attention card's top scrolled well past the top of the window: its tabs follow.
  await page.evaluate(() => window.scrollTo(0, document.querySelector('#attention').getBoundingClientRect().top + window.scrollY + 150));
  await expect.poll(covered).toEqual([]);
  await screenshot(page, 'first-screen-scrolled', { fullPage: false });
  // The skip link's target starts below the bar.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  const gap = await page.evaluate(() => document.querySelector('#attention').getBoundingClientRect().top - document.querySelector('#stepper').getBoundingClientRect().bottom);
  expect(gap).toBeGreaterThanOrEqual(0);
  expect(await covered()).toEqual([]);
  await idle(page);
  expect(errors).toEqual([]);
  await page.close();
});
