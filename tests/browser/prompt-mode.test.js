// Prompt mode: the caption writer (models/multi30k-en-gpt.safetensors, a decoder-only model) in the
// demo page and the widget. Every number the page shows is compared with the engine's own session
// run in Node on the same prompt: the logits, the attention over the context (the prompt's rows
// from the first step, one row per step after it), forcing, beam search with its tree, a masked
// head that changes the continuation, the state restored from a URL, and <attn-scope prompt=…>;
// and the same model read without <bos> (as GPT-2's tokenizer has it), shown so in every view.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { artifacts, idle, openPage, root, screenshot, watchErrors } from './browser.js';
import { browserWithModel } from './with-model.js';

const MODEL = 'multi30k-en-gpt';
const PROMPT = 'A man in a blue shirt is';
/** More caption openings, for a head whose masking changes a greedy continuation (the first found is used). */
const PROMPTS = ['Two dogs', 'A woman', 'A little girl', 'People are'];
const t = browserWithModel(`models/${MODEL}.safetensors`);
const pageUrl = (st) => `/web/index.html${formatState({ ...parseState(''), model: MODEL, s: PROMPT, ...st })}`;
const close = (values) => Array.from(values, (x) => expect.closeTo(x, 5)); // a NaN is close to nothing

/** One head's block of a [layers, heads, ...] tensor, as rows of `keys`. */
function headRows(tensor, layer, head) {
  const [, heads, ...rest] = tensor.shape;
  const size = rest.reduce((a, b) => a * b, 1);
  const keys = rest.at(-1);
  const block = tensor.data.slice((layer * heads + head) * size, (layer * heads + head + 1) * size);
  return Array.from({ length: size / keys }, (_, q) => Array.from(block.slice(q * keys, (q + 1) * keys)));
}

/**
 * A model file's bytes with its config's prepend_bos set (models/FORMAT.md): false makes the caption
 * writer read a prompt as GPT-2 does, without <bos>. The header is padded to 8 bytes with spaces.
 */
function withPrependBos(bytes, value) {
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  header.__metadata__.config = JSON.stringify({ ...JSON.parse(header.__metadata__.config), prepend_bos: value });
  const text = JSON.stringify(header);
  const padded = Buffer.from(text + ' '.repeat((8 - (Buffer.byteLength(text) % 8)) % 8));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(padded.length));
  return Buffer.concat([length, padded, bytes.subarray(8 + n)]);
}

/** The main map's values, row and column labels (the heatmap the page drew). */
const mapOf = (page) => page.evaluate("import('/web/app/views/heatmap.js').then((m) => { const s = m.heatmapOf(document.querySelector('#heatmap canvas')).spec; return { values: s.values.map((r) => [...r]), rows: s.rowLabels, cols: s.colLabels, highlight: s.highlightRow }; })");
/** The logits chart's bars: [{id, logit}]. */
const barsOf = (page) => page.locator('#bars .bar').evaluateAll((bs) => bs.map((b) => ({ id: Number(b.dataset.id), logit: Number(b.dataset.logit) })));
const snapshot = (page) => page.evaluate(() => { const s = window.attnscope.snapshot; return { steps: s.steps, ids: s.path.ids, text: s.path.text, done: s.done }; });

/** The engine's greedy continuation of `prompt` with `options`, run to the end. */
function continuation(prompt, options = {}) {
  const s = t.model.generate(prompt, { strategy: 'greedy', ...options });
  s.run();
  const best = s.nbest()[0];
  s.dispose();
  return best;
}

it('steps a generation: the logits and the attention over the whole context are the engine\'s', async () => {
  const s = t.model.generate(PROMPT, { strategy: 'greedy', alternatives: 10 });
  const P = s.source.ids.length; // what the model reads: <s> and the prompt (the file has no prepend_bos)
  expect(s.source.pieces[0]).toBe('<s>');
  const { page, errors } = await openPage(t.env, pageUrl({ step: 1, layer: 1, head: 2 }));
  expect(await page.textContent('#sentence-label')).toBe('Prompt');
  expect(await page.textContent('#translation-label')).toBe('Continuation:');
  expect(await page.textContent('#translate')).toBe('Generate');
  const first = s.step();
  expect(await barsOf(page)).toEqual(first.expansions[0].top.map((a) => ({ id: a.id, logit: expect.closeTo(a.logit, 5) })));
  // The first step: the full causal map of <s> and the prompt, a row per position.
  let map = await mapOf(page);
  const firstRows = headRows(first.expansions[0].attention.self, 1, 2);
  expect(firstRows).toHaveLength(P);
  expect(map.values).toEqual(firstRows.map(close));
  expect(map.rows).toHaveLength(P);
  expect(map.cols).toEqual(map.rows);
  expect(map.highlight).toBe(P - 1);
  // The Analyses card rolls out the prompt's map (the engine's rollout of the first step).
  const rollout = s.promptRollout();
  const rolled = await page.evaluate("import('/web/app/views/heatmap.js').then((m) => m.heatmapOf(document.querySelector('#rollout-map canvas')).spec.values.map((r) => [...r]))");
  expect(rolled.flat()).toEqual(close(rollout.data));
  expect(rolled).toHaveLength(P);

  // Next: one row more, over the whole context; the prompt's rows stay.
  await page.click('#next');
  await idle(page);
  const second = s.step();
  map = await mapOf(page);
  const [row] = headRows(second.expansions[0].attention.self, 1, 2);
  expect(row).toHaveLength(P + 1);
  expect(map.values).toEqual([...firstRows, row].map(close));
  expect(map.cols).toHaveLength(P + 1);
  expect(map.highlight).toBe(P);
  expect(await barsOf(page)).toEqual(second.expansions[0].top.map((a) => ({ id: a.id, logit: expect.closeTo(a.logit, 5) })));
  expect((await snapshot(page)).ids).toEqual(s.hypotheses()[0].ids);

  // The model view: every layer × head of the one site.
  await page.click('#tab-model');
  await idle(page);
  expect(await page.locator('#view-body .thumb').count()).toBe(t.model.config.n_layers * t.model.config.n_heads);
  // What needs an encoder is not offered.
  expect(await page.locator('#tab-encoder, #tab-cross').count()).toBe(0);
  await page.locator('#attention').scrollIntoViewIfNeeded();
  await screenshot(page, 'prompt-mode-model-view', { fullPage: false });
  s.dispose();
  expect(errors).toEqual([]);
  await page.close();
});

