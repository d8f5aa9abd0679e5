// The "Break the model" panel of the demo page (web/app/panels/interventions.js) in Debian's Chromium:
// presets, skips, head masks, "copy the source encoding" and custom attention rows and matrices
// re-translate with the engine's interventions (and its refusals are shown); the page says the model is modified and shows the unmodified translation beside
// it; the interventions live in the URL. Reference numbers come from the same engine run in this
// Node process through web/attnscope.js, independently of the page.
import { describe, expect, it } from 'vitest';
import { formatState, parseState } from '../../web/app/state/state.js';
import { FROZEN_TOY, hoverCell, idle, openPage, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'i can eat apple';
const TRAINED = 'ich konnen apfel essen';
const t = browserWithModel(FROZEN_TOY);

/** The engine in Node, greedy, run to the end under `interventions`. */
function engineRun(interventions) {
  const s = t.model.translate(SENTENCE, { interventions });
  s.run();
  return s;
}

const open = (path) => openPage(t.env, path);


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

/** The page at the end of SENTENCE, its panel open, with one custom cross-attention override (all 1s). */
async function openWithCustomOverride() {
  const opened = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end' })}`);
  const { page } = opened;
  await page.click('#break summary');
  await page.click('#add-override');
  await idle(page);
  await page.selectOption('#overrides li select[name=pattern]', 'custom');
  await idle(page);
  return opened;
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
    const { page, errors } = await openWithCustomOverride();
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

  it('copies the source encoding into the decoder: a switch, a preset, the summary, the URL', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end' })}`);
    await page.click('#break summary');
    await page.check('#copy-source');
    await idle(page);
    const copied = engineRun({ copySourceEncoding: true });
    expect(copied.translation).toBe('ich konnen brot essen');
    expect(await translation(page)).toBe(copied.translation);
    expect(await page.textContent('#original')).toBe(TRAINED);
    expect(params(page).get('copysrc')).toBe('1');
    expect(await page.locator('#modified-list .mod-chip').allTextContents())
      .toEqual(['source encoding copied into the decoder (cross-attention outputs the encoder mean)']);
    expect(await page.getAttribute('[data-preset=copy-source]', 'aria-pressed')).toBe('true');
    expect(await page.textContent('#view-note')).toContain('Source encoding copied in');
    // The attention still runs and is shown: the engine's weights, not a pattern.
    expect(await crossCells(page, copied.steps, 5)).toEqual(engineCross(copied));
    await page.mouse.move(0, 0);
    await screenshot(page, 'interventions-copy-source');

    await page.reload();
    await idle(page);
    expect(await page.isChecked('#copy-source')).toBe(true);
    expect(await translation(page)).toBe(copied.translation);
    await page.uncheck('#copy-source');
    await idle(page);
    expect(await translation(page)).toBe(TRAINED);
    expect(params(page).get('copysrc')).toBeNull();
    expect(await page.isHidden('#modified')).toBe(true);
    // The preset sets exactly this, and replaces what was there.
    await page.check('#skip-ffn');
    await idle(page);
    await page.click('[data-preset=copy-source]');
    await idle(page);
    expect(await page.isChecked('#copy-source')).toBe(true);
    expect(await page.isChecked('#skip-ffn')).toBe(false);
    expect(await translation(page)).toBe(copied.translation);
    copied.dispose();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('takes a custom matrix (a row per query) for cross and encoder attention, and shows the engine refusing one', async () => {
    const { page, errors } = await openWithCustomOverride();
    const area = page.locator('#overrides textarea[name=matrix]');
    expect(await area.inputValue()).toBe('1 1 1 1 1'); // the row of the number inputs, as text
    const typeMatrix = async (text) => {
      await area.fill(text);
      await page.click('#overrides button.apply');
      await idle(page);
    };

    // Cross-attention: step 1 on "i", step 2 on "can", every later step on "apple".
    await typeMatrix('1 0 0 0 0\n0, 1, 0, 0, 0\n\n[0 0 0 1 0]');
    const matrix = [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 1, 0]];
    const cross = engineRun({ attention: [{ site: 'cross', pattern: 'custom', weights: matrix }] });
    expect(await translation(page)).toBe(cross.translation);
    expect(params(page).getAll('att')).toEqual(['cross.*.*.custom.1_0_0_0_0~0_1_0_0_0~0_0_0_1_0']);
    const cells = await crossCells(page, cross.steps, 5);
    expect(cells).toEqual(engineCross(cross));
    expect(cells.slice(0, 3)).toEqual(matrix);
    expect(cells.at(-1)).toEqual(matrix[2]);
    expect(await page.locator('#overrides input[name=w0]').count()).toBe(0); // a matrix is edited as text
    expect(await page.locator('#modified-list .mod-chip').allTextContents())
      .toEqual(['cross-attention custom matrix, 3 rows [1, 0, 0, 0, 0; 0, 1, 0, 0, 0; 0, 0, 0, 1, 0] (all layers, all heads)']);
    await page.mouse.move(0, 0);
    await screenshot(page, 'interventions-matrix');

    // A row of the wrong length: the engine's message, once, in the panel beside the controls; the
    // change is rolled back in the controls and the URL, and nothing else changes.
    const accepted = 'cross.*.*.custom.1_0_0_0_0~0_1_0_0_0~0_0_0_1_0';
    await typeMatrix('1 0 0 0 0\n0 1 0 0');
    const refusal = 'custom attention row 1 has 4 weights but the source has 5 tokens';
    expect(await page.isVisible('#break-error')).toBe(true);
    expect(await page.textContent('#break-error')).toContain(refusal);
    expect(await page.textContent('#break-error')).toContain('It was undone');
    expect(await page.isHidden('#error')).toBe(true);
    expect(await translation(page)).toBe(cross.translation); // still the last translation made
    expect(params(page).getAll('att')).toEqual([accepted]);
    expect(await area.inputValue()).toBe('1 0 0 0 0\n0 1 0 0 0\n0 0 0 1 0');
    // Not a number: caught while typing, nothing sent.
    await area.fill('1 x 0 0 0');
    await page.click('#overrides button.apply');
    expect(await page.textContent('#overrides .matrix-error')).toBe('row 0 (line 1): “x” is not a number');
    expect(params(page).getAll('att')).toEqual([accepted]);

    // A link to the refused matrix: the page opens with the engine's message and an editable panel.
    const link = new URL(page.url());
    link.searchParams.set('att', 'cross.*.*.custom.1_0_0_0_0~0_1_0_0');
    await page.goto(link.href);
    await page.waitForSelector('#break-error:not([hidden])', { timeout: 30_000 });
    expect(await page.textContent('#break-error')).toContain(refusal);
    expect(await page.locator('#break').getAttribute('open')).not.toBeNull();
    await typeMatrix('0 0 1 0 0');
    expect(await page.isHidden('#break-error')).toBe(true);
    expect(await page.isHidden('#error')).toBe(true);
    expect(params(page).getAll('att')).toEqual(['cross.*.*.custom.0_0_1_0_0']);

    // Encoder self-attention: query 0 on itself, every later query on "eat".
    await page.selectOption('#overrides li select[name=site]', 'encoder');
    await idle(page);
    await typeMatrix('1 0 0 0 0\n0 0 1 0 0');
    const enc = engineRun({ attention: [{ site: 'encoder', pattern: 'custom', weights: [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0]] }] });
    expect(params(page).getAll('att')).toEqual(['encoder.*.*.custom.1_0_0_0_0~0_0_1_0_0']);
    expect(await translation(page)).toBe(enc.translation);
    await page.click('#tab-encoder');
    const shown = await crossCells(page, 5, 5); // the main map, now the encoder's
    const E = enc.encoderAttention({ layer: 0, head: 0 }).data;
    expect(shown).toEqual([0, 1, 2, 3, 4].map((r) => Array.from(E.slice(r * 5, r * 5 + 5))));
    expect(shown[0]).toEqual([1, 0, 0, 0, 0]);
    expect(shown[4]).toEqual([0, 0, 1, 0, 0]);
    enc.dispose();
    cross.dispose();
    // Only the deliberate refusals were errors (the console shows none).
    expect(errors).toEqual([]);
    await page.close();
  });

  it('does not offer "last state only" to a transformer: shown disabled with the page\'s reason, and a link with it is carried over without it', async () => {
    let refusal = '';
    try { t.model.translate(SENTENCE, { interventions: { lastSourceState: true } }); } catch (e) { refusal = e.message; }
    expect(refusal).toMatch(/copySourceEncoding/); // the engine's words, which the page must not show
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end' })}&lastsrc=1`);
    expect(params(page).get('lastsrc')).toBeNull();
    expect(await translation(page)).toBe(engineRun({}).translation);
    expect(await page.isHidden('#error')).toBe(true);
    expect(await page.isHidden('#break-error')).toBe(true);
    expect(await page.isHidden('#break-count')).toBe(true);
    await page.locator('#break').evaluate((d) => { d.open = true; });
    expect(await page.isDisabled('#last-state')).toBe(true);
    expect(await page.isChecked('#last-state')).toBe(false);
    const reason = await page.textContent('#last-state-help');
    expect(reason).toMatch(/^Not for this model: /);
    expect(reason).not.toContain('copySourceEncoding');
    expect(await page.isVisible('#last-state-help')).toBe(true);
    // What it takes stays offered.
    expect(await page.isDisabled('#copy-source')).toBe(false);
    expect(await page.locator('[data-preset]:visible').count()).toBe(10);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps matrices and "copy the source encoding" in the URL codec', () => {
    const iv = {
      attention: [{ site: 'encoder', layer: 0, head: '*', pattern: 'custom', weights: [[1, 0.5, 0], [0, 0, 2]] },
        { site: 'cross', layer: '*', head: 1, pattern: 'custom', weights: [0.25, 1, 0] }],
      maskHeads: [], skip: ['ffn'], copySourceEncoding: true,
    };
    const state = { ...parseState(''), s: SENTENCE, iv };
    const query = formatState(state);
    expect(new URLSearchParams(query).getAll('att')).toEqual(['encoder.0.*.custom.1_0.5_0~0_0_2', 'cross.*.1.custom.0.25_1_0']);
    expect(new URLSearchParams(query).get('copysrc')).toBe('1');
    expect(parseState(query).iv).toEqual(iv);
    // A one-row matrix is that row; an empty entry is not a 0 (the override is dropped).
    expect(parseState('?att=cross.*.*.custom.1_0_1').iv.attention[0].weights).toEqual([1, 0, 1]);
    expect(parseState('?att=cross.*.*.custom.1__1').iv.attention).toEqual([]);
    expect(parseState('?copysrc=0').iv).toEqual({ attention: [], maskHeads: [], skip: [] });
  });
  it('lists the skips of the skip presets on screen, and names presets in their own casing without nested quotes', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 'end' })}`);
    await page.click('#break summary');
    const cases = [
      ['no-ffn', 'Modified model: “no FFN”.', ['no FFN']],
      ['no-layernorm', 'Modified model: “no LayerNorm”.', ['no LayerNorm']],
      ['layernorm-only', 'Modified model: “LayerNorm only”.', ['no encoder self-attention', 'no decoder self-attention', 'no cross-attention (“no attention”)', 'no FFN']],
      ['only-decoder-self', 'Modified model: “only decoder self-attention”.', ['no encoder self-attention', 'no cross-attention (“no attention”)']],
      ['residual-only', 'Modified model: “residual only, a.k.a. dropout only”.',
        ['no encoder self-attention', 'no decoder self-attention', 'no cross-attention (“no attention”)', 'no FFN', 'no LayerNorm']],
    ];
    const width = page.viewportSize().width;
    for (const [preset, title, chips] of cases) {
      await page.click(`[data-preset=${preset}]`);
      await idle(page);
      const shown = await page.textContent('#modified-title');
      expect(shown).toBe(title);
      expect(shown.match(/[“”]/g)).toHaveLength(2); // one pair of quotes, none nested
      const chip = page.locator('#modified-list .mod-chip');
      expect(await chip.allTextContents()).toEqual(chips);
      // On screen, inside the banner: not pushed off to the left by the skip link's rule.
      const banner = await page.locator('#modified').boundingBox();
      for (const box of await Promise.all((await chip.all()).map((c) => c.boundingBox()))) {
        expect(box.x).toBeGreaterThanOrEqual(banner.x);
        expect(box.x + box.width).toBeLessThanOrEqual(Math.min(width, banner.x + banner.width));
      }
    }
    await page.locator('#modified').scrollIntoViewIfNeeded();
    await screenshot(page, 'interventions-skip-chips', { fullPage: false });
    // The skip link still hides off screen until focused.
    expect((await page.locator('.skip-link').boundingBox()).x).toBeLessThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
