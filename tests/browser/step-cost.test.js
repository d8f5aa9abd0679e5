// A press of Next costs the same at step 30 as at step 1: the page appends what the step
// returned instead of fetching every step of the path again. The worker
// (web/app/worker/worker.js) counts every call into the engine's Embind handles, by method; the test
// reads the counts before and after a press, on a long Multi30k translation, in the real page.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, openPage, root, startBrowser } from './browser.js';

// Greedy, the shipped Multi30k en→de model takes 35 steps on this sentence (checked below).
const SENTENCE = 'Two young men in black jackets and a woman with a yellow hat are sitting on a wooden bench in front of a small restaurant '
  + 'while an old man with a white beard sells fresh fruit and vegetables at the market on the other side of the busy street.';
const SHORT = 'A little girl is playing in the water.';
let env;
let reference; // the engine in Node: the greedy tokens of SENTENCE
let shortReference; // and of SHORT

/** The output lines' tokens as the engine's pieces (the "show subword pieces" switch on: the
 *  test compares them with the engine's tokens, not with how a reader is shown them). */
async function outTokens(page) {
  await page.check('#pieces');
  return page.locator('#lines li .out').allTextContents();
}

beforeAll(async () => {
  env = await startBrowser();
  const model = await loadModel(join(root, 'models/multi30k-en-de.safetensors'));
  const s = model.translate(SENTENCE);
  s.run();
  reference = s.nbest()[0].tokens;
  s.dispose();
  const t = model.translate(SHORT);
  t.run();
  shortReference = t.nbest()[0].tokens;
  t.dispose();
  model.dispose();
});
afterAll(async () => { await env?.close(); });

/** The worker's Embind call counts so far, by method. */
const calls = (page) => page.evaluate(() => window.attnscope.engine.request('stats')).then((s) => s.embindCalls);

/** The calls one press of Next makes, by method (methods not called left out). */
async function press(page) {
  const before = await calls(page);
  await page.click('#next');
  await idle(page);
  const after = await calls(page);
  return Object.fromEntries(Object.keys(after).filter((k) => after[k] !== (before[k] ?? 0)).map((k) => [k, after[k] - (before[k] ?? 0)]));
}

const steps = async (page) => Number(await page.locator('#app').getAttribute('data-steps'));

