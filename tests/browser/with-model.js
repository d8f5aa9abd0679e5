// The set-up most page tests share: Chromium, and one model loaded in Node to compare with.
import { resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { root, startBrowser } from './browser.js';

/**
 * Starts Chromium and loads the model file at `modelPath` (relative to the repository root, or
 * absolute) before the tests of one file, and closes both after them. Returns `{ env, model }`,
 * filled in once the tests run: `const t = browserWithModel('models/toy-en-de.safetensors')`,
 * then `openPage(t.env, …)` and `t.model.translate(…)`.
 */
export function browserWithModel(modelPath) {
  const t = { env: undefined, model: undefined };
  beforeAll(async () => {
    t.env = await startBrowser();
    t.model = await loadModel(resolve(root, modelPath));
  });
  afterAll(async () => {
    t.model?.dispose();
    await t.env?.close();
  });
  return t;
}
