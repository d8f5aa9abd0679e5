// A SentencePiece model (a converted Marian, tests/golden/hf/) reads as words in the page and the
// widget, as a BPE model does (web/app/util/pieces.js): "A man is riding a horse.", not
// "▁A ▁man ▁ is ▁ rid ing ▁a ▁ho rse ."; one piece alone loses its "▁" (the logits, the beam
// tree, the map's labels); "show subword pieces" shows the model's pieces.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, startBrowser, watchErrors } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const MODEL = '/tests/golden/hf/opus-mt-en-de-tiny.safetensors';
const SENTENCE = 'A man is riding a horse.';
/** The sentence as a person writes it, a chip per word, and the end-of-sentence token. */
const WORDS = [...SENTENCE.split(' '), '</s>'];

const mapLabels = (page, host, sel) => page.evaluate(([h, s]) => {
  const root = h ? document.querySelector(h).shadowRoot : document;
  const spec = root.querySelector(s)[Symbol.for('attnscope.heatmap')].spec;
  return [...spec.rowLabels, ...spec.colLabels];
}, [host, sel]);

it('shows a SentencePiece model\'s tokens as words in the page, and its pieces on request', async () => {
  const q = new URLSearchParams({ 'model-url': MODEL, s: SENTENCE, mode: 'beam', beam: '2', step: '4' });
  const { page, errors } = await openPage(env, `/web/index.html?${q}`);
  const source = await page.evaluate(() => window.attnscope.snapshot.source.pieces);
  expect(source.filter((p) => p === '▁').length, 'the model cuts "▁" off alone').toBeGreaterThan(0);
  expect(await page.locator('#source-tokens .tok').allTextContents()).toEqual(WORDS);
  expect(await page.textContent('#pieces-help')).toContain('▁ starts a word');
  const shown = [
    ...await page.locator('#lines li .in, #lines li .out').allTextContents(),
    ...await page.locator('#bars .bar .tok').allTextContents(),
    await page.textContent('#logits-caption .mono'),
    ...await mapLabels(page, null, '#heatmap canvas'),
  ];
  await page.click('#tab-beam');
  await page.locator('.tree-scroll .node').first().waitFor();
  await idle(page);
  shown.push(...await page.locator('.tree-scroll .node:not([display=none]) text:first-of-type').allTextContents());
  expect(shown.filter((l) => l.includes('▁'))).toEqual([]);
  expect(shown.some((l) => l.startsWith('·')), 'a piece that continues a word, named alone').toBe(true);

  await page.check('#pieces');
  await idle(page);
  expect(await page.locator('#source-tokens .tok').allTextContents()).toEqual(source);
  expect(errors).toEqual([]);
  await page.close();
});

it('shows a SentencePiece model\'s sentence and labels as words in the widget', async () => {
  const page = await env.browser.newPage({ viewport: { width: 900, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(env.url('/web/blog.html'));
  await page.waitForFunction(() => document.querySelector('#first').snapshot?.done);
  await page.evaluate(([m, s]) => { const w = document.querySelector('#first'); w.setAttribute('model', m); w.setAttribute('src', s); w.setAttribute('step', '3'); }, [MODEL, SENTENCE]);
  await page.waitForFunction((m) => document.querySelector('#first').snapshot?.url.endsWith(m) && document.querySelector('#first').snapshot.steps === 3, MODEL, { timeout: 60_000 });
  expect(await page.locator('#first .sentence .s').textContent()).toBe(SENTENCE);
  const labels = await mapLabels(page, '#first', 'canvas');
  expect(labels.filter((l) => l.includes('▁'))).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});
