// docs/screenshot.mjs, the script that makes the README's picture (docs/screenshot.png) from the
// real page: run as a person runs it, into a temporary file, it writes a PNG of the size it reports
// (at least the page's viewport), and the page it pictured translated the sentence as the native
// engine does with the same beam search.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { BEAM, MODEL, SENTENCE, STEP, VIEWPORT } from '../../docs/screenshot.mjs';
import { cliTranslate } from '../js/helpers.js';
import { root } from './browser.js';

/** Width and height from a PNG's IHDR chunk. */
function pngSize(bytes) {
  expect(bytes.subarray(0, 8).toString('latin1')).toBe('\x89PNG\r\n\x1a\n');
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

it('docs/screenshot.mjs pictures the page translating the sentence as the engine does', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'attnscope-screenshot-')), 'screenshot.png');
  const stdout = execFileSync(process.execPath, ['docs/screenshot.mjs', out], { cwd: root, encoding: 'utf8', timeout: 240_000 });
  const result = JSON.parse(stdout.trim().split('\n').pop());
  expect(result).toMatchObject({ path: out, sentence: SENTENCE, model: MODEL, step: STEP });

  const size = pngSize(readFileSync(out));
  expect(size).toEqual({ width: result.width, height: result.height });
  expect(size.width).toBeGreaterThan(VIEWPORT.width);
  expect(size.height).toBeGreaterThanOrEqual(VIEWPORT.height);

  // The page showed a translation in progress at the pictured step, and its whole translation is
  // the native CLI's with the same search (beam of the same width, no length penalty: the page's default).
  expect(result.shown.length).toBeGreaterThan(0);
  expect(result.translation.length).toBeGreaterThan(result.shown.length);
  const [cli] = cliTranslate(join(root, `models/${MODEL}.safetensors`), [SENTENCE], ['--beam', String(BEAM)]);
  expect(cli.length).toBeGreaterThan(0);
  expect(result.translation).toBe(cli);

  // The committed picture is a PNG of the same kind.
  const committed = pngSize(readFileSync(join(root, 'docs/screenshot.png')));
  expect(committed.width).toBeGreaterThan(VIEWPORT.width);
}, 300_000);
