// Where the demo page's main thread spends a press of Next: a CPU profile of N presses
// (Next then Prev) on the Multi30k model at a given step, summed by function, self and total.
// An investigation tool beside tests/bench/page_latency.mjs (which times presses, this says why);
// not part of npm test. Run after web/build-wasm.sh:
//   node tests/perf/page_profile.mjs [step=29] [presses=10]
// Functions named "replaceState", "fillText", … are the browser's own, called from the page;
// ":5865"-style entries without a file are Playwright's polling (the harness, not the page).
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, startBrowser } from '../browser/browser.js';

const LONG = 'Two young men in black jackets and a woman with a yellow hat are sitting on a wooden bench in front of a small restaurant '
  + 'while an old man with a white beard sells fresh fruit and vegetables at the market on the other side of the busy street.';
const step = Number(process.argv[2] ?? 29);
const N = Number(process.argv[3] ?? 10);
const env = await startBrowser();
const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
const page = await context.newPage();
await page.goto(env.url(`/web/index.html${formatState({ ...parseState(''), model: 'multi30k-en-de', s: LONG, step })}`));
await idle(page);
for (let i = 0; i < 2; i++) { // warm up: JIT, the map's first paint at this size
  await page.click('#next');
  await idle(page);
  await page.click('#prev');
  await idle(page);
}
const cdp = await context.newCDPSession(page);
await cdp.send('Profiler.enable');
await cdp.send('Profiler.setSamplingInterval', { interval: 50 });
await cdp.send('Profiler.start');
for (let i = 0; i < N; i++) {
  for (const button of ['#next', '#prev']) {
    await page.click(button);
    await idle(page);
    await page.waitForTimeout(50);
  }
}
const { profile } = await cdp.send('Profiler.stop');
await context.close();
await env.close();

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const key = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
const self = new Map();
const total = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const dt = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  const leaf = byId.get(profile.samples[i]);
  self.set(key(leaf), (self.get(key(leaf)) ?? 0) + dt);
  const seen = new Set();
  for (let id = leaf.id; id !== undefined; id = parent.get(id)) {
    const k = key(byId.get(id));
    if (!seen.has(k)) {
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + dt);
    }
  }
}
const top = (m, k) => [...m].filter(([n]) => !/^\((idle|root)\)/.test(n)).sort((a, b) => b[1] - a[1]).slice(0, k);
console.log(`main thread, ms per pair of presses (Next + Prev at step ${step}), ${N} pairs; self:`);
for (const [n, t] of top(self, 25)) console.log(`  ${(t / N).toFixed(2).padStart(7)}  ${n}`);
console.log('total (self and callees):');
for (const [n, t] of top(total, 30)) console.log(`  ${(t / N).toFixed(2).padStart(7)}  ${n}`);
