// Regenerates docs/screenshot.png, the README's picture, from the real demo page: serves the
// repository as `npm start` does (web/serve.mjs), opens the page in Debian's Chromium at a fixed
// viewport, translates a Multi30k sentence with the shipped English→German transformer and beam
// search, a few steps in, and saves two views of that step side by side: the page as it stands
// (the form, the stepper, the output so far, the step's logits and the cross-attention heatmap;
// the Architecture card folded, as the page opens it) and, on the right, the attention card
// switched to its "Beam search" tab (the search tree and the beam).
//
//   node docs/screenshot.mjs [OUT.png]        (default docs/screenshot.png; needs web/wasm/, as npm start builds)
//
// Prints one JSON line: {path, width, height, sentence, model, step, shown, translation}, `shown`
// being the translation so far at the pictured step and `translation` the page's full translation
// (the same page run to its end with the End key). tests/browser/screenshot.test.js runs it.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { serve } from '../web/serve.mjs';
import { CHROMIUM_FLAGS, idle, watchErrors } from '../tests/browser/browser.js';

const root = resolve(import.meta.dirname, '..');
export const SENTENCE = 'A man is riding a bicycle down the street.';
export const MODEL = 'multi30k-en-de';
export const BEAM = 4;
export const STEP = 4;
/** The browser window: the page's two-column layout, as on a laptop. */
export const VIEWPORT = { width: 1120, height: 1100 };

const query = (params) => new URLSearchParams(params).toString();

/** Takes the screenshot into `out`; resolves to what the page showed (see the header). */
export async function takeScreenshot(out = resolve(root, 'docs/screenshot.png')) {
  const server = await serve({ port: 0 });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage({ viewport: VIEWPORT, deviceScaleFactor: 1, serviceWorkers: 'block', colorScheme: 'light' });
    const errors = watchErrors(page);
    const url = (view, step) => `http://127.0.0.1:${server.address().port}/web/index.html?` +
      query({ s: SENTENCE, model: MODEL, mode: 'beam', beam: BEAM, step, view });
    await page.goto(url('cross', STEP));
    await idle(page);
    const shown = (await page.locator('#translation').textContent()).trim();

    // The page as it is at that step (the Architecture card folded, as it opens), scrolled to the
    // form: the sentence and the decoding, the stepper, the output, the logits and the map.
    if (await page.evaluate(() => document.querySelector('#architecture').open)) throw new Error('the Architecture card opened unfolded');
    const toForm = () => page.evaluate(() => {
      document.activeElement?.blur();
      window.scrollTo(0, document.querySelector('#controls').getBoundingClientRect().top + window.scrollY - 8);
    });
    await toForm();
    await idle(page);
    const shot = await page.screenshot({ type: 'png' });
    // The same step with the attention card on its other tab: the beam search tree.
    await page.locator('#tab-beam').click();
    await idle(page);
    await page.evaluate(() => {
      // The card's top just under the stepper, which sticks to the top of the window when scrolled.
      document.activeElement?.blur();
      const stepper = document.querySelector('#stepper');
      const below = (parseFloat(getComputedStyle(stepper).top) || 0) + stepper.offsetHeight + 12;
      window.scrollTo(0, document.querySelector('#attention').getBoundingClientRect().top + window.scrollY - below);
    });
    const cardBox = await page.locator('#attention').boundingBox();
    if (cardBox.y < 0 || cardBox.y + cardBox.height > VIEWPORT.height) throw new Error(`the beam card does not fit the window: ${JSON.stringify(cardBox)}`);
    const card = await page.screenshot({ type: 'png', clip: cardBox });

    // And the whole translation, for the caller to check against the engine: the same page at the end.
    await page.keyboard.press('End');
    await idle(page);
    const translation = (await page.locator('#translation').textContent()).trim();
    if (errors.length) throw new Error(`the page reported errors: ${errors.join('; ')}`);

    // Both pictures side by side in one PNG, laid out by the same browser.
    const width = VIEWPORT.width + Math.ceil(cardBox.width) + 16;
    const height = VIEWPORT.height;
    const sheet = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
    await sheet.setContent(`<!doctype html><body style="margin:0;background:#f6f8fa;display:flex;gap:16px;align-items:flex-start">
      <img src="data:image/png;base64,${shot.toString('base64')}">
      <img style="margin-top:8px" src="data:image/png;base64,${card.toString('base64')}"></body>`);
    await sheet.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    mkdirSync(dirname(out), { recursive: true });
    await sheet.screenshot({ path: out, type: 'png' });
    return { path: out, width, height, sentence: SENTENCE, model: MODEL, step: STEP, shown, translation };
  } finally {
    await browser.close();
    server.closeAllConnections?.();
    await new Promise((ok) => server.close(ok));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const result = await takeScreenshot(process.argv[2] ? resolve(process.argv[2]) : undefined);
  console.log(JSON.stringify(result));
}
