// The "Break the model" panel of the demo page (web/app/interventions.js) in Debian's Chromium:
// presets, skips, head masks and custom attention rows re-translate with the engine's
// interventions; the page says the model is modified and shows the unmodified translation beside
// it; the interventions live in the URL. Reference numbers come from the same engine run in this
// Node process through web/attnscope.js, independently of the page.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state.js';
import { hoverCell, idle, openPage, root, screenshot, startBrowser } from './browser.js';

const SENTENCE = 'i can eat apple';
const TRAINED = 'ich konnen apfel essen';
let env;
let model;

beforeAll(async () => {
  env = await startBrowser();
  model = await loadModel(join(root, 'models/toy-en-de.safetensors'));
});
afterAll(async () => {
  model?.dispose();
  await env?.close();
});

/** The engine in Node, greedy, run to the end under `interventions`. */
function engineRun(interventions) {
  const s = model.translate(SENTENCE, { interventions });
  s.run();
  return s;
}

const open = (path) => openPage(env, path);


const steps = async (page) => Number(await page.locator('#app').getAttribute('data-steps'));
const translation = (page) => page.textContent('#translation');
const params = (page) => new URL(page.url()).searchParams;

/** Every cell of the displayed cross-attention map, read from its hover tooltip. */
async function crossCells(page, rows, cols) {
  const canvas = page.locator('#heatmap canvas');
  const tip = page.locator('#heatmap .hm-tip');
  const grid = JSON.parse(await canvas.getAttribute('data-grid'));
  expect([grid.rows, grid.cols]).toEqual([rows, cols]);
  const shown = [];
  for (let r = 0; r < rows; r++) {
    shown.push([]);
    for (let c = 0; c < cols; c++) {
      await hoverCell(page, canvas, r, c);
      await expect.poll(async () => `${await tip.getAttribute('data-row')},${await tip.getAttribute('data-col')}`).toBe(`${r},${c}`);
      shown[r].push(Number(await tip.getAttribute('data-value')));
    }
  }
  return shown;
}

/** The engine's cross-attention rows of a finished session (layer 0, head 0). */
const engineCross = (s) => Array.from({ length: s.steps }, (_, k) => Array.from(s.crossAttention(k, { layer: 0, head: 0 }).data));

