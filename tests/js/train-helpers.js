// Shared by the training tests of both families (tests/js/train.test.js, train_rnn.test.js).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { TOY_CSV, cliPath, cliTranslate, translate } from './helpers.js';

/** The F32 tensors of a .safetensors file's bytes: { header, out: { name: Float32Array } }. */
export function f32Tensors(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    expect(t.dtype).toBe('F32');
    const [begin, end] = t.data_offsets;
    out[name] = new Float32Array(bytes.slice(8 + n + begin, 8 + n + end).buffer);
  }
  return { header, out };
}

/**
 * `attnscope-cli train` on the toy grammar with `flags` (the architecture): its per-epoch log
 * lines ({ epoch, loss, exact, total, seconds }), the file it wrote and that file's bytes.
 */
export function cliTrain(epochs, seed, flags = []) {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build the native engine first`);
  const out = join(mkdtempSync(join(tmpdir(), 'attnscope-train-')), 'toy.safetensors');
  const r = spawnSync(cliPath, ['train', ...flags, '--pairs', TOY_CSV, '--epochs', String(epochs), '--seed', String(seed),
    '--out', out], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const log = [...r.stderr.matchAll(/^epoch (\d+) loss ([\d.]+) exact (\d+)\/(\d+) \(([\d.]+) s\)$/gm)].map((m) => ({
    epoch: Number(m[1]), loss: Number(m[2]), exact: Number(m[3]), total: Number(m[4]), seconds: Number(m[5]),
  }));
  return { log, file: out, bytes: new Uint8Array(readFileSync(out)) };
}

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