it('makes the same Embind calls for a press of Next at step 1 and at step 30 of a long translation', async () => {
  expect(reference.length).toBeGreaterThan(31); // the sentence is long enough to press at step 30
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: SENTENCE, step: 1 })}`);
  expect(await steps(page)).toBe(1);
  expect(Object.keys(await calls(page))).toContain('SessionHandle.step'); // the worker counts the engine's methods

  const first = await press(page); // step 1 -> 2
  expect(await steps(page)).toBe(2);
  while (await steps(page) < 30) {
    await page.click('#next');
    await idle(page);
  }
  const thirtieth = await press(page); // step 30 -> 31
  expect(await steps(page)).toBe(31);
  console.log(`Embind calls per press of Next: at step 1 ${JSON.stringify(first)}, at step 30 ${JSON.stringify(thirtieth)}`);
  expect(thirtieth).toEqual(first);
  // One call per press: step(), whose record carries the step's attention and the session's
  // state; no earlier step asked for again, no state rebuilt.
  expect(first).toEqual({ 'SessionHandle.step': 1 });

  // The page holds every step it was sent, and shows the engine's translation so far.
  expect(await page.evaluate(() => window.attnscope.storedSteps)).toBe(31);
  expect(await outTokens(page)).toEqual(reference.slice(0, 31));
  expect(JSON.parse(await page.locator('#heatmap canvas').getAttribute('data-grid')).rows).toBe(31);

  // The beam tree grows with every step: only the beam view asks for it. When it opens, the
  // worker's session (one step ahead: the page asked for the next step already) goes back to the
  // step shown, gives that step's tree, and takes the next step again, with its tree; then each
  // press costs one more call, the same at any step.
  const before = await calls(page);
  await page.click('#tab-beam');
  await page.waitForSelector('#view-body .node');
  await idle(page);
  const after = await calls(page);
  const opened = Object.fromEntries(Object.keys(after).filter((k) => after[k] !== (before[k] ?? 0)).map((k) => [k, after[k] - (before[k] ?? 0)]));
  expect(opened).toEqual({ 'SessionHandle.back': 1, 'SessionHandle.tree': 2, 'SessionHandle.step': 1 });
  expect(await page.locator('#view-body .node').count()).toBe(32); // <s> and one node per greedy step
  const inBeamView = await press(page); // step 31 -> 32
  expect(inBeamView).toEqual({ ...first, 'SessionHandle.tree': 1 });
  expect(await page.locator('#view-body .node').count()).toBe(33);
  expect(errors).toEqual([]);
  await page.close();
});

/** The requests the page sends from here on, each with whether the map was redrawn before it. */
const recordRequests = (page) => page.evaluate(() => {
  window.__sent = [];
  const { engine } = window.attnscope;
  const request = (window.__request ??= engine.request.bind(engine)); // wrapped once
  performance.clearMarks('attnscope:heatmap-drawn');
  engine.request = (type, ...rest) => {
    window.__sent.push({ type, drawnBefore: performance.getEntriesByName('attnscope:heatmap-drawn').length > 0 });
    return request(type, ...rest);
  };
});

it('redraws the map for a press of Next before asking the worker anything: the step was asked for ahead', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: SENTENCE, step: 3 })}`);
  expect(await page.evaluate(() => window.attnscope.lookAhead)).toBe(true);
  await recordRequests(page);
  await page.click('#next');
  await idle(page);
  expect(await steps(page)).toBe(4);
  // The one request is the step after the one now shown, sent once the map was drawn.
  expect(await page.evaluate(() => window.__sent)).toEqual([{ type: 'step', drawnBefore: true }]);
  expect(await outTokens(page)).toEqual(reference.slice(0, 4));

  // Turned off (the benchmark times both), the press asks the worker and draws its answer.
  await page.evaluate(() => { window.attnscope.lookAhead = false; });
  await recordRequests(page);
  await page.click('#next');
  await idle(page);
  expect(await steps(page)).toBe(5);
  // The session went one step past the page's (asked ahead before the switch): back, then the step.
  expect(await page.evaluate(() => window.__sent)).toEqual([{ type: 'goto', drawnBefore: false }, { type: 'step', drawnBefore: false }]);
  expect(await outTokens(page)).toEqual(reference.slice(0, 5));
  expect(errors).toEqual([]);
  await page.close();
});

it('shows the page\'s step after Prev and Next while the worker is a step ahead', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: SENTENCE, step: 6 })}`);
  await page.click('#prev');
  await idle(page);
  expect(await steps(page)).toBe(5);
  expect(await outTokens(page)).toEqual(reference.slice(0, 5));
  await page.click('#next');
  await idle(page);
  await page.click('#next');
  await idle(page);
  expect(await steps(page)).toBe(7);
  expect(await outTokens(page)).toEqual(reference.slice(0, 7));
  // The worker holds step 8 now; the page's view is step 7 in every respect.
  const snap = await page.evaluate(() => { const s = window.attnscope.snapshot; return { steps: s.steps, ids: s.path.ids.length, rows: s.rows.length }; });
  expect(snap).toEqual({ steps: 7, ids: 7, rows: 7 });
  expect(await page.evaluate(() => window.attnscope.engine.request('stats').then((s) => s.sessions))).toBe(1);
  expect(errors).toEqual([]);
  await page.close();
});

it('steps the new sentence when Next comes while it is being translated (the step held ahead was the old one\'s)', async () => {
  const { page, errors } = await openPage(env, `/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: SENTENCE, step: 3 })}`);
  await page.fill('#sentence', SHORT);
  // In one task: the form's Translate (a new session at step 1, queued) and a press of Next.
  await page.evaluate(() => {
    document.getElementById('controls').requestSubmit();
    document.getElementById('next').click();
  });
  await idle(page);
  await page.evaluate(() => window.attnscope.idle());
  expect(await steps(page)).toBe(2);
  expect(await outTokens(page)).toEqual(shortReference.slice(0, 2));
  expect(errors).toEqual([]);
  await page.close();
});
