// The demo page (web/index.html) in Debian's Chromium: translate, step, hover, force, keyboard,
// URL state, beam view, export. Reference numbers come from the same engine run in this Node
// process through web/attnscope.js, independently of the page.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { decodeOptions, formatState, parseState } from '../../web/app/state/state.js';
import { FROZEN_TOY, hoverCell, idle, openPage, root, screenshot, startBrowser, watchErrors } from './browser.js';

const SENTENCE = 'i can eat apple';
let env;
let model;
let reference; // the greedy translation of SENTENCE, run to the end in Node

beforeAll(async () => {
  env = await startBrowser();
  model = await loadModel(FROZEN_TOY);
  reference = model.translate(SENTENCE);
  reference.run();
});
afterAll(async () => {
  reference?.dispose();
  model?.dispose();
  await env?.close();
});

/** A fresh page that accepts downloads (for the export test). */
const open = (path, viewport) => openPage(env, path, { viewport, acceptDownloads: true });


async function steps(page) {
  return Number(await page.locator('#app').getAttribute('data-steps'));
}

const outputs = (page) => page.locator('#lines li .out').allTextContents();

describe('the demo page', () => {
  it('translates "i can eat apple" step by step to "ich konnen apfel essen"', async () => {
    const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    const errors = watchErrors(page);
    const fetched = new Set();
    // GET requests of the page and of its worker (Playwright reports both on the page).
    page.on('request', (r) => { if (r.method() === 'GET' && r.url().startsWith(env.url('/'))) fetched.add(new URL(r.url()).pathname); });
    await page.goto(env.url('/web/index.html'));
    await idle(page);
    // The first heatmap, measured by the page itself (a performance mark) from navigation start.
    const ttfh = await page.evaluate(() => performance.getEntriesByName('attnscope:first-heatmap')[0]?.startTime);
    expect(ttfh).toBeGreaterThan(0);
    console.log(`time to first heatmap (headless Chromium, toy-en-de): ${ttfh.toFixed(0)} ms`);
    // What the first load downloads, from the files themselves: raw and gzip -9.
    const code = [...fetched].filter((p) => /\.(html|js|mjs|css|wasm)$/.test(p));
    expect(code).toEqual(expect.arrayContaining(['/web/index.html', '/web/page.js', '/web/page-worker.js', '/web/wasm/attnscope-wasm.wasm']));
    const size = (list) => list.reduce((t, p) => {
      const bytes = readFileSync(join(root, p));
      return { raw: t.raw + bytes.length, gzip: t.gzip + gzipSync(bytes, { level: 9 }).length };
    }, { raw: 0, gzip: 0 });
    const kb = ({ raw, gzip }) => `${(raw / 1024).toFixed(1)} KiB raw, ${(gzip / 1024).toFixed(1)} KiB gzip`;
    const models = [...fetched].filter((p) => p.endsWith('.safetensors'));
    console.log(`first load: ${code.length} files of HTML+CSS+JS+WASM = ${kb(size(code))}; model ${models.join(', ')} = ${kb(size(models))}`);
    expect(statSync(join(root, 'web/wasm/attnscope-wasm.wasm')).size).toBeGreaterThan(100_000);

    await page.fill('#sentence', SENTENCE);
    await page.selectOption('#model', 'toy-en-de');
    await page.check('input[name=mode][value=greedy]');
    await page.click('#translate');
    await idle(page);
    expect(await steps(page)).toBe(1);
    expect(await outputs(page)).toEqual(['ich']);
    expect(await page.locator('#lines li').first().textContent()).toMatch(/1\)\s*<s>\s*→\s*ich/);

    for (let i = 2; i <= 5; i++) {
      await page.click('#next');
      await idle(page);
      expect(await steps(page)).toBe(i);
    }
    expect(await outputs(page)).toEqual(['ich', 'konnen', 'apfel', 'essen', '</s>']);
    expect(await page.textContent('#translation')).toBe('ich konnen apfel essen');
    expect(await page.textContent('#translation')).toBe(reference.translation);
    expect(await page.locator('#app').getAttribute('data-done')).toBe('true');
    expect(await page.isDisabled('#next')).toBe(true);
    // One row per step in the cross-attention heatmap, over the 5 source tokens.
    const grid = JSON.parse(await page.locator('#heatmap canvas').getAttribute('data-grid'));
    expect([grid.rows, grid.cols]).toEqual([5, 5]);
    await screenshot(page, 'page-desktop-end');
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows each heatmap cell's exact engine value on hover (cross, encoder, decoder self)", async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 5 })}`);
    const canvas = page.locator('#heatmap canvas');
    const tip = page.locator('#heatmap .hm-tip');
    // Every cross-attention cell: row = step, column = source token.
    for (let step = 0; step < 5; step++) {
      const expected = reference.crossAttention(step, { layer: 0, head: 0 }).data;
      for (let col = 0; col < 5; col++) {
        await hoverCell(page, canvas, step, col);
        await expect.poll(() => tip.getAttribute('data-row')).toBe(String(step));
        expect(await tip.getAttribute('data-col')).toBe(String(col));
        const shown = await tip.getAttribute('data-value');
        expect(Number(shown)).toBe(expected[col]);
        expect(await tip.textContent()).toContain(String(expected[col]));
      }
    }
    await hoverCell(page, canvas, 3, 2);
    await screenshot(page, 'page-hover-cross', { fullPage: false });

    // Encoder self-attention: [src][src].
    await page.click('#tab-encoder');
    const enc = reference.encoderAttention({ layer: 0, head: 0 });
    await hoverCell(page, canvas, 2, 3);
    await expect.poll(() => tip.getAttribute('data-row')).toBe('2');
    expect(Number(await tip.getAttribute('data-value'))).toBe(enc.data[2 * 5 + 3]);

    // Decoder self-attention: step 3 looks at positions 0..3; later cells are masked.
    await page.click('#tab-self');
    const self = reference.selfAttention(3, { layer: 0, head: 0 }).data;
    await hoverCell(page, canvas, 3, 1);
    await expect.poll(() => tip.getAttribute('data-row')).toBe('3');
    expect(Number(await tip.getAttribute('data-value'))).toBe(self[1]);
    await hoverCell(page, canvas, 1, 4);
    await expect.poll(() => tip.isHidden()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('forces the clicked logit bar as the token of that step, then continues from it', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 3 })}`);
    expect(await outputs(page)).toEqual(['ich', 'konnen', 'apfel']);
    const bar = page.locator('#bars button.bar[data-token="brot"]');
    expect(await bar.getAttribute('aria-pressed')).toBe('false');
    await bar.click();
    await idle(page);
    expect(await steps(page)).toBe(3);
    expect(await outputs(page)).toEqual(['ich', 'konnen', 'brot']);
    expect(await page.locator('#lines li.current .badge').textContent()).toBe('forced');
    expect(await page.locator('#bars button.bar[data-token="brot"]').getAttribute('aria-pressed')).toBe('true');

    // The engine in Node, forced the same way, decides the next token: the page must agree.
    const s = model.translate(SENTENCE);
    s.step();
    s.step();
    s.force('brot');
    s.step();
    const nextToken = s.hypotheses()[0]?.tokens[3] ?? s.nbest()[0].tokens[3];
    await page.click('#next');
    await idle(page);
    expect(await outputs(page)).toEqual(['ich', 'konnen', 'brot', nextToken]);
    // Going back past the forced step and forward again keeps the forced token.
    await page.click('#first');
    await idle(page);
    await page.click('#last');
    await idle(page);
    s.run();
    expect(await page.textContent('#translation')).toBe(s.translation);
    expect((await outputs(page)).slice(0, 3)).toEqual(['ich', 'konnen', 'brot']);
    s.dispose();
    await screenshot(page, 'page-forced');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('steps with the keyboard: → next, ← previous, End, Home', async () => {
    const { page, errors } = await open('/web/index.html');
    expect(await steps(page)).toBe(1);
    await page.locator('h1').click(); // focus on the page, not in a form field
    await page.keyboard.press('ArrowRight');
    await idle(page);
    expect(await steps(page)).toBe(2);
    await page.keyboard.press('ArrowRight');
    await idle(page);
    expect(await steps(page)).toBe(3);
    await page.keyboard.press('ArrowLeft');
    await idle(page);
    expect(await steps(page)).toBe(2);
    expect(await outputs(page)).toEqual(['ich', 'konnen']);
    await page.keyboard.press('End');
    await idle(page);
    expect(await steps(page)).toBe(5);
    await page.keyboard.press('Home');
    await idle(page);
    expect(await steps(page)).toBe(0);
    // Play runs to the end by itself.
    await page.click('#play');
    await page.waitForFunction(() => document.querySelector('#app').dataset.done === 'true', null, { timeout: 20_000 });
    await idle(page);
    expect(await outputs(page)).toEqual(['ich', 'konnen', 'apfel', 'essen', '</s>']);
    await page.keyboard.press('Home');
    await idle(page);
    // In the sentence field the arrows move the caret, not the decoder.
    await page.focus('#sentence');
    await page.keyboard.press('ArrowRight');
    await page.waitForTimeout(100);
    await idle(page);
    expect(await steps(page)).toBe(0);
    // On a focused heatmap the arrows read cells.
    await page.keyboard.press('Escape');
    await page.locator('h1').click();
    await page.keyboard.press('End');
    await idle(page);
    await page.focus('#heatmap canvas');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    expect(await steps(page)).toBe(5);
    expect(await page.locator('#heatmap .hm-tip').getAttribute('data-col')).toBe('1');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps sentence, model, mode, step, view, layer and head in the URL, and restores them', async () => {
    const { page, errors } = await open('/web/index.html');
    await page.fill('#sentence', 'we want to read book');
    await page.check('input[name=mode][value=beam]');
    await idle(page);
    await page.fill('#beam', '3');
    await page.locator('#beam').dispatchEvent('change');
    await idle(page);
    await page.click('#next');
    await idle(page);
    await page.click('#tab-self');
    await page.selectOption('#head', 'mean');
    const url = new URL(page.url());
    const q = url.searchParams;
    expect(q.get('s')).toBe('we want to read book');
    expect(q.get('model')).toBe('toy-en-de');
    expect(q.get('mode')).toBe('beam');
    expect(q.get('beam')).toBe('3');
    expect(q.get('step')).toBe('2');
    expect(q.get('view')).toBe('self');
    expect(q.get('layer')).toBe('0');
    expect(q.get('head')).toBe('mean');
    const before = {
      lines: await outputs(page),
      grid: await page.locator('#heatmap canvas').getAttribute('data-grid'),
    };
    await hoverCell(page, page.locator('#heatmap canvas'), 1, 0);
    const value = await page.locator('#heatmap .hm-tip').getAttribute('data-value');

    const { page: again, errors: errors2 } = await open(url.pathname + url.search);
    expect(await again.inputValue('#sentence')).toBe('we want to read book');
    expect(await again.isChecked('input[name=mode][value=beam]')).toBe(true);
    expect(await again.inputValue('#beam')).toBe('3');
    expect(await steps(again)).toBe(2);
    expect(await again.getAttribute('#tab-self', 'aria-selected')).toBe('true');
    expect(await again.inputValue('#head')).toBe('mean');
    expect(await outputs(again)).toEqual(before.lines);
    expect(await again.locator('#heatmap canvas').getAttribute('data-grid')).toBe(before.grid);
    await hoverCell(again, again.locator('#heatmap canvas'), 1, 0);
    expect(await again.locator('#heatmap .hm-tip').getAttribute('data-value')).toBe(value);
    expect(again.url()).toBe(url.href);

    // The codec itself: parse(format(state)) is the state.
    const state = { ...parseState(''), s: 'a b', mode: 'sample', temp: 0.7, topk: 5, topp: 0.9, seed: 42, step: 3, view: 'encoder', layer: 2, head: 'mean' };
    expect(parseState(formatState(state))).toEqual(state);
    expect(decodeOptions(state)).toEqual({ strategy: 'sample', temperature: 0.7, topK: 5, topP: 0.9, seed: 42 });
    expect(errors).toEqual([]);
    expect(errors2).toEqual([]);
    await page.close();
    await again.close();
  });

  it('shows the beam tree (finished and pruned candidates) and the n-best list of the engine', async () => {
    const { page, errors } = await open(`/web/index.html${formatState({ ...parseState(''), s: SENTENCE, mode: 'beam', beam: 3, step: 'end', view: 'beam' })}`);
    const s = model.translate(SENTENCE, { strategy: 'beam', beamSize: 3, nbest: 3 });
    s.run();
    const tree = s.beamTree();
    expect(await page.locator('#view-body .node').count()).toBe(tree.length);
    expect(await page.locator('#view-body .node[data-status=pruned]').count()).toBe(tree.filter((n) => n.status === 'pruned').length);
    expect(await page.locator('#view-body .node[data-status=finished]').count()).toBe(tree.filter((n) => n.status === 'finished').length);
    expect(await page.locator('.hyps.nbest li .text').allTextContents()).toEqual(s.nbest().map((h) => h.text));
    // Selecting the second-best hypothesis makes the other views follow it.
    await page.locator('.hyps.nbest button.hyp').nth(1).click();
    await idle(page);
    expect(await page.textContent('#translation')).toBe(s.nbest()[1].text);
    await screenshot(page, 'page-beam');
    await page.click('#tab-model');
    expect(await page.locator('.model-grid .thumb canvas').count()).toBe(1); // toy: 1 layer x 1 head
    await page.locator('#pruned').isHidden();
    s.dispose();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows the download in bytes while a model loads, and switches models', async () => {
    const { page, errors } = await open('/web/index.html');
    await page.evaluate(() => {
      window.progressTexts = [];
      new MutationObserver(() => window.progressTexts.push(document.querySelector('#progress-text').textContent))
        .observe(document.querySelector('#progress-text'), { childList: true, characterData: true, subtree: true });
    });
    await page.selectOption('#model', 'toy-en-de-epoch003');
    await idle(page);
    const texts = await page.evaluate(() => window.progressTexts);
    const size = statSync(join(root, 'models/snapshots/toy-en-de.epoch003.safetensors')).size;
    expect(texts.at(-1)).toBe(`Loading Toy en→de, epoch 3: ${(size / 1024).toFixed(0)} kB of ${(size / 1024).toFixed(0)} kB`);
    expect(await page.isHidden('#progress')).toBe(true);
    expect(new URL(page.url()).searchParams.get('model')).toBe('toy-en-de-epoch003');
    const early = await loadModel(join(root, 'models/snapshots/toy-en-de.epoch003.safetensors'));
    const s = early.translate(SENTENCE);
    s.step();
    expect(await outputs(page)).toEqual([s.hypotheses()[0]?.tokens[0] ?? s.nbest()[0].tokens[0]]);
    s.dispose();
    early.dispose();
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows the engine's errors and unknown words, and keeps working", async () => {
    const { page, errors } = await open('/web/index.html');
    const long = Array(20).fill('i can eat apple').join(' ');
    let engineMessage = '';
    try { model.translate(long); } catch (e) { engineMessage = e.message; }
    expect(engineMessage).not.toBe('');
    await page.fill('#sentence', long);
    await page.click('#translate');
    await idle(page);
    expect(await page.textContent('#error')).toBe(engineMessage);
    expect(await page.isVisible('#error')).toBe(true);
    await page.fill('#sentence', 'i can eat pizza');
    await page.click('#translate');
    await idle(page);
    expect(await page.isHidden('#error')).toBe(true);
    expect(await page.textContent('#source-tokens .warn')).toContain('pizza');
    expect(await steps(page)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('exports the view as SVG and PNG', async () => {
    const { page, errors } = await open('/web/index.html?step=end');
    const [svg] = await Promise.all([page.waitForEvent('download'), page.click('[data-export=view][data-format=svg]')]);
    expect(svg.suggestedFilename()).toMatch(/^attnscope-toy-en-de-step5-cross-L1-H1\.svg$/);
    const text = readFileSync(await svg.path(), 'utf8');
    expect(text).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(text).toContain('apfel');
    const [png] = await Promise.all([page.waitForEvent('download'), page.click('[data-export=logits][data-format=png]')]);
    expect(png.suggestedFilename()).toMatch(/\.png$/);
    expect(readFileSync(await png.path()).subarray(1, 4).toString()).toBe('PNG');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('works on a narrow (phone) screen', async () => {
    const { page, errors } = await open('/web/index.html?step=3', { width: 390, height: 844 });
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    const canvas = page.locator('#heatmap canvas');
    const box = await canvas.boundingBox();
    expect(box.width).toBeLessThanOrEqual(390);
    await screenshot(page, 'page-narrow');
    await hoverCell(page, canvas, 2, 3);
    await expect.poll(() => page.locator('#heatmap .hm-tip').getAttribute('data-row')).toBe('2');
    await screenshot(page, 'page-narrow-hover', { fullPage: false });
    expect(errors).toEqual([]);
    await page.close();
  });
});
