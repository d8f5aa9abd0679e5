// A press of Next costs the same at step 30 as at step 1: the page appends what the step
// returned instead of fetching every step of the path again (issue 14). The worker
// (web/app/worker.js) counts every call into the engine's Embind handles, by method; the test
// reads the counts before and after a press, on a long Multi30k translation, in the real page.
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { formatState, parseState } from '../../web/app/state.js';
import { idle, openPage, root, startBrowser } from './browser.js';

// Greedy, the shipped Multi30k en→de model takes 35 steps on this sentence (checked below).
const SENTENCE = 'Two young men in black jackets and a woman with a yellow hat are sitting on a wooden bench in front of a small restaurant '
  + 'while an old man with a white beard sells fresh fruit and vegetables at the market on the other side of the busy street.';
let env;
let reference; // the engine in Node: the greedy tokens of SENTENCE

beforeAll(async () => {
  env = await startBrowser();
  const model = await loadModel(join(root, 'models/multi30k-en-de.safetensors'));
  const s = model.translate(SENTENCE);
  s.run();
  reference = s.nbest()[0].tokens;
  s.dispose();
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
  expect(await page.locator('#lines li .out').allTextContents()).toEqual(reference.slice(0, 31));
  expect(JSON.parse(await page.locator('#heatmap canvas').getAttribute('data-grid')).rows).toBe(31);

  // The beam tree grows with every step: only the beam view asks for it, once when it opens,
  // then with each press (one more call, the same at any step).
  const before = await calls(page);
  await page.click('#tab-beam');
  await page.waitForSelector('#view-body .node');
  await idle(page);
  expect((await calls(page))['SessionHandle.tree'] - (before['SessionHandle.tree'] ?? 0)).toBe(1);
  expect(await page.locator('#view-body .node').count()).toBe(32); // <s> and one node per greedy step
  const inBeamView = await press(page); // step 31 -> 32
  expect(inBeamView).toEqual({ ...first, 'SessionHandle.tree': 1 });
  expect(await page.locator('#view-body .node').count()).toBe(33);
  expect(errors).toEqual([]);
  await page.close();
});
