// Shared by the JS tests: paths, and the native CLI as the reference the WASM build must match.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const root = resolve(import.meta.dirname, '../..');
export const path = (p) => join(root, p);
export const cliPath = path('build/native/attnscope-cli');
/** Test data committed under tests/data (tests never read ../shared: a plain clone has none). */
export const dataPath = (p) => path(join('tests/data', p));
/** The toy grammar: its CSV file, its text and its 36 [source, target] pairs. */
export const TOY_CSV = dataPath('toy/eng_de.csv');
export const toyCsv = readFileSync(TOY_CSV, 'utf8');
export const toyPairs = toyCsv.trim().split('\n').map((l) => l.trim().split(','));
/**
 * The toy model frozen when the expected translations and goldens were made (tests/models/):
 * tests that assert its outputs read this copy, never models/toy-en-de.safetensors, which
 * `models/train/train.py toy` rewrites.
 */
export const FROZEN_TOY = path('tests/models/toy-en-de.frozen.safetensors');

export function cli(args, { allowFailure = false } = {}) {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: run npm test (it builds the native engine first)`);
  try {
    return execFileSync(cliPath, args, { encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    if (allowFailure) return e.stdout;
    throw e;
  }
}

/** The CLI's translations of `sentences` (one per line, in order). */
export function cliTranslate(model, sentences, extraArgs = []) {
  const file = join(mkdtempSync(join(tmpdir(), 'attnscope-')), 'input.txt');
  writeFileSync(file, sentences.join('\n') + '\n');
  const out = cli(['translate', '--model', model, '--input', file, ...extraArgs], { allowFailure: true });
  return out.split('\n').slice(0, -1);
}

/** Runs `text` to the end in a fresh session and returns the best translation. */
export function translate(model, text, options = {}) {
  const s = model.translate(text, options);
  try {
    s.run();
    return s.translation;
  } finally {
    s.dispose();
  }
}
