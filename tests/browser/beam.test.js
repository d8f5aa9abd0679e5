// The beam tree of a real sentence can be read: pruned candidates are collapsed into "+N pruned"
// on their parent (expandable, or all shown with the switch), live and finished candidates are
// laid out first, and the view scrolls to the path being followed.
import { expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, openPage, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'Two young men in red shirts are playing soccer on a green field.';
const t = browserWithModel('models/multi30k-en-de.safetensors');

it('collapses pruned candidates, lays out the beam first and scrolls to the followed path', async () => {
  const s = t.model.translate(SENTENCE, { strategy: 'beam', beamSize: 4, nbest: 4 });
  s.run();
  const tree = s.beamTree();
  const pruned = tree.filter((n) => n.status === 'pruned');
  const kept = tree.filter((n) => n.status !== 'pruned');
  expect(s.steps).toBeGreaterThanOrEqual(12);
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: SENTENCE, mode: 'beam', beam: 4, step: 'end', view: 'beam' })}`);
  expect(await page.isChecked('#pruned')).toBe(false);
  // Every candidate is in the document; only the kept ones are drawn.
  expect(await page.locator('#view-body .node').count()).toBe(tree.length);
  expect(await page.locator('#view-body .node[data-status=pruned]:not([display=none])').count()).toBe(0);
  const summaries = page.locator('#view-body .pruned-summary');
  const counts = (await summaries.evaluateAll((gs) => gs.map((g) => Number(g.dataset.count))));
  expect(counts.reduce((a, b) => a + b, 0)).toBe(pruned.length);
  expect(await summaries.first().textContent()).toMatch(/\+\d+ pruned/);
  // Small enough to read: one row per kept leaf, not per candidate.
  const svg = page.locator('#view-body .tree-scroll svg');
  const height = Number(await svg.getAttribute('height'));
  const leaves = kept.filter((n) => !kept.some((k) => k.parent === n.id)).length;
  expect(height).toBeLessThanOrEqual(40 + leaves * 56);
  const ys = await page.locator('#view-body .node:not([display=none]) rect').evaluateAll((rs) => rs.map((r) => [r.parentElement.dataset.node, Number(r.getAttribute('y'))]));
  const yOf = new Map(ys.map(([id, y]) => [Number(id), y]));
  // The followed path's last node is inside the scroll box's visible area.
  const best = s.nbest()[0].ids;
  const byParent = (p, id) => tree.find((n) => n.parent === p && n.tokenId === id);
  let node = tree.find((n) => n.parent < 0);
  for (const id of best) node = byParent(node.id, id) ?? node;
  const box = await page.locator('#view-body .tree-scroll').boundingBox();
  const last = await page.locator(`#view-body .node[data-node="${node.id}"] rect`).boundingBox();
  expect(last.x).toBeGreaterThanOrEqual(box.x);
  expect(last.x + last.width).toBeLessThanOrEqual(box.x + box.width);
  expect(last.y).toBeGreaterThanOrEqual(box.y);
  expect(last.y + last.height).toBeLessThanOrEqual(box.y + box.height);
  expect(yOf.has(node.id)).toBe(true);
  await page.locator('#attention').scrollIntoViewIfNeeded();
  await screenshot(page, 'beam-collapsed', { fullPage: false });

  // "+N pruned" opens that parent's pruned candidates; the switch shows them all.
  const first = summaries.first();
  const parent = Number(await first.getAttribute('data-parent'));
  const n = Number(await first.getAttribute('data-count'));
  await first.click();
  expect(await page.locator('#view-body .node[data-status=pruned]:not([display=none])').count()).toBe(n);
  const drawnKids = tree.filter((k) => k.parent === parent && k.status === 'pruned').map((k) => k.id);
  for (const id of drawnKids) expect(await page.locator(`#view-body .node[data-node="${id}"]:not([display=none])`).count()).toBe(1);
  // Under that parent, the kept children come before (above) the pruned ones.
  const yNow = new Map((await page.locator('#view-body .node:not([display=none]) rect').evaluateAll((rs) => rs.map((r) => [Number(r.parentElement.dataset.node), Number(r.getAttribute('y'))]))));
  const keptKids = tree.filter((k) => k.parent === parent && k.status !== 'pruned').map((k) => yNow.get(k.id));
  if (keptKids.length) expect(Math.max(...keptKids)).toBeLessThan(Math.min(...drawnKids.map((id) => yNow.get(id))));
  await page.check('#pruned');
  await idle(page);
  expect(await page.locator('#view-body .node[data-status=pruned]:not([display=none])').count()).toBe(pruned.length);
  expect(await page.locator('#view-body .pruned-summary').count()).toBe(0);
  s.dispose();
  expect(errors).toEqual([]);
  await page.close();
});
