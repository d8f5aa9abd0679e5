// How far a model file is read: a download (a streamed Response) or a file (a path in Node) is
// judged by its first bytes. A header length no safetensors file has stops it after 8 bytes; the
// end of its last tensor is the end of the file, so a byte more, or a Content-Length beyond it,
// is refused and the download cancelled; and a file that is no model at all is called what it
// looks like, in the engine's words. The sources count what they were asked for: a refusal must
// come after the first bytes, not after the gigabyte behind them.
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AttnscopeError, loadModel } from '../../web/attnscope.js';
import { path } from './helpers.js';

const tiny = new Uint8Array(readFileSync(path('tests/golden/tiny_post_sin.safetensors')));
const CHUNK = 65_536;

/**
 * A body of `head` followed by `zeros` zero bytes, made as it is read, in CHUNK-byte pieces;
 * `pulled` counts the bytes handed out, `cancelled` says whether the reader gave up.
 */
function source(head, zeros) {
  const s = { pulled: 0, cancelled: false };
  const size = head.length + zeros;
  s.stream = new ReadableStream({
    pull(controller) {
      if (s.pulled >= size) { controller.close(); return; }
      const n = Math.min(CHUNK, size - s.pulled);
      const chunk = new Uint8Array(n);
      if (s.pulled < head.length) chunk.set(head.subarray(s.pulled, s.pulled + n));
      controller.enqueue(chunk);
      s.pulled += n;
    },
    cancel() { s.cancelled = true; },
  });
  return s;
}

async function loadError(what, options) {
  try {
    (await loadModel(what, options)).dispose();
  } catch (e) {
    expect(e).toBeInstanceOf(AttnscopeError);
    return e.message;
  }
  throw new Error('the file loaded');
}

const u64 = (n) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n, true);
  return b;
};

describe('a download', () => {
  it('a valid model followed by 256 MiB of zeros: refused at the first byte past its last tensor, the download cancelled', async () => {
    const s = source(tiny, 256 * 2 ** 20);
    const message = await loadError(new Response(s.stream), {});
    expect(message).toMatch(new RegExp(`^the model file goes on after its last tensor: its header says the file ends at byte ${tiny.length}, `
      + 'but \\d+ bytes have arrived, and the download was stopped \\(a safetensors file ends with its last tensor\\)$'));
    expect(s.cancelled).toBe(true);
    expect(s.pulled).toBeLessThanOrEqual(tiny.length + 2 * CHUNK); // (a stream may pull one chunk ahead)
  });

  it('a Content-Length beyond the last tensor: refused as soon as the header has arrived', async () => {
    const s = source(tiny, 2 ** 30);
    const announced = tiny.length + 2 ** 30;
    const message = await loadError(new Response(s.stream, { headers: { 'content-length': String(announced) } }), {});
    expect(message).toBe(`the model file goes on after its last tensor: its header says the file ends at byte ${tiny.length}, `
      + `but the server announces ${announced} bytes (Content-Length) (a safetensors file ends with its last tensor)`);
    expect(s.cancelled).toBe(true);
    expect(s.pulled).toBeLessThanOrEqual(3 * CHUNK); // the tiny model's header is in the first chunk
  });

  it('a compressed response\'s Content-Length counts compressed bytes: not compared, and the model loads', async () => {
    const s = source(tiny, 0);
    const headers = { 'content-length': String(tiny.length + 100), 'content-encoding': 'gzip' };
    const model = await loadModel(new Response(s.stream, { headers }));
    expect(model.info.file.bytes).toBe(tiny.length);
    model.dispose();
  });

  it('a header length of 2^63: stopped after the first chunk, in the engine\'s words', async () => {
    const s = source(u64(2n ** 63n), 2 ** 30);
    const message = await loadError(new Response(s.stream), {});
    expect(message).toBe('invalid model file: this is not a safetensors model file (it does not start with a safetensors header): '
      + 'its first 8 bytes, read as a header length, give 9223372036854775808, and the format allows 2 to 100000000');
    expect(s.cancelled).toBe(true);
    expect(s.pulled).toBeLessThanOrEqual(2 * CHUNK);
  });

  it('a PNG image renamed .safetensors is called a PNG image, the length it gives kept for the curious', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
    const s = source(png, 170_740 - 8);
    expect(await loadError(new Response(s.stream), {})).toBe('invalid model file: this is not a safetensors model file '
      + '(it starts with the bytes of a PNG image): its first 8 bytes, read as a header length, give 727905341920923785, '
      + 'and the format allows 2 to 100000000');
    expect(s.cancelled).toBe(true);
    // The same words for the same bytes given whole.
    const whole = new Uint8Array(170_740);
    whole.set(png);
    expect(await loadError(whole)).toBe('invalid model file: this is not a safetensors model file (it starts with the bytes '
      + 'of a PNG image): its first 8 bytes, read as a header length, give 727905341920923785, and the format allows 2 to 100000000');
  });

  it('a valid model in 7-byte chunks, with its exact Content-Length, loads', async () => {
    let at = 0;
    const stream = new ReadableStream({
      pull(c) {
        if (at >= tiny.length) { c.close(); return; }
        c.enqueue(tiny.slice(at, at + 7));
        at += 7;
      },
    });
    const model = await loadModel(new Response(stream, { headers: { 'content-length': String(tiny.length) } }));
    expect(model.info.file.bytes).toBe(tiny.length);
    model.dispose();
  });
});

describe('bytes and files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-extent-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bytes given whole: the engine refuses a byte after the last tensor', async () => {
    const padded = new Uint8Array(tiny.length + 1);
    padded.set(tiny);
    expect(await loadError(padded)).toBe('invalid model file: 1 byte of trailing data after the last tensor: the header says the file '
      + `ends at byte ${tiny.length}, but it is ${tiny.length + 1} bytes (a safetensors file ends with its last tensor)`);
  });

  it('a file on disk (Node): a model padded to 3 GiB (sparse) is refused from its header, not read', async () => {
    const file = join(dir, 'padded.safetensors');
    writeFileSync(file, tiny);
    truncateSync(file, 3 * 2 ** 30);
    expect(await loadError(file)).toBe(`the model file '${file}' goes on after its last tensor: its header says the file ends at byte `
      + `${tiny.length}, but it is ${3 * 2 ** 30} bytes (a safetensors file ends with its last tensor)`);
    const zeros = join(dir, 'zeros.safetensors');
    closeSync(openSync(zeros, 'w'));
    truncateSync(zeros, 3 * 2 ** 30);
    expect(await loadError(zeros)).toBe('invalid model file: this is not a safetensors model file (it does not start with a '
      + 'safetensors header): its first 8 bytes, read as a header length, give 0, and the format allows 2 to 100000000');
  });
});
