// GPT-2 at its real sizes in the page: random weights in openai-community/gpt2's shape (12 layers,
// n_embd 768, 12 heads, n_positions 1024, GPT-2's vocabulary of 50,257: ~124 M parameters, 251 MB
// as F16) and, with ATTNSCOPE_GPT2_SIZE=medium, gpt2-medium's (24 layers, n_embd 1024, 16 heads:
// ~355 M parameters, 710 MB as F16), written by models/goldens/make_hf_gpt2_checkpoints.py --size
// small|medium and converted by models/convert/convert_hf.py --f16 into build/hf-real/ when missing
// there. Opened by ?model-url= from a second origin, it loads (the size rule of web/model-header.js
// lets it in, and the engine holds it in its file's dtype); a prompt typed into the page and one
// step give the continuation the engine gives in Node. Prints the load time.
//
// A benchmark check, not part of `npm test`: writing and converting the small model takes about a
// minute on 2 cores and the test another (the medium one about three times that).
// `npm run bench -- --gpt2` runs it for small (ATTNSCOPE_GPT2_SIZE=1) and medium; alone:
//   ATTNSCOPE_GPT2_SIZE=1|medium npx vitest run --config tests/js/vitest.config.js tests/browser/gpt2-size.test.js
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { serve } from '../../web/serve.mjs';
import { idle, openModelUrl, root, screenshot, startBrowser } from './browser.js';

const FOLDER = join(root, 'build/hf-real');
const SIZE = process.env.ATTNSCOPE_GPT2_SIZE === 'medium' ? 'medium' : 'small';
const NAME = SIZE === 'medium' ? 'gpt2-medium-size' : 'gpt2-size';
const FILE = join(FOLDER, `${NAME}.safetensors`);
const PROMPT = 'A man is riding a red bicycle in the park and';
const ENABLED = ['1', 'small', 'medium'].includes(process.env.ATTNSCOPE_GPT2_SIZE);

let env;
let other; // the second origin: web/serve.mjs serving build/hf-real's model files (with CORS)
beforeAll(async () => {
  if (!ENABLED) return;
  if (!existsSync(FILE)) {
    const python = (args) => execFileSync('/usr/bin/python3', args, { stdio: 'inherit', timeout: 300_000 });
    python([join(root, 'models/goldens/make_hf_gpt2_checkpoints.py'), FOLDER, '--size', SIZE]);
    python([join(root, 'models/convert/convert_hf.py'), join(FOLDER, NAME), FILE, '--f16']);
  }
  env = await startBrowser();
  other = await serve({ port: 0, folders: [{ folder: 'build/hf-real', extensions: ['.safetensors'] }] });
}, 900_000);
afterAll(async () => {
  other?.closeAllConnections?.();
  await new Promise((ok) => (other ? other.close(ok) : ok()));
  await env?.close();
});

/** The engine's greedy continuation of PROMPT in Node, `steps` steps: the ids and the prompt's length. */
async function engineSteps(steps) {
  const model = await loadModel(FILE);
  try {
    const s = model.generate(PROMPT, { strategy: 'greedy' });
    for (let i = 0; i < steps; ++i) s.step();
    const out = { ids: s.hypotheses()[0].ids, promptLength: s.source.ids.length };
    s.dispose();
    return out;
  } finally {
    model.dispose();
  }
}

it.runIf(ENABLED)(`loads GPT-2 ${SIZE} by URL, takes a typed prompt and steps one token as the engine does (prints load time)`, async () => {
  const bytes = statSync(FILE).size;
  const url = `http://127.0.0.1:${other.address().port}/build/hf-real/${NAME}.safetensors`;
  const { page, errors, loadSeconds } = await openModelUrl(env, url, { query: 'mode=greedy&' });
  const parameters = await page.textContent('#model-card [data-field=parameters] dd');
  console.log(`GPT-2 ${SIZE}-sized model: ${(bytes / 1e6).toFixed(1)} MB file, ${parameters} parameters; download + load ${loadSeconds.toFixed(1)} s`);
  expect(await page.textContent('#sentence-label')).toBe('Prompt');

  await page.fill('#sentence', PROMPT);
  await page.click('#translate');
  await idle(page);
  const before = await page.evaluate(() => window.attnscope.snapshot.steps);
  const started = Date.now();
  await page.click('#next');
  await idle(page);
  const stepSeconds = (Date.now() - started) / 1000;
  const snap = await page.evaluate(() => ({ steps: window.attnscope.snapshot.steps, ids: window.attnscope.snapshot.path.ids }));
  expect(snap.steps).toBe(before + 1);
  const want = await engineSteps(snap.steps);
  expect(snap.ids).toEqual(want.ids);
  console.log(`a ${want.promptLength}-token prompt, step ${snap.steps} in ${stepSeconds.toFixed(1)} s`);
  await screenshot(page, NAME);
  expect(errors).toEqual([]);
  await page.close();
}, 400_000);
