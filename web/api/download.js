// A model file's bytes from where the caller has them: a Uint8Array, an ArrayBuffer, a Response,
// a URL, or a path in Node. Downloads and files are judged by their first bytes as they arrive
// (web/model-header.js, the one place of the size rule), and the engine's heap is readied for the
// load while a model downloads.

import { checkFileLength, modelFileStart } from '../model-header.js';
import { AttnscopeError, isNode } from './runtime.js';

/**
 * A model file's bytes: `source` is bytes, a Response, a URL or (Node) a path. `fit`: the load
 * options the size rule judges the file by (web/model-header.js checkModelFile).
 */
export async function readSource(source, onProgress, onChunk, fit = {}) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (typeof Response !== 'undefined' && source instanceof Response) return readResponse(source, onProgress, source.url, onChunk, fit);
  const url = String(source);
  if (isNode && !/^(https?|data|blob):/i.test(url)) {
    const { fileURLToPath } = await import('node:url');
    const bytes = await readModelFile(url.startsWith('file:') ? fileURLToPath(url) : url, fileNamed(url), fit).catch((e) => {
      throw e instanceof AttnscopeError ? e : new AttnscopeError(`cannot read model file '${url}': ${e.message}`);
    });
    onProgress?.({ loaded: bytes.length, total: bytes.length });
    return bytes;
  }
  let response;
  try {
    response = await fetch(url);
  } catch (e) {
    throw new AttnscopeError(`cannot fetch model '${url}': ${e.message}`);
  }
  if (!response.ok) throw new AttnscopeError(`cannot fetch model '${url}': HTTP ${response.status}`);
  return readResponse(response, onProgress, url, onChunk, fit);
}

/** A model file as messages name it: by its URL or path when it has one. */
export const fileNamed = (name) => `the model file${name ? ` '${name}'` : ''}`;

function joined(chunks, length) {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const c of chunks) { bytes.set(c, offset); offset += c.length; }
  return bytes;
}

/**
 * A file in Node, its header first: a file that is no model, or whose size is not what its header
 * promises, or too big for the engine, is refused after its first bytes are read (a model padded
 * to 3 GB is not read whole).
 */
async function readModelFile(path, what, fit) {
  const { open } = await import('node:fs/promises');
  const file = await open(path);
  try {
    const { size } = await file.stat();
    let bytes = new Uint8Array(0);
    let start = { need: 8 };
    while (start.need) {
      const want = Math.min(start.need, size);
      if (want <= bytes.length) break; // the file ends first: the engine says it is truncated
      const next = new Uint8Array(want);
      const { bytesRead } = await file.read(next, 0, want, 0);
      bytes = next.subarray(0, bytesRead);
      if (bytesRead < want) break;
      start = apiError(() => modelFileStart(bytes, what, fit));
    }
    if (start.fileBytes === undefined) return bytes; // no model, or cut short: the engine says what is wrong
    apiError(() => checkFileLength(start.fileBytes, size, what, `it is ${size} bytes`));
    const whole = new Uint8Array(size);
    whole.set(bytes);
    const { bytesRead } = await file.read(whole, bytes.length, size - bytes.length, bytes.length);
    return whole.subarray(0, bytes.length + bytesRead);
  } finally {
    await file.close();
  }
}

/** web/model-header.js's refusals, as this API's errors. */
function apiError(check) {
  try {
    return check();
  } catch (e) {
    throw e instanceof AttnscopeError ? e : new AttnscopeError(e.message);
  }
}

/**
 * The body, read as it streams, and judged by its first bytes (web/model-header.js): the header's
 * length as soon as 8 bytes have arrived (a PNG, or 2^63, stops the download there, and the engine
 * says what the bytes are); then, once the header has arrived, a file too big for the engine, a
 * Content-Length beyond the end of the last tensor, and any byte that arrives after it. Each
 * refusal cancels the download: a 3 GB file is refused after its header, not after 3 GB.
 */
async function readResponse(response, onProgress, url, onChunk, fit) {
  const total = Number(response.headers.get('content-length')) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const what = fileNamed(url);
  // A compressed response's Content-Length counts compressed bytes: only what arrives is judged.
  const encoding = response.headers.get('content-encoding');
  const announced = !encoding || encoding === 'identity' ? total : 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  let start = { need: 8 };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      while (start.need && loaded >= start.need) start = modelFileStart(joined(chunks, loaded), what, fit);
      if (start.notModel) {
        reader.cancel().catch(() => {});
        return joined(chunks, loaded); // the engine says what these bytes are
      }
      if (start.fileBytes !== undefined) {
        if (announced) checkFileLength(start.fileBytes, announced, what, `the server announces ${announced} bytes (Content-Length)`);
        checkFileLength(start.fileBytes, loaded, what, `${loaded} bytes have arrived, and the download was stopped`);
      }
      onProgress?.({ loaded, total, url });
      onChunk?.(loaded, total);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e; // (loadModel makes it an AttnscopeError)
  }
  return joined(chunks, loaded);
}

/**
 * While a model downloads, the engine's heap is readied for its load a step per chunk
 * (`warmHeap`, bindings/heap.h): in the time the thread would wait for the
 * network. A model's load needs about HEAP_PER_FILE_BYTE times its file in heap: each tensor is
 * held once, in the file's dtype, and the file itself is never copied in (an F16 file loaded with
 * `binary16: false` needs twice its size, and grows the heap the rest of the way as it loads).
 * Readying more would be memory the engine holds for nothing: the heap never shrinks.
 */
const HEAP_PER_FILE_BYTE = 1.1;
export function warmHeapWhileDownloading(runtime) {
  let warmed = 0;
  return (loaded, total) => {
    const want = HEAP_PER_FILE_BYTE * Math.max(loaded, total ? Math.min(total, 2 * loaded) : loaded);
    if (want - warmed < 1 << 20) return; // a MiB at a time
    runtime.warmHeap?.(want); // (absent from an engine built before it: then nothing is readied)
    warmed = want;
  };
}
