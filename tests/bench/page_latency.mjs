// The demo page's latency in Chromium, and the head-importance sweep on a pool of
// workers. Run by tests/bench/run.sh after bench.mjs, or alone (after web/build-wasm.sh):
//   node tests/bench/page_latency.mjs [--runs 10] [--sweep-pairs 16] [--no-sweep] [--presses-only] [--out build/bench/page.json]
// (--presses-only: only the presses of Next and the beam step, no cold loads and no sweep: a quick
// before/after of a change to a step's path)
// Serves the repository from localhost and drives Debian's /usr/bin/chromium (playwright-core),
// as the browser tests do (tests/browser/browser.js). What is timed, from the page's own marks
// (web/app/views/attention-view.js, web/app/worker/requests.js, web/app/worker/worker.js; performance.mark/measure):
//   - first heatmap, cold: a fresh browser context (empty HTTP cache, service workers blocked) per
//     run; navigation start -> 'attnscope:first-heatmap' (the main map is on its canvas), and ->
//     the first 'attnscope:heatmap-painted' (a task queued from the next animation frame: the frame
//     that shows it has been produced). Toy model and Multi30k (models/multi30k-en-de.safetensors).
//   - a press of Next: a real click (page.click) on #next; from the click event's timeStamp to
//     'attnscope:heatmap-drawn' and to 'attnscope:heatmap-painted'. At step 1 (open at step 0, Next,
//     Prev, …) and at step 30 (open at step 29 on a sentence the Multi30k model translates in 37
//     greedy steps, the one tests/browser/step-cost.test.js uses; Next, Prev, …), and beam 4 (open at
//     step 4, Next to step 5, Prev, …). The page asks for the step after the one shown before Next
//     is pressed (web/app/worker/requests.js "ahead"), so a press after a pause applies an answer it
//     holds; step 30 and beam 4 are timed also with that off (window.attnscope.lookAhead = false:
//     a press that waits for the worker, as one does when Next comes faster than the worker's
//     answer). Each press is split into: the worker's time for the request
//     ('attnscope:worker:step', the engine's step and the step record), the round trip the page sees
//     ('attnscope:round-trip:step'), the page's work after the answer (apply, render, draw) and
//     the wait for the frame; the page's own render of each panel ('attnscope:render:NAME',
//     web/app/main.js) says which panel the page waits for.
//   - the head-importance sweep (web/app/worker/sweep-pool.js) with 1, 2 and 4 workers on the Multi30k
//     model: the first sweep of a new pool (workers start, compile, load the model) and a second one;
//     the results of every pool size are checked equal to the 1-worker sweep, number for number.
// Prints the median and the worst of the runs beside each target; writes build/bench/page.json.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { formatState, parseState } from '../../web/app/state/state.js';
import { idle, root, startBrowser } from '../browser/browser.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const RUNS = Number(opt('runs', 10));
const SWEEP_PAIRS = Number(opt('sweep-pairs', 16));
const OUT = join(root, opt('out', 'build/bench/page.json'));
const PRESSES_ONLY = args.includes('--presses-only');
const SWEEP = !args.includes('--no-sweep') && !PRESSES_ONLY;

// Greedy, the Multi30k en→de model takes 35 steps on this sentence (tests/browser/step-cost.test.js).
const LONG = 'Two young men in black jackets and a woman with a yellow hat are sitting on a wooden bench in front of a small restaurant '
  + 'while an old man with a white beard sells fresh fruit and vegetables at the market on the other side of the busy street.';
const TARGETS = { firstToy: 400, firstMulti30k: 1200, next: 16, beam: 50 };

