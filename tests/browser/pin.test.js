// Pin a head to compare two chosen heads side by side at full size: the pinned map stays while
// the pickers move to another head (or another site), each map titled, the pin in the URL.
import { expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { hoverCell, idle, openPage, screenshot, shippedConfig } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'A little girl is playing in the water.';
const { n_decoder_layers: LAYERS, n_heads: HEADS } = shippedConfig('multi30k-en-de');
const PINNED = `Pinned: Cross-attention · layer 2 of ${LAYERS} · head 4 of ${HEADS}`;
const t = browserWithModel('models/multi30k-en-de.safetensors');

it('pins a head and shows it beside another at full size, with the engine\'s values', async () => {
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: SENTENCE, step: 5, view: 'cross', layer: 1, head: 3 })}`);
  expect(await page.isHidden('#pinned-heatmap')).toBe(true);
  await page.click('#pin');
  expect(new URL(page.url()).searchParams.get('pin')).toBe('cross.1.3');
  expect(await page.getAttribute('#pin', 'aria-pressed')).toBe('true');
  // Another head: the pinned one stays beside it.
  await page.selectOption('#head', '0');
  await idle(page);
  expect(await page.isVisible('#pinned-heatmap')).toBe(true);
  const caps = await page.locator('#view-body .cmp > figcaption').allTextContents();
  expect(caps).toEqual([`Now: Cross-attention · layer 2 of ${LAYERS} · head 1 of ${HEADS}`, PINNED]);
  // Side by side, each a full map (not a thumbnail).
  const a = await page.locator('#pinned-heatmap canvas').boundingBox();
  const b = await page.locator('#heatmap canvas').boundingBox();
  expect(Math.abs(a.y - b.y)).toBeLessThan(40);
  expect(a.x).toBeLessThan(b.x);
  const ga = JSON.parse(await page.locator('#pinned-heatmap canvas').getAttribute('data-grid'));
  const gb = JSON.parse(await page.locator('#heatmap canvas').getAttribute('data-grid'));
  expect([ga.rows, ga.cols]).toEqual([gb.rows, gb.cols]);
  expect(ga.cw).toBeGreaterThanOrEqual(20);
  // The pinned map's values are the engine's for layer 1, head 3 (0-based).
  const s = t.model.translate(SENTENCE);
  for (let k = 0; k < 5; k++) s.step();
  const row = s.crossAttention(4, { layer: 1, head: 3 }).data;
  await hoverCell(page, page.locator('#pinned-heatmap canvas'), 4, 2);
  await expect.poll(() => page.locator('#pinned-heatmap .hm-tip').getAttribute('data-col')).toBe('2');
  expect(Number(await page.locator('#pinned-heatmap .hm-tip').getAttribute('data-value'))).toBe(row[2]);
  s.dispose();
  await page.mouse.move(0, 0);
  await page.locator('#attention').scrollIntoViewIfNeeded();
  await screenshot(page, 'pin-compare', { fullPage: false });

  // The pin survives a reload; another site's tab compares across sites; unpinning removes it.
  await page.reload();
  await idle(page);
  expect(await page.isVisible('#pinned-heatmap')).toBe(true);
  await page.click('#tab-encoder');
  await idle(page);
  expect(await page.locator('#view-body .cmp > figcaption').nth(1).textContent()).toBe(PINNED);
  await page.click('#tab-cross');
  await page.selectOption('#head', '3');
  await idle(page);
  expect(await page.isHidden('#pinned-heatmap')).toBe(true); // the pinned head is the one shown
  await page.click('#pin');
  expect(new URL(page.url()).searchParams.get('pin')).toBeNull();
  expect(errors).toEqual([]);
  await page.close();
});

it('keeps the pin in the URL codec', () => {
  const st = { ...parseState(''), pin: { site: 'encoder', layer: 2, head: 'mean' } };
  expect(new URLSearchParams(formatState(st)).get('pin')).toBe('encoder.2.mean');
  expect(parseState(formatState(st))).toEqual(st);
  expect(parseState('?pin=cross.x.1').pin).toBeNull();
  expect(parseState('?pin=<b>.0.0').pin).toBeNull();
});
