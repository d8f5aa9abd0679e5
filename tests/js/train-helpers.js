// Shared by the training tests of both families (tests/js/train.test.js, train_rnn.test.js).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { cliTranslate, translate } from './helpers.js';

/**
 * A trainer's exported bytes load in WASM and translate `sources` as `expected` (what the trainer's
 * own model said), and the CLI gives the same on those bytes and on `nativeFile` (the same recipe
 * trained by `attnscope-cli train`).
 */
export async function expectExportTranslatesEverywhere(exported, sources, expected, nativeFile) {
  const model = await loadModel(exported);
  try {
    const wasm = sources.map((source) => translate(model, source));
    expect(wasm).toEqual(expected);
    const file = join(mkdtempSync(join(tmpdir(), 'attnscope-train-')), 'wasm.safetensors');
    writeFileSync(file, exported);
    expect(cliTranslate(file, sources)).toEqual(wasm);
    expect(cliTranslate(nativeFile, sources)).toEqual(wasm);
  } finally {
    model.dispose();
  }
}