describe('the "Break the model" panel', () => {
  it('applies the seed experiments as the engine does, says the model is modified, and resets', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end' })}`);
    expect(await translation(page)).toBe(TRAINED);
    expect(await page.isHidden('#modified')).toBe(true);
    expect(await page.isHidden('#original-line')).toBe(true);
    expect(await page.locator('#break').getAttribute('open')).toBeNull(); // collapsed until needed

    // "Uniform attention": every cross-attention weight is 1/5 (4 source tokens and </s>).
    await page.click('#break summary');
    await page.click('[data-preset=uniform]');
    await idle(page);
    const uniform = engineRun({ attention: [{ site: 'cross', layer: '*', head: '*', pattern: 'uniform' }] });
    expect(await translation(page)).toBe(uniform.translation);
    expect(uniform.translation).not.toBe(TRAINED);
    expect(await steps(page)).toBe(uniform.steps); // it was at the end, so it stays at the end
    const cells = await crossCells(page, uniform.steps, 5);
    expect(cells).toEqual(engineCross(uniform));
    expect(cells.flat().every((v) => v === Math.fround(1 / 5))).toBe(true);
    // Said plainly: banner, badge, the unmodified translation beside, the preset pressed, the URL.
    expect(await page.isVisible('#modified')).toBe(true);
    expect(await page.textContent('#modified-title')).toBe('Modified model: “uniform attention”.');
    expect(await page.locator('#modified-list .mod-chip').allTextContents()).toEqual(['cross-attention uniform (all layers, all heads)']);
    expect(await page.isVisible('#modified-badge')).toBe(true);
    expect(await page.textContent('#original')).toBe(TRAINED);
    expect(await page.textContent('#view-note')).toContain('uniform');
    expect(await page.getAttribute('[data-preset=uniform]', 'aria-pressed')).toBe('true');
    expect(params(page).getAll('att')).toEqual(['cross.*.*.uniform']);
    await page.mouse.move(0, 0);
    await screenshot(page, 'interventions');

    // "No attention": cross-attention skipped, the decoder never sees the source.
    await page.click('[data-preset=no-attention]');
    await idle(page);
    const none = engineRun({ skip: ['crossAttention'] });
    expect(await translation(page)).toBe(none.translation);
    expect(none.translation).not.toBe(TRAINED);
    expect(await page.isChecked('#skip-crossAttention')).toBe(true);
    expect(params(page).getAll('att')).toEqual([]); // a preset replaces what was there
    expect(params(page).getAll('skip')).toEqual(['crossAttention']);
    expect(await page.locator('#modified-list .mod-chip').allTextContents()).toEqual(['no cross-attention (“no attention”)']);

    // Reset: the trained model, exactly.
    await page.click('#reset-interventions');
    await idle(page);
    expect(await translation(page)).toBe(TRAINED);
    expect(await page.isHidden('#modified')).toBe(true);
    expect(await page.isHidden('#modified-badge')).toBe(true);
    expect(await page.isHidden('#original-line')).toBe(true);
    expect(['att', 'mask', 'skip'].flatMap((k) => params(page).getAll(k))).toEqual([]);
    const trained = engineRun(undefined);
    expect(await crossCells(page, 5, 5)).toEqual(engineCross(trained));
    [uniform, none, trained].forEach((s) => s.dispose());
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps the step, and keeps a masked head and a skip in the URL across a reload', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 2 })}`);
    await page.click('#break summary');
    await page.check('input.mask[data-site=cross][data-layer="0"][data-head="0"]');
    await idle(page);
    expect(await steps(page)).toBe(2); // re-translated, at the same step
    await page.check('#skip-ffn');
    await idle(page);
    expect(await steps(page)).toBe(2);
    expect(params(page).getAll('mask')).toEqual(['cross.0.0']);
    expect(params(page).getAll('skip')).toEqual(['ffn']);
    await page.click('#last');
    await idle(page);
    const broken = engineRun({ maskHeads: [{ site: 'cross', layer: 0, head: 0 }], skip: ['ffn'] });
    expect(await translation(page)).toBe(broken.translation);
    const chips = ['cross-attention layer 1 head 1 masked', 'no FFN'];
    expect(await page.locator('#modified-list .mod-chip').allTextContents()).toEqual(chips);

    await page.reload();
    await idle(page);
    expect(await page.locator('#break').getAttribute('open')).not.toBeNull(); // opened: it has something to show
    expect(await page.isChecked('input.mask[data-site=cross][data-layer="0"][data-head="0"]')).toBe(true);
    expect(await page.isChecked('input.mask[data-site=encoder][data-layer="0"][data-head="0"]')).toBe(false);
    expect(await page.isChecked('#skip-ffn')).toBe(true);
    expect(await page.isChecked('#skip-layerNorm')).toBe(false);
    expect(await translation(page)).toBe(broken.translation);
    expect(await page.locator('#modified-list .mod-chip').allTextContents()).toEqual(chips);
    expect(await page.textContent('#original')).toBe(TRAINED);
    // The model view marks the masked head.
    await page.click('#tab-model');
    await page.selectOption('#kind', 'cross');
    expect(await page.getAttribute('.model-grid .thumb[data-layer="0"][data-head="0"]', 'data-mod')).toBe('masked');
    broken.dispose();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('overrides cross-attention with a custom row typed in, one weight per source token', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end' })}`);
    await page.click('#break summary');
    await page.click('#add-override');
    await idle(page);
    await page.selectOption('#overrides li select[name=pattern]', 'custom');
    await idle(page);
    expect(await page.locator('#overrides .weight .tok').allTextContents()).toEqual(['i', 'can', 'eat', 'apple', '</s>']);
    for (const [i, w] of [[0, '0'], [3, '0'], [4, '0']]) {
      await page.fill(`#overrides input[name=w${i}]`, w);
      await page.locator(`#overrides input[name=w${i}]`).dispatchEvent('change');
      await idle(page);
    }
    expect(params(page).getAll('att')).toEqual(['cross.*.*.custom.0_1_1_0_0']);
    const custom = engineRun({ attention: [{ site: 'cross', pattern: 'custom', weights: [0, 1, 1, 0, 0] }] });
    expect(await translation(page)).toBe(custom.translation);
    const cells = await crossCells(page, custom.steps, 5);
    expect(cells).toEqual(engineCross(custom));
    expect(cells[0]).toEqual([0, 0.5, 0.5, 0, 0]);
    custom.dispose();
    expect(errors).toEqual([]);
    await page.close();
  });
});
