// The "What drove this token" card under the attention view: the saliency strip and the
// attention-vs-attribution grids of the toy model's current step, read against the engine run in
// Node (session.attribution); both change with Next and Back, and with the method. Integrated
// gradients: the time a request should take is shown before it runs, the completeness error as a
// share of the change, and the engine's suggested steps as a button.
import { expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, openPage, root, screenshot } from './browser.js';
import { browserWithModel } from './with-model.js';

const SENTENCE = 'i can eat apple';
const t = browserWithModel('tests/models/toy-en-de.frozen.safetensors');

/** The strip and the grids as drawn once the card shows step `step`. */
async function shown(page, step) {
  await idle(page);
  await page.waitForSelector(`#attribution[data-step="${step}"][data-state="ready"]`);
  return page.locator('#attribution').evaluate((card) => ({
    tokens: [...card.querySelectorAll('.saliency-token')].map((s) => ({
      text: s.querySelector('.saliency-text').textContent, score: Number(s.dataset.score),
      sign: s.querySelector('.saliency-sign').textContent,
    })),
    grids: [...card.querySelectorAll('.agreement-grid')].map((g) => [...g.querySelectorAll('td')].map((c) => Number(c.dataset.tau))),
  }));
}

/** The engine's scores in the strip's order (source, then target), and its τ per head. */
function expected(session, step, options = {}) {
  const a = session.attribution(step, options);
  const mean = session.sentenceAttribution({ ...options, last: step }).meanAgreement;
  return { scores: [...a.sourceScores, ...a.targetScores], tau: [...a.agreement.tau], mean: [...mean.tau], tokens: [...a.sourceTokens, ...a.targetTokens] };
}