const pagePath = (state) => `/web/index.html${formatState({ ...parseState(''), ...state })}`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const stats = (xs) => ({ median: median(xs), worst: Math.max(...xs), runs: xs.length, all: xs.map((x) => Math.round(x * 10) / 10) });
const ms = (x) => (x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`);

/** Every mark and measure the page makes, kept from its start (the page keeps only the latest). */
function recordMarks() {
  window.__marks = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__marks.push({ name: e.name, start: e.startTime, duration: e.duration });
  }).observe({ entryTypes: ['mark', 'measure'] });
}

async function newPage(env) {
  const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  await context.addInitScript(recordMarks);
  const page = await context.newPage();
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  return { context, page };
}

const marks = (page) => page.evaluate(() => window.__marks);
const last = (list, name) => list.filter((m) => m.name === name).at(-1);
const waitMark = (page, name) => page.waitForFunction((n) => window.__marks.some((m) => m.name === n), name, { timeout: 120_000 });

/** The page's engine worker (web/page-worker.js, the bundle of web/app/worker/worker.js). */
const engineWorker = (page) => page.workers().find((w) => w.url().endsWith('/web/page-worker.js'));
const workerTime = async (page, type) => (await engineWorker(page)?.evaluate(
  (n) => performance.getEntriesByName(n).at(-1)?.duration ?? null, `attnscope:worker:${type}`)) ?? null;

/** Cold loads of the page at `path`: navigation start -> first heatmap drawn, and painted. */
async function firstHeatmap(env, path) {
  const drawn = [];
  const painted = [];
  const parts = [];
  for (let i = 0; i < RUNS; i++) {
    const { context, page } = await newPage(env);
    await page.goto(env.url(path));
    await waitMark(page, 'attnscope:heatmap-painted');
    const list = await marks(page);
    drawn.push(last(list, 'attnscope:first-heatmap').start);
    painted.push(list.find((m) => m.name === 'attnscope:heatmap-painted').start);
    const open = last(list, 'attnscope:round-trip:open');
    parts.push({
      init: await workerTime(page, 'init'), open: await workerTime(page, 'open'),
      openSent: open?.start ?? null, openRoundTrip: open?.duration ?? null,
    });
    await context.close();
  }
  const part = (k) => median(parts.map((p) => p[k]).filter((x) => x !== null));
  return {
    drawn: stats(drawn), painted: stats(painted),
    where: {
      'page start -> open request sent (HTML, JS modules, the worker started)': part('openSent'),
      'worker: init (fetch + compile the .wasm), in parallel with the above': part('init'),
      'worker: open (fetch + load the model, encode, first step)': part('open'),
      'page: open round trip (waits for init, then open)': part('openRoundTrip'),
    },
  };
}

/**
 * Presses Next RUNS times at the page's step (Prev after each, so every press takes the same
 * step): click -> heatmap drawn / painted, and where the time went.
 */
async function presses(env, path, { lookAhead = true } = {}) {
  const { context, page } = await newPage(env);
  await page.goto(env.url(path));
  await idle(page);
  await page.evaluate((on) => { window.attnscope.lookAhead = on; }, lookAhead);
  const startStep = Number(await page.getAttribute('#app', 'data-steps'));
  if (startStep > 0) await waitMark(page, 'attnscope:heatmap-painted'); // (at step 0 no map is drawn)
  await page.evaluate(() => document.getElementById('next').addEventListener('click', (e) => { window.__clickAt = e.timeStamp; }, { capture: true }));
  const rows = [];
  for (let i = 0; i < RUNS + 1; i++) { // the first press warms up (JIT, first paint of the map at this size): not counted
    await idle(page);
    await page.evaluate(() => { window.__marks.length = 0; window.__clickAt = null; });
    await page.click('#next');
    await waitMark(page, 'attnscope:heatmap-painted');
    await idle(page);
    const list = await marks(page);
    const click = await page.evaluate(() => window.__clickAt);
    const drawn = list.find((m) => m.name === 'attnscope:heatmap-drawn').start;
    const painted = list.find((m) => m.name === 'attnscope:heatmap-painted').start;
    const trip = last(list, 'attnscope:round-trip:step');
    const frame = list.find((m) => m.name === 'attnscope:heatmap-frame').start;
    const panels = Object.fromEntries(list.filter((m) => m.name.startsWith('attnscope:render:')).map((m) => [m.name.slice(17), m.duration]));
    const steps = Number(await page.getAttribute('#app', 'data-steps'));
    if (steps !== startStep + 1) throw new Error(`a press of Next at step ${startStep} went to step ${steps}`);
    if (i > 0) {
      rows.push({
        drawn: drawn - click, painted: painted - click, worker: await workerTime(page, 'step'),
        toSent: trip.start - click, roundTrip: trip.duration, afterAnswer: drawn - (trip.start + trip.duration),
        toFrame: frame - drawn, paint: painted - frame, panels,
      });
    }
    await page.click('#prev');
    await idle(page);
  }
  await context.close();
  const part = (k) => median(rows.map((r) => r[k]));
  const panel = (k) => median(rows.map((r) => r.panels[k] ?? 0));
  return {
    step: startStep + 1, lookAhead, drawn: stats(rows.map((r) => r.drawn)), painted: stats(rows.map((r) => r.painted)),
    where: {
      'click -> request sent': part('toSent'),
      'worker: the step request (engine step + its record)': part('worker'),
      'round trip the page sees (worker + messages + copying the answer)': part('roundTrip'),
      'page: answer -> map drawn (apply the answer, the panels before the map, the map)': part('afterAnswer'),
      ...Object.fromEntries(Object.keys(rows[0].panels).map((k) => [`  page: render ${k}${['analyses', 'break'].includes(k) ? ' (after the map is drawn)' : ''}`, panel(k)])),
      'map drawn -> next animation frame starts (the panels after the map, other tasks, vsync)': part('toFrame'),
      'frame start -> painted (style, layout, paint of that frame)': part('paint'),
    },
  };
}

/** The head-importance sweep on a pool of `size` workers, run twice (a new pool, then warm). */
async function sweep(env, size, pairs) {
  const { context, page } = await newPage(env);
  await page.goto(env.url(pagePath({ model: 'toy-en-de' })));
  await idle(page);
  const out = await page.evaluate(async ({ size: n, pairs: p }) => {
    const { SweepPool } = await import('/web/app/worker/sweep-pool.js');
    const { findModel, modelUrl } = await import('/web/models.js');
    const url = modelUrl(findModel('multi30k-en-de'));
    const t0 = performance.now();
    const pool = new SweepPool(n);
    const first = await pool.importance({ url, pairs: p });
    const t1 = performance.now();
    const again = await pool.importance({ url, pairs: p });
    const t2 = performance.now();
    pool.dispose();
    return { cold: t1 - t0, warm: t2 - t1, result: first, same: JSON.stringify(first) === JSON.stringify(again), hardwareConcurrency: navigator.hardwareConcurrency };
  }, { size, pairs });
  await context.close();
  return out;
}

function line(label, s, target) {
  const verdict = target === undefined ? '' : s.median <= target ? '  (median within target)' : '  (median MISSES target)';
  return `${label.padEnd(52)} median ${ms(s.median).padStart(9)}  worst ${ms(s.worst).padStart(9)}${target === undefined ? '' : `   target ≤ ${ms(target)}`}${verdict}`;
}

function printWhere(where) {
  for (const [k, v] of Object.entries(where)) console.log(`    ${k.padEnd(78)} ${v === undefined || Number.isNaN(v) ? '?' : ms(v).padStart(9)} (median)`);
}

const machine = { cpu: cpus()[0]?.model ?? '?', cores: cpus().length, loadavg: loadavg().map((x) => Math.round(x * 100) / 100) };
console.log(`== page latency in Chromium (/usr/bin/chromium, headless), ${RUNS} runs each`);
console.log(`   machine: ${machine.cpu}, ${machine.cores} cores, load average ${machine.loadavg.join(' ')} at the start`
  + ' (other jobs share these cores: figures are upper bounds of a quiet machine)');

const env = await startBrowser();
const result = { machine, runs: RUNS, targets: TARGETS, browser: env.browser.version() };
try {
  if (!PRESSES_ONLY) {
  const toy = await firstHeatmap(env, pagePath({ model: 'toy-en-de', step: 1 }));
  console.log(line('first heatmap, cold, toy: drawn', toy.drawn, TARGETS.firstToy));
  console.log(line('first heatmap, cold, toy: painted', toy.painted, TARGETS.firstToy));
  if (toy.painted.median > TARGETS.firstToy) printWhere(toy.where);
  const m30 = await firstHeatmap(env, pagePath({ model: 'multi30k-en-de', step: 1 }));
  console.log(line('first heatmap, cold, Multi30k: drawn', m30.drawn, TARGETS.firstMulti30k));
  console.log(line('first heatmap, cold, Multi30k: painted', m30.painted, TARGETS.firstMulti30k));
  if (m30.painted.median > TARGETS.firstMulti30k) printWhere(m30.where);
  result.firstHeatmap = { toy, multi30k: m30 };
  }

  const at1 = await presses(env, pagePath({ model: 'multi30k-en-de', s: LONG, step: 0 }));
  const at30 = await presses(env, pagePath({ model: 'multi30k-en-de', s: LONG, step: 29 }));
  const beam = await presses(env, pagePath({ model: 'multi30k-en-de', s: LONG, step: 4, mode: 'beam', beam: 4 }));
  const at30Asked = await presses(env, pagePath({ model: 'multi30k-en-de', s: LONG, step: 29 }), { lookAhead: false });
  const beamAsked = await presses(env, pagePath({ model: 'multi30k-en-de', s: LONG, step: 4, mode: 'beam', beam: 4 }), { lookAhead: false });
  result.next = { step1: at1, step30: at30, step30Asked: at30Asked };
  result.beam4 = beam;
  result.beam4Asked = beamAsked;
  const asked = ', asked at the click (lookahead off)';
  for (const [label, r, target] of [[`Next at step ${at1.step}, Multi30k, greedy`, at1, TARGETS.next],
    [`Next at step ${at30.step}, Multi30k, greedy`, at30, TARGETS.next], [`Next at step ${beam.step}, Multi30k, beam 4`, beam, TARGETS.beam],
    [`Next at step ${at30.step}, greedy${asked}`, at30Asked, TARGETS.next], [`Next at step ${beam.step}, beam 4${asked}`, beamAsked, TARGETS.beam]]) {
    console.log(line(`${label}: click -> drawn`, r.drawn, target));
    console.log(line(`${label}: click -> painted`, r.painted, target));
    if (r.painted.median > target || r.drawn.worst > target) printWhere(r.where);
  }

  if (SWEEP) {
    const en = readFileSync(join(root, 'tests/data/multi30k/val.first40.en'), 'utf8').trim().split('\n');
    const de = readFileSync(join(root, 'tests/data/multi30k/val.first40.de'), 'utf8').trim().split('\n');
    const pairs = en.slice(0, SWEEP_PAIRS).map((s, i) => [s, de[i]]);
    const sizes = [1, 2, 4];
    const runs = [];
    for (const size of sizes) runs.push({ size, ...(await sweep(env, size, pairs)) });
    const one = JSON.stringify(runs[0].result);
    const identical = runs.every((r) => JSON.stringify(r.result) === one && r.same);
    const heads = runs[0].result.heads.length;
    console.log(`== head-importance sweep, Multi30k, ${pairs.length} pairs (tests/data/multi30k), ${heads} heads, Δ log-likelihood`
      + ` (navigator.hardwareConcurrency = ${runs[0].hardwareConcurrency}: this machine has ${machine.cores} cores, so 4 workers share 2)`);
    for (const r of runs) {
      console.log(`  ${String(r.size).padStart(2)} worker${r.size > 1 ? 's' : ' '}: first sweep of a new pool ${ms(r.cold).padStart(9)}`
        + ` (workers start, load the model), warm ${ms(r.warm).padStart(9)}  (×${(runs[0].warm / r.warm).toFixed(2)} the 1-worker speed)`);
    }
    console.log(`  results of 2 and 4 workers identical to 1 worker's: ${identical ? 'yes' : 'NO'}`);
    result.sweep = {
      model: 'multi30k-en-de', pairs: pairs.length, heads, identical, hardwareConcurrency: runs[0].hardwareConcurrency,
      workers: runs.map((r) => ({ workers: r.size, coldMs: r.cold, warmMs: r.warm })),
    };
    if (!identical) process.exitCode = 1;
  }
} finally {
  await env.close();
}
result.loadavgAfter = loadavg().map((x) => Math.round(x * 100) / 100);
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(result, null, 1)}\n`);
console.log(`wrote ${OUT}`);