it('forces a token, and runs beam search with its tree', async () => {
  const { page, errors } = await openPage(t.env, pageUrl({ step: 1 }));
  const other = (await barsOf(page))[1];
  await page.click(`#bars .bar[data-id="${other.id}"]`);
  await idle(page);
  const s = t.model.generate(PROMPT, { strategy: 'greedy' });
  s.force(other.id);
  expect((await snapshot(page)).ids).toEqual(s.hypotheses()[0].ids);
  expect(page.url()).toContain('force=0');
  s.dispose();
  await page.close();

  const beam = t.model.generate(PROMPT, { strategy: 'beam', beamSize: 4, nbest: 4 });
  beam.run();
  const tree = beam.beamTree();
  const b = await openPage(t.env, pageUrl({ mode: 'beam', beam: 4, step: 'end', view: 'beam' }));
  expect(await b.page.locator('#view-body .node').count()).toBe(tree.length);
  expect(await b.page.textContent('#translation')).toBe(beam.translation);
  beam.dispose();
  expect([...errors, ...b.errors]).toEqual([]);
  await b.page.close();
});

it('masks a head and the continuation changes; the URL restores the prompt, the step and the mask', async () => {
  // A prompt and a head whose masking changes the greedy continuation, found with the engine.
  let chosen = null;
  for (const prompt of [PROMPT, ...PROMPTS]) {
    const base = continuation(prompt);
    for (let layer = 0; layer < t.model.config.n_layers && !chosen; layer++) {
      for (let head = 0; head < t.model.config.n_heads && !chosen; head++) {
        const masked = continuation(prompt, { interventions: { maskHeads: [{ site: 'self', layer, head }] } });
        if (masked.text !== base.text) chosen = { prompt, base, layer, head, masked };
      }
    }
    if (chosen) break;
  }
  expect(chosen, 'some head changes the continuation of some prompt').not.toBeNull();
  const { base } = chosen;
  const { page, errors } = await openPage(t.env, pageUrl({ s: chosen.prompt, step: 'end' }));
  expect(await page.textContent('#translation')).toBe(base.text);
  await page.click('#break summary');
  // Only what a decoder-only model takes: no cross-attention, no encoder, no source encoding.
  expect(await page.isVisible('[data-skip=crossAttention]')).toBe(false);
  expect(await page.isVisible('[data-skip=encoderSelfAttention]')).toBe(false);
  expect(await page.isVisible('#copy-source')).toBe(false);
  expect(await page.isVisible('[data-skip=decoderSelfAttention]')).toBe(true);
  await page.check(`#masks input[data-site=self][data-layer="${chosen.layer}"][data-head="${chosen.head}"]`);
  await idle(page);
  expect(await page.textContent('#translation')).toBe(chosen.masked.text);
  expect((await snapshot(page)).ids).toEqual(chosen.masked.ids);
  expect(page.url()).toContain(`mask=self.${chosen.layer}.${chosen.head}`);
  await page.close();

  // A link to step 3 of the masked model.
  const link = pageUrl({ s: chosen.prompt, step: 3, iv: { attention: [], maskHeads: [{ site: 'self', layer: chosen.layer, head: chosen.head }], skip: [] } });
  const r = await openPage(t.env, link);
  expect(await r.page.inputValue('#sentence')).toBe(chosen.prompt);
  expect(await r.page.isChecked(`#masks input[data-site=self][data-layer="${chosen.layer}"][data-head="${chosen.head}"]`)).toBe(true);
  const restored = await snapshot(r.page);
  expect(restored.steps).toBe(3);
  expect(restored.ids).toEqual(chosen.masked.ids.slice(0, 3));
  expect((await mapOf(r.page)).values).toHaveLength(t.model.tokenize(chosen.prompt).ids.length + 3);
  expect([...errors, ...r.errors]).toEqual([]);
  await r.page.close();
});

