// The "BLEU by sentence length" card of the demo page in Debian's Chromium: the chart of
// models/analysis/bleu-by-length.json (the engine's figures, written by
// models/evaluation/bleu_by_length_models.py) has a legend of its models, each bin's label and
// sentence count, every point's exact figure on hover and on keyboard focus, the same figures in
// its table, and no serious accessibility violation (axe-core).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binLabel } from '../../web/app/views/bleu-length-chart.js';
import { openPage, root, screenshot, startBrowser } from './browser.js';

const DATA = JSON.parse(readFileSync(join(root, 'models/analysis/bleu-by-length.json'), 'utf8'));
const AXE = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');
let env;
let page;
let errors;

beforeAll(async () => {
  env = await startBrowser();
  ({ page, errors } = await openPage(env, '/'));
  await page.locator('#bleu-length').scrollIntoViewIfNeeded();
  await page.waitForSelector('#bleu-length[data-state=ready]', { timeout: 30_000 });
});
afterAll(async () => { await env?.close(); });

describe('BLEU by sentence length', () => {
  it('ships the three translators, with every bin of the same sentences', () => {
    expect(DATA.models.map((m) => m.id)).toEqual(['multi30k-en-de', 'multi30k-rnn-en-de', 'multi30k-rnn-none-en-de']);
    for (const m of DATA.models) {
      expect(m.bins.map((b) => [b.minWords, b.maxWords, b.sentences])).toEqual(DATA.models[0].bins.map((b) => [b.minWords, b.maxWords, b.sentences]));
      expect(m.bins.reduce((n, b) => n + b.sentences, 0)).toBe(m.total.sentences);
      expect(m.command).toContain('bleu-by-length');
    }
  });

  it('draws a legend with each model, its decoding and its overall BLEU', async () => {
    const items = page.locator('#bleu-length .bl-legend li');
    await expect.poll(() => items.count()).toBe(DATA.models.length);
    for (const [i, m] of DATA.models.entries()) {
      const item = items.nth(i);
      expect(await item.getAttribute('data-model')).toBe(m.id);
      const text = await item.textContent();
      expect(text).toContain(m.label);
      expect(text).toContain(`beam ${m.beam}`);
      expect(await item.locator('.bl-total').textContent()).toBe(m.total.bleu.toFixed(2));
    }
  });

  it('labels every bin with its words and sentence count', async () => {
    const bins = DATA.models[0].bins;
    expect(await page.locator('#bleu-length .bl-bin').allTextContents()).toEqual(bins.map(binLabel));
    expect(await page.locator('#bleu-length .bl-count').allTextContents()).toEqual(bins.map((b) => `n = ${b.sentences}`));
    expect(binLabel(bins[0])).toBe('1–8');
    expect(binLabel(bins.at(-1))).toBe('21+');
  });

  it('shows the exact figure of every point on hover', async () => {
    const tip = page.locator('#bleu-length .bl-tip');
    let points = 0;
    for (const m of DATA.models) {
      for (const [i, b] of m.bins.entries()) {
        const point = page.locator(`#bleu-length .bl-point[data-model="${m.id}"][data-bin="${i}"]`);
        if (b.bleu === null) { expect(await point.count()).toBe(0); continue; }
        // The pointer over the point's marker (the chart shows the point nearest the pointer).
        await point.scrollIntoViewIfNeeded();
        const box = await point.locator(':scope > :not(.bl-hit)').boundingBox();
        await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await expect.poll(() => tip.getAttribute('data-model')).toBe(m.id);
        await expect.poll(() => tip.getAttribute('data-bin')).toBe(String(i));
        expect(await tip.isVisible()).toBe(true);
        expect(Number(await tip.getAttribute('data-value'))).toBe(b.bleu);
        const text = await tip.textContent();
        expect(text).toContain(m.label);
        expect(text).toContain(`${binLabel(b)} words (${b.sentences} sentences)`);
        expect(text).toContain(`BLEU ${b.bleu.toFixed(2)}`);
        points++;
      }
    }
    expect(points).toBeGreaterThanOrEqual(DATA.models.length * 4);
    await screenshot(page, 'bleu-by-length-hover', { fullPage: false });
    await page.mouse.move(0, 0);
    await expect.poll(() => tip.isHidden()).toBe(true);
  });

  it('reaches the points from the keyboard, and reads the same figure', async () => {
    const first = page.locator('#bleu-length .bl-point').first();
    await first.focus();
    const tip = page.locator('#bleu-length .bl-tip');
    expect(await tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toBe(await first.getAttribute('aria-label'));
    await page.keyboard.press('Tab');
    const second = page.locator('#bleu-length .bl-point').nth(1);
    expect(await second.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await tip.getAttribute('data-value')).toBe(await second.getAttribute('data-value'));
  });

  it('has the figures as a table', async () => {
    await page.locator('#bleu-length .bl-details summary').click();
    const rows = await page.locator('#bleu-length .bl-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    const bins = DATA.models[0].bins;
    expect(rows).toEqual([
      ...bins.map((b, i) => [binLabel(b), String(b.sentences), ...DATA.models.map((m) => (m.bins[i].bleu === null ? '–' : m.bins[i].bleu.toFixed(2)))]),
      ['all', String(DATA.models[0].total.sentences), ...DATA.models.map((m) => m.total.bleu.toFixed(2))],
    ]);
    await page.locator('#bleu-length').screenshot({ path: join(root, 'tests/artifacts/bleu-by-length.png') });
  });

  it('has no serious accessibility violation, and the page no error', async () => {
    await page.addScriptTag({ content: AXE });
    const violations = await page.evaluate(async () => {
      const r = await window.axe.run('#bleu-length', { resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    });
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
});
