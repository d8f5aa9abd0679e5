// A model of opus-mt-en-de's real size in the page: random weights in Helsinki-NLP/opus-mt-en-de's
// shape (6 + 6 layers, d_model 512, 8 heads, 58,101 ids: ~74 M parameters, 151 MB as F16), written
// and converted by models/goldens/make_hf_real_size.py into build/hf-real/ when missing there.
// Opened by ?model-url= from a second origin, it loads (the size rule of web/model-header.js lets
// it in), translates with beam 4 as the engine in Node does, and shows its beam tree and
// cross-attention. Prints the load time and the engine's WebAssembly heap after the load.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { WASM_MEMORY_LIMIT } from '../../web/model-header.js';
import { idle, openModelUrl, root, screenshot, startBrowser } from './browser.js';

const FOLDER = join(root, 'build/hf-real');
const FILE = join(FOLDER, 'opus-mt-en-de-size.safetensors');
const SENTENCE = 'A man is riding a red bicycle in the park.';

/**
 * Makes each module worker the page starts keep its WebAssembly memories in self.__wasmMemories:
 * the worker runs a module that imports one wrapping WebAssembly.instantiate*, then the page's
 * script (static imports: evaluated in order, before the worker takes a message).
 * (Not page.route: intercepting requests failed the worker's cross-origin download of the model.)
 */
function recordWorkerMemories() {
  const record = () => {
    const memories = (self.__wasmMemories = []);
    for (const name of ['instantiate', 'instantiateStreaming']) {
      const original = WebAssembly[name];
      WebAssembly[name] = (source, imports) => original.call(WebAssembly, source, imports).then((result) => {
        const instance = result.instance ?? result;
        const memory = [...Object.values(instance.exports), ...Object.values(imports?.env ?? {})].find((v) => v instanceof WebAssembly.Memory);
        if (memory) memories.push(memory);
        return result;
      });
    }
  };
  const moduleUrl = (text) => URL.createObjectURL(new Blob([text], { type: 'text/javascript' }));
  const recorder = moduleUrl(`(${record})();`);
  const PageWorker = Worker;
  window.Worker = class extends PageWorker {
    constructor(url, options) {
      super(moduleUrl(`import '${recorder}';\nimport ${JSON.stringify(new URL(url, location.href).href)};`), options);
    }
  };
}

let env;
let other; // the second origin: serves the model file with CORS
beforeAll(async () => {
  if (!existsSync(FILE)) {
    execFileSync('/usr/bin/python3', [join(root, 'models/goldens/make_hf_real_size.py'), FOLDER, '--which', 'marian'], { stdio: 'inherit', timeout: 300_000 });
  }
  env = await startBrowser();
  other = createServer((req, res) => {
    if (req.url !== '/opus-mt-en-de-size.safetensors') return res.writeHead(404).end();
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream', 'content-length': String(statSync(FILE).size) });
    createReadStream(FILE).pipe(res);
  });
  await new Promise((ok) => other.listen(0, '127.0.0.1', ok));
}, 360_000);
afterAll(async () => {
  other?.closeAllConnections?.();
  await new Promise((ok) => (other ? other.close(ok) : ok()));
  await env?.close();
});

/**
 * The engine's beam-4 run of SENTENCE in Node: translation, steps, beam tree size, source length,
 * and the tokens of the best hypothesis (the rows of the cross-attention map of its path).
 */
async function engineBeam() {
  const model = await loadModel(FILE);
  try {
    const s = model.translate(SENTENCE, { strategy: 'beam', beamSize: 4, nbest: 4 });
    s.run();
    const out = { translation: s.translation, steps: s.steps, tree: s.beamTree().length, sourceLength: s.source.ids.length, bestTokens: s.nbest()[0].tokens.length };
    s.dispose();
    return out;
  } finally {
    model.dispose();
  }
}

it('loads an opus-mt-en-de-sized model by URL and translates with beam 4: beam tree, cross-attention (prints load time and heap)', async () => {
  const bytes = statSync(FILE).size;
  const url = `http://127.0.0.1:${other.address().port}/opus-mt-en-de-size.safetensors`;
  const { page, errors, loadSeconds } = await openModelUrl(env, url, { query: `s=${encodeURIComponent(SENTENCE)}&`, init: recordWorkerMemories });
  const heaps = await Promise.all(page.workers().map((w) => w.evaluate(() => (self.__wasmMemories ?? []).map((m) => m.buffer.byteLength)).catch(() => [])));
  const heap = Math.max(0, ...heaps.flat());
  const parameters = await page.textContent('#model-card [data-field=parameters] dd');
  console.log(`opus-mt-en-de-sized model: ${(bytes / 1e6).toFixed(1)} MB file, ${parameters} parameters; `
    + `download + load ${loadSeconds.toFixed(1)} s; WebAssembly heap after load ${(heap / 2 ** 20).toFixed(0)} MiB of ${WASM_MEMORY_LIMIT / 2 ** 20} MiB`);
  expect(heap).toBeGreaterThan(bytes);
  expect(heap).toBeLessThanOrEqual(WASM_MEMORY_LIMIT);

  await page.check('input[name=mode][value=beam]');
  await page.fill('#beam', '4');
  await page.dispatchEvent('#beam', 'change');
  await idle(page);
  const started = Date.now();
  await page.click('#last');
  await idle(page);
  const runSeconds = (Date.now() - started) / 1000;
  const want = await engineBeam();
  const snap = await page.evaluate(() => ({ text: window.attnscope.snapshot.path.text, steps: window.attnscope.snapshot.steps, done: window.attnscope.snapshot.done }));
  expect(snap).toEqual({ text: want.translation, steps: want.steps, done: true });
  console.log(`beam 4 to the end: ${want.steps} steps in ${runSeconds.toFixed(1)} s (“${want.translation}”)`);

  await page.click('#tab-beam');
  await idle(page);
  await expect.poll(() => page.locator('#view-body .node').count()).toBe(want.tree);
  await page.click('#tab-cross');
  await idle(page);
  const grid = JSON.parse(await page.locator('#heatmap canvas').getAttribute('data-grid'));
  expect([grid.rows, grid.cols]).toEqual([want.bestTokens, want.sourceLength]);
  await screenshot(page, 'real-size-opus-mt');
  expect(errors).toEqual([]);
  await page.close();
}, 300_000);