it('draws the current step\'s attribution and τ per head, changing with the step and the method', async () => {
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 1 })}`);
  await page.click('#attribution > summary');
  const first = await shown(page, 0);

  const session = t.model.translate(SENTENCE);
  try {
    session.step();
    const want0 = expected(session, 0);
    expect(first.tokens.map((x) => x.text)).toEqual(want0.tokens);
    expect(first.tokens.map((x) => x.score)).toEqual(want0.scores.map((v) => Math.fround(v)));
    expect(first.tokens.map((x) => x.sign)).toEqual(want0.scores.map((v) => (v >= 0 ? '+' : '−')));
    expect(first.grids).toHaveLength(2); // this step, and the mean over the sentence
    expect(first.grids[0]).toEqual(want0.tau);
    expect(first.grids[1]).toEqual(want0.mean);

    // Hover reads a token's value out as text.
    await page.locator('#attribution .saliency-token').nth(1).hover();
    expect(await page.textContent('#attribution .saliency-detail')).toMatch(/source token 2 “can”: [+−]\d/);

    await page.click('#next');
    const second = await shown(page, 1);
    session.step();
    const want1 = expected(session, 1);
    expect(second.tokens.map((x) => x.score)).toEqual(want1.scores.map((v) => Math.fround(v)));
    expect(second.tokens).toHaveLength(first.tokens.length + 1); // the target prefix grew
    expect(second.grids[0]).toEqual(want1.tau);
    expect(second.grids[1]).toEqual(want1.mean);
    expect(second.tokens.map((x) => x.score)).not.toEqual(first.tokens.map((x) => x.score));

    // A logits bar's "why not?" explains the taken token against that candidate.
    const why = page.locator('#bars button.why-not').first();
    const rival = Number(await why.getAttribute('data-id'));
    await why.click();
    await page.waitForFunction((id) => document.querySelector('#attribution [name="attr-contrast"]').value === String(id), rival);
    const contrasted = await shown(page, 1);
    const wantContrast = expected(session, 1, { contrast: rival });
    expect(contrasted.tokens.map((x) => x.score)).toEqual(wantContrast.scores.map((v) => Math.fround(v)));
    expect(contrasted.tokens.map((x) => x.score)).not.toEqual(second.tokens.map((x) => x.score));
    expect(await page.textContent('#attribution .saliency-summary')).toContain('rather than');
    await page.selectOption('#attribution [name="attr-contrast"]', '');

    await page.selectOption('#attribution [name="attr-method"]', 'erasure');
    const erased = await shown(page, 1);
    expect(erased.tokens.map((x) => x.score)).toEqual(expected(session, 1, { method: 'erasure' }).scores.map((v) => Math.fround(v)));
    await screenshot(page, 'attribution', { fullPage: false });

    await page.click('#prev');
    const back = await shown(page, 0);
    expect(back.tokens.map((x) => x.score)).toEqual(expected(session, 0, { method: 'erasure' }).scores.map((v) => Math.fround(v)));
    expect(errors).toEqual([]);
  } finally {
    session.dispose();
    await page.close();
  }
});

it('says how long integrated gradients will take before running, and reads completeness as a share', async () => {
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), s: SENTENCE, step: 1 })}`);
  const session = t.model.translate(SENTENCE);
  try {
    session.step();
    await page.click('#attribution > summary');
    await shown(page, 0); // gradient × input: the worker times this one
    // Every text the summary shows, in order, from here on.
    await page.evaluate(() => {
      window.summaries = [];
      const summary = document.querySelector('#attribution .saliency-summary');
      new MutationObserver(() => window.summaries.push(summary.textContent)).observe(summary, { childList: true, characterData: true, subtree: true });
    });
    await page.selectOption('#attribution [name="attr-method"]', 'integrated-gradients');
    await shown(page, 0);
    const [during, ...after] = await page.evaluate(() => window.summaries);
    const time = '(under 0\\.1|\\d+(\\.\\d)?) s';
    expect(during).toMatch(new RegExp(`^Computing integrated gradients: about ${time}…$`));
    const estimate = during.match(/about (.+ s)…/)[1];
    const done = after.at(-1);
    expect(done).toContain(`(estimated ${estimate} before it started)`);
    expect(done).toMatch(new RegExp(`Took ${time}`));
    const at = (steps) => session.attribution(0, { method: 'integrated-gradients', steps });
    expect(done).toContain(`: ${(100 * at(32).completenessShare).toFixed(1)}% of the change f − f(baseline)`);

    // One point: a rough integral; the engine's suggestion is offered as a button that asks for it.
    const coarse = at(1);
    expect(coarse.suggestedSteps).toBeGreaterThan(1);
    const steps = page.locator('#attribution [name="attr-steps"]');
    await steps.fill('1');
    await steps.dispatchEvent('change');
    await shown(page, 0);
    expect(await page.textContent('#attribution .saliency-summary')).toContain(`${(100 * coarse.completenessShare).toFixed(1)}% of the change`);
    const more = page.locator('#attribution .attr-more-steps');
    expect(await more.textContent()).toBe(`Use ${coarse.suggestedSteps} steps`);
    await more.scrollIntoViewIfNeeded();
    await screenshot(page, 'attribution-completeness', { fullPage: false });
    await more.click();
    await shown(page, 0);
    expect(await steps.inputValue()).toBe(String(coarse.suggestedSteps));
    const fine = at(coarse.suggestedSteps);
    expect(await page.textContent('#attribution .saliency-summary')).toContain(`${(100 * fine.completenessShare).toFixed(1)}% of the change`);
    expect(await page.locator('#attribution .attr-more-steps').count()).toBe(fine.suggestedSteps > coarse.suggestedSteps ? 1 : 0);
    expect(errors).toEqual([]);
  } finally {
    session.dispose();
    await page.close();
  }
});

it('the encoder-only card reads integrated gradients\' completeness as a share too', async () => {
  const text = 'a man is riding a [MASK] .';
  const mlm = await loadModel(`${root}/models/multi30k-en-mlm.safetensors`);
  const { page, errors } = await openPage(t.env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-mlm', s: text })}`, { wait: false });
  try {
    await page.waitForSelector('#encoder[data-renders]', { timeout: 60_000 });
    await page.click('#enc-attribution > summary');
    await page.selectOption('#enc-attribution [name="mask-attr-method"]', 'integrated-gradients');
    await page.waitForSelector('#enc-attribution[data-state="ready"][data-method="integrated-gradients"]');
    const [want] = mlm.maskAttribution(text, { method: 'integrated-gradients', steps: 32 });
    const caption = await page.textContent('#enc-attribution figure.mask-attr figcaption');
    expect(caption).toContain(`${(100 * want.completenessShare).toFixed(1)}% of the change from the baseline`);
    if (want.suggestedSteps > 32) expect(caption).toContain(`about ${want.suggestedSteps} points`);
    else expect(caption).not.toContain('points would');
    expect(errors).toEqual([]);
  } finally {
    mlm.dispose();
    await page.close();
  }
});
