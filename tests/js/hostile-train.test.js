// The JavaScript trainer on hostile corpora: the engine reads the pairs line by line (src/train/
// corpus.h) and stops at the first that breaks a limit, with the same message attnscope-cli
// train gives for the same file (tests/native/train_limits_test.cpp tests the CLI alone). A
// million rows once took 4.9 s and 468 MB before the JS side counted them; now the engine
// stops at the first pair too many and the heap is back where it was. Built at run time.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttnscopeError, TRAIN_LIMITS, createTrainer, heapInUse, init } from '../../web/attnscope.js';
import { cliPath } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'attnscope-hostile-train-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function trainerError(pairs, options) {
  try {
    (await createTrainer(pairs, options)).dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(AttnscopeError);
    return e.message;
  }
  throw new Error('the hostile corpus was accepted');
}

/** attnscope-cli train's error for the same CSV text (its status must be 2). */
function cliError(csv) {
  const pairs = join(dir, 'pairs.csv');
  writeFileSync(pairs, csv);
  const r = spawnSync(cliPath, ['train', '--pairs', pairs, '--epochs', '1', '--seed', '1', '--out', join(dir, 'out.safetensors')],
    { encoding: 'utf8' });
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/^attnscope-cli: error: /);
  return r.stderr.replace(/^attnscope-cli: error: /, '').trimEnd();
}

let startHeap;
beforeAll(async () => {
  await init();
  startHeap = await heapInUse();
});

describe('the same limits and messages as attnscope-cli train', () => {
  it('words per sentence: 300 space-separated words in one side', async () => {
    const csv = `i eat apple,ich esse apfel\n${'word '.repeat(300)},wort\n`;
    const want = 'pairs line 2: the source has 300 words, more than the 256 a sentence may have';
    expect(await trainerError(csv)).toBe(want);
    expect(cliError(csv)).toBe(want);
  });

  it('bytes per line: a 20,000-word sentence is refused before it is tokenised', async () => {
    const csv = `i eat apple,ich esse apfel\n${'word '.repeat(20_000)},wort\n`;
    const want = 'pairs line 2 is longer than 8194 bytes (each side may have 4096)';
    expect(await trainerError(csv)).toBe(want);
    expect(cliError(csv)).toBe(want);
  });

  it('tokens per sentence, counted after tokenising', async () => {
    const csv = `a b,${'x.'.repeat(150)}\n`;  // one word, 300 tokens once the punctuation is split off
    expect(await trainerError(csv)).toBe('pair 1: the target has 300 tokens, more than the 256 a sentence may have');
    expect(cliError(csv)).toBe('pairs line 1: the target has 300 tokens, more than the 256 a sentence may have');
  });

  it('vocabulary size: the pair that brings a side past 50,000 entries is named', async () => {
    // 60 new words a pair (each side under the browser's 500 characters): pair 834 brings the
    // source side to 4 + 50,040 entries.
    const lines = [];
    for (let p = 0; p < 900; p++) lines.push(`${Array.from({ length: 60 }, (_, w) => `w${p * 60 + w}`).join(' ')},x`);
    const csv = lines.join('\n');
    expect(await trainerError(csv)).toBe('pair 834 brings the source vocabulary past the 50000 entries a model may have');
    expect(cliError(csv)).toBe('pairs line 834 brings the source vocabulary past the 50000 entries a model may have');
  });
});

describe('row counts', () => {
  it(`a million rows stop at the first pair past the browser's ${TRAIN_LIMITS.pairs}, and the heap is back where it was`, async () => {
    const before = await heapInUse();
    const million = 'a,b\n'.repeat(1_000_000);
    expect(await trainerError(million)).toBe(
      `pairs line ${TRAIN_LIMITS.pairs + 1}: more than ${TRAIN_LIMITS.pairs} sentence pairs (this trainer's limit; attnscope-cli train takes 100000)`);
    expect(await trainerError(million.split('\n'))).toMatch(/^pairs line 5001: more than 5000 sentence pairs/);
    const after = await heapInUse();
    expect(Math.abs(after - before)).toBeLessThanOrEqual(4096);
    expect(Math.abs(after - startHeap)).toBeLessThanOrEqual(4096);
    // attnscope-cli train takes more pairs, up to the engine's limit: the same million stops at its first pair past it.
    expect(cliError(million)).toBe('pairs line 100001: more than 100000 sentence pairs');
  });
});
