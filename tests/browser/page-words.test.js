// Every text of the page fits the kind of model it shows (web/app/panels/prompt-mode.js): a model
// that translates, one that continues a prompt (GPT) and one that fills masks (BERT). The form's
// label and button, the intro, the tagline and the output card's labels say what the model does,
// and stay so after a run; nothing on a GPT or BERT page speaks of translating, a source sentence or
// cross-attention, but for the cards about other models (the training card, the BLEU chart of the
// shipped translators, the toy model's training timeline).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, startBrowser } from './browser.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

const TRANSLATION_WORDS = /translat|cross-attention|source sentence|\bsource\b/i;
/** Cards about models other than the one shown: they name their own. */
const OTHER_MODELS = '#training, #bleu-length, #an-timeline';

/** The visible texts of the page (text nodes, and the title, aria-label and placeholder of visible elements) that match `re`. */
const visibleMatches = (page, re) => page.evaluate(([source, flags, skip]) => {
  const pattern = new RegExp(source, flags);
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n; (n = walker.nextNode());) {
    const el = n.parentElement;
    if (el.closest('script, style') || !el.checkVisibility() || el.closest(skip)) continue;
    if (pattern.test(n.textContent)) out.push(`${el.closest('[id]')?.id}: ${n.textContent.trim().replace(/\s+/g, ' ').slice(0, 100)}`);
  }
  for (const el of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (!el.checkVisibility() || el.closest(skip)) continue;
    for (const a of ['title', 'aria-label', 'placeholder']) {
      const v = el.getAttribute(a);
      if (v && pattern.test(v)) out.push(`${el.id || el.className} [${a}]: ${v.slice(0, 100)}`);
    }
  }
  return out;
}, [re.source, re.flags, OTHER_MODELS]);

/** The page's own words: form, tagline, intro (the one shown), output card labels. */
const words = (page) => page.evaluate(() => ({
  label: document.querySelector('#sentence-label').textContent,
  button: document.querySelector('#translate').textContent,
  tagline: document.querySelector('.tagline').innerText.trim(),
  intro: [...document.querySelectorAll('.intro')].filter((p) => p.checkVisibility()).map((p) => p.textContent.replace(/\s+/g, ' ').trim()),
}));

it('a model that translates: the page speaks of translating', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-en-de&step=2');
  const w = await words(page);
  expect([w.label, w.button]).toEqual(['Sentence to translate', 'Translate']);
  expect(w.tagline).toMatch(/translate/);
  expect(w.intro).toHaveLength(1);
  expect(w.intro[0]).toMatch(/^A translation model writes its output/);
  expect(await page.textContent('#translation-label')).toBe('Translation:');
  expect(errors).toEqual([]);
  await page.close();
});

it('a BERT model: the form keeps its words after a run, and nothing speaks of translating', async () => {
  const { page, errors } = await openPage(env, '/web/index.html?model=multi30k-en-mlm', { wait: false });
  await page.waitForSelector('#encoder[data-renders]', { timeout: 60_000 });
  await page.evaluate(() => window.attnscope.encoder.idle());
  const before = await words(page);
  expect(before.button).toBe('Read');
  expect(before.label).toMatch(/^Text \(put \[MASK\]/);
  // A text of the reader's own, read: the form keeps the encoder-only words.
  const renders = Number(await page.getAttribute('#encoder', 'data-renders'));
  await page.fill('#sentence', 'two dogs are playing in the [MASK] .');
  await page.click('#translate');
  await page.waitForFunction((n) => Number(document.querySelector('#encoder').dataset.renders) > n, renders, { timeout: 60_000 });
  await page.evaluate(() => window.attnscope.encoder.idle());
  const after = await words(page);
  expect([after.label, after.button]).toEqual([before.label, 'Read']);
  expect(after.tagline).toMatch(/masked words/);
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  expect(await visibleMatches(page, TRANSLATION_WORDS)).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});

it('a GPT model: the first step reads <s> and the whole prompt, and nothing speaks of translating, in any view or analysis', async () => {
  const { page, errors } = await openPage(env, `/web/index.html?model=multi30k-en-gpt&s=${encodeURIComponent('Two dogs are')}&step=2`);
  const w = await words(page);
  expect([w.label, w.button]).toEqual(['Prompt', 'Generate']);
  expect(w.tagline).toMatch(/write/);
  expect(w.intro).toHaveLength(1);
  expect(w.intro[0]).toMatch(/^A decoder-only model continues its prompt/);
  const second = await page.evaluate(() => window.attnscope.snapshot.rows[1].input); // the first step's output
  expect(second.startsWith('▁')).toBe(true);
  expect(await page.locator('#lines li .in').allTextContents()).toEqual(['<s> Two dogs are', second.slice(1)]);
  await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
  await page.evaluate(() => window.attnscope.idle());
  for (const tab of [null, '#tab-model', '#tab-beam', '#an-tab-vectors', '#an-tab-importance']) {
    if (tab) {
      await page.click(tab);
      await page.evaluate(() => window.attnscope.idle());
      await idle(page);
    }
    expect(await visibleMatches(page, TRANSLATION_WORDS), tab ?? 'first view').toEqual([]);
  }
  expect(errors).toEqual([]);
  await page.close();
});