it('compares two decoder-only models, and refuses a translator beside one', async () => {
  const { page, errors } = await openPage(t.env, pageUrl({ step: 2, compare: MODEL }));
  await page.evaluate(() => window.attnscope.compare.idle());
  expect(await page.evaluate(() => window.attnscope.compare.snapshot?.path.ids)).toEqual((await snapshot(page)).ids);
  expect(await page.isVisible('#compare-view .cv-error')).toBe(false);
  await page.selectOption('#compare', 'multi30k-en-de');
  await page.evaluate(() => window.attnscope.compare.idle());
  expect(await page.textContent('#compare-view .cv-error')).toMatch(/translates a source sentence, the page's model continues a prompt/);
  expect(errors).toEqual([]);
  await page.close();
});

it('the widget continues its prompt= attribute, with the engine\'s attention over the context', async () => {
  const s = t.model.generate(PROMPT, { strategy: 'greedy' });
  s.step();
  const second = s.step();
  const page = await t.env.browser.newPage({ viewport: { width: 900, height: 700 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  const host = t.env.url('/prompt-widget.html');
  await page.route(host, (route) => route.fulfill({
    contentType: 'text/html',
    body: `<!doctype html><meta charset="utf-8"><title>prompt widget</title><link rel="icon" href="data:,">
      <script type="module" src="/web/widget/attn-scope.js"></script>
      <attn-scope id="w" model="${MODEL}" prompt="${PROMPT}" step="2" layer="3" head="1"></attn-scope>`,
  }));
  await page.goto(host);
  await page.waitForFunction(() => document.querySelector('#w')?.snapshot?.steps === 2, null, { timeout: 30_000 });
  const w = page.locator('#w');
  expect(await w.locator('.sentence b').textContent()).toBe(s.hypotheses()[0].text);
  const values = await page.evaluate("import('/web/app/views/heatmap.js').then((m) => m.heatmapOf(document.querySelector('#w').shadowRoot.querySelector('canvas')).spec.values.map((r) => [...r]))");
  expect(values.at(-1)).toEqual(close(headRows(second.expansions[0].attention.self, 3, 1)[0]));
  expect(values).toHaveLength(s.source.ids.length + 1);
  s.dispose();
  expect(errors).toEqual([]);
  await page.close();
});

it('a decoder-only model file opened by its URL is in prompt mode too', async () => {
  const file = t.env.url(`/models/${MODEL}.safetensors`);
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), model: file, s: PROMPT, step: 1 })}`);
  expect(await page.textContent('#sentence-label')).toBe('Prompt');
  expect(await page.textContent('#translation-label')).toBe('Continuation:');
  expect((await mapOf(page)).values).toHaveLength(t.model.tokenize(PROMPT).ids.length + 1);
  // Back to a translator: the translation words return.
  await page.selectOption('#model', 'toy-en-de');
  await idle(page);
  expect(await page.textContent('#sentence-label')).not.toBe('Prompt');
  expect(await page.textContent('#translation-label')).toBe('Translation:');
  expect(errors).toEqual([]);
  await page.close();
});

it('a model that reads its prompt without <bos> (as GPT-2): every view shows the prompt as the model reads it', async () => {
  const name = 'gpt-without-bos.safetensors';
  const bytes = withPrependBos(readFileSync(join(root, `models/${MODEL}.safetensors`)), false);
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(join(artifacts, name), bytes);
  const model = await loadModel(new Uint8Array(bytes));
  const s = model.generate(PROMPT, { strategy: 'greedy', alternatives: 10 });
  try {
    expect(model.info.prependBos).toBe(false);
    const pieces = s.source.pieces;
    expect(pieces).toEqual(t.model.tokenize(PROMPT).pieces); // no <s>: the prompt's tokens alone
    const first = s.step();
    const url = `/web/index.html${formatState({ ...parseState(''), model: t.env.url(`/tests/artifacts/${name}`), s: PROMPT, step: 1, layer: 1, head: 2 })}`;
    const { page, errors } = await openPage(t.env, url);
    expect(await barsOf(page)).toEqual(first.expansions[0].top.map((a) => ({ id: a.id, logit: expect.closeTo(a.logit, 5) })));
    const map = await mapOf(page);
    expect(map.rows).toHaveLength(pieces.length);
    expect(map.rows).not.toContain('<s>');
    expect(map.values).toEqual(headRows(first.expansions[0].attention.self, 1, 2).map(close));
    expect(await page.textContent('#source-tokens')).not.toContain('<s>');
    expect(await page.textContent('#logits-caption')).toContain(`After “${PROMPT}”`);
    expect(await page.textContent('#length-hint')).toMatch(/^The prompt and its continuation share/);
    expect(errors).toEqual([]);
    await page.close();
  } finally {
    s.dispose();
    model.dispose();
  }
});
