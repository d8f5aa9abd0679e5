// A model file from where the caller has it: a Uint8Array, an ArrayBuffer, a Blob (a File), a
// Response, a URL, or a path in Node. Downloads and files are judged by their first bytes as they
// arrive (web/model-header.js, the one place of the size rule), and go a chunk at a time to where
// they are kept: into the engine (stageSource: JavaScript never holds the whole file), or into one
// array of exactly the file's size (readSource).

import { checkFileLength, modelFileStart } from '../model-header.js';
import { AttnscopeError, check, isNode } from './runtime.js';

/** A model file as messages name it: by its URL or path when it has one. */
export const fileNamed = (name) => `the model file${name ? ` '${name}'` : ''}`;

/**
 * A model file streamed into the engine as it arrives: each chunk goes to its place in a
 * StagedFile (bindings/staged_file.h) and is dropped. Returns {staged, header}: the StagedFile
 * (the caller loads from it and deletes it) and web/model-header.js's reading of the header
 * ({parameters, fileBytes, needBytes}); or {bytes}, the first bytes of something that is no model
 * file (or a file cut short before its header ended), for the engine to say what they are.
 * `fit`: the load options the size rule judges the file by; `signal`, an AbortSignal, stops the
 * read (the reason's message is the error's).
 */
export function stageSource(source, runtime, onProgress, fit = {}, signal = undefined) {
  return receiveSource(source, onProgress, fit, signal, (fileBytes) => {
    const staged = new runtime.StagedFile(fileBytes);
    return {
      append: (chunk) => check(staged.append(chunk)),
      result: () => ({ staged }),
      drop: () => staged.delete(),
    };
  });
}

/** A model file's bytes, in one array of the file's size (the trainer continues from them). */
export async function readSource(source, onProgress, fit = {}) {
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  const got = await receiveSource(source, onProgress, fit, undefined, (fileBytes) => {
    const bytes = new Uint8Array(fileBytes);
    let at = 0;
    return {
      append: (chunk) => { bytes.set(chunk, at); at += chunk.length; },
      result: () => ({ bytes: bytes.subarray(0, at) }), // (short when cut short: the engine says so)
      drop: () => {},
    };
  });
  return got.bytes;
}

/** The source as a reader of chunks, judged and handed to the sink `begin(fileBytes)` makes. */
async function receiveSource(source, onProgress, fit, signal, begin) {
  if (typeof Blob !== 'undefined' && source instanceof Blob) {
    return receive(source.stream().getReader(), { what: fileNamed(source.name), fit, begin, signal, announced: source.size,
      onProgress: (loaded) => onProgress?.({ loaded, total: source.size }) });
  }
  if (typeof Response !== 'undefined' && source instanceof Response) return receiveResponse(source, source.url, onProgress, fit, signal, begin);
  const url = String(source);
  if (isNode && !/^(https?|data|blob):/i.test(url)) {
    const { fileURLToPath } = await import('node:url');
    const { open } = await import('node:fs/promises');
    let file;
    try {
      file = await open(url.startsWith('file:') ? fileURLToPath(url) : url);
      const { size } = await file.stat();
      return await receive(fileReader(file, size), { what: fileNamed(url), fit, begin, signal, announced: size,
        announcedAs: `it is ${size} bytes`, onProgress: (loaded) => onProgress?.({ loaded, total: size }) });
    } catch (e) {
      throw e instanceof AttnscopeError ? e : new AttnscopeError(`cannot read model file '${url}': ${e.message}`);
    } finally {
      await file?.close();
    }
  }
  let response;
  try {
    response = await fetch(url, { signal });
  } catch (e) {
    throw new AttnscopeError(`cannot fetch model '${url}': ${e.message}`);
  }
  if (!response.ok) throw new AttnscopeError(`cannot fetch model '${url}': HTTP ${response.status}`);
  return receiveResponse(response, url, onProgress, fit, signal, begin);
}

function receiveResponse(response, url, onProgress, fit, signal, begin) {
  const total = Number(response.headers.get('content-length')) || 0;
  // A compressed response's Content-Length counts compressed bytes: only what arrives is judged.
  const encoding = response.headers.get('content-encoding');
  const announced = !encoding || encoding === 'identity' ? total : 0;
  const reader = response.body ? response.body.getReader() : wholeReader(response);
  return receive(reader, { what: fileNamed(url), fit, begin, signal, announced,
    announcedAs: `the server announces ${announced} bytes (Content-Length)`,
    onProgress: (loaded) => onProgress?.({ loaded, total, url }) });
}

/** A reader of a Response without a body stream: its bytes as one chunk. */
function wholeReader(response) {
  let done = false;
  return {
    async read() {
      if (done) return { done };
      done = true;
      return { done: false, value: new Uint8Array(await response.arrayBuffer()) };
    },
    cancel: async () => {},
  };
}

/** A Node file as a stream's reader, 4 MiB a read. */
function fileReader(file, size) {
  let at = 0;
  return {
    async read() {
      if (at >= size) return { done: true };
      const chunk = new Uint8Array(Math.min(4 << 20, size - at));
      const { bytesRead } = await file.read(chunk, 0, chunk.length, at);
      if (bytesRead === 0) return { done: true }; // the file shrank: the engine says it is cut short
      at += bytesRead;
      return { done: false, value: chunk.subarray(0, bytesRead) };
    },
    cancel: async () => {},
  };
}

function joined(chunks, length) {
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const c of chunks) { bytes.set(c, offset); offset += c.length; }
  return bytes;
}

/**
 * Reads `reader` to its end, judged by its first bytes (web/model-header.js): the header's length
 * as soon as 8 bytes have arrived (a PNG, or 2^63, stops the read there, and the engine says what
 * the bytes are); then, once the header has arrived, a file too big for the engine, an
 * `announced` size (Content-Length, a file's size) beyond the end of the last tensor, and any
 * byte that arrives after it. Each refusal cancels the read: a 3 GB file is refused after its
 * header, not after 3 GB. The chunks before the header's end are kept; from then on each chunk
 * goes to the sink `begin(fileBytes)` makes and is dropped. `signal` aborts the read.
 */
async function receive(reader, { what, fit, begin, signal, announced, announcedAs, onProgress }) {
  const early = [];
  let loaded = 0;
  let start = { need: 8 };
  let sink = null;
  const stop = () => reader.cancel().catch(() => {}); // (a pending read then ends)
  signal?.addEventListener('abort', stop, { once: true });
  try {
    if (signal?.aborted) throw new AttnscopeError(signal.reason?.message ?? 'the load was cancelled');
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw new AttnscopeError(signal.reason?.message ?? 'the load was cancelled');
      if (done) break;
      loaded += value.length;
      if (sink) {
        checkFileLength(start.fileBytes, loaded, what, `${loaded} bytes have arrived, and the download was stopped`);
        sink.append(value);
      } else {
        early.push(value);
        while (start.need && loaded >= start.need) start = modelFileStart(joined(early, loaded), what, fit);
        if (start.notModel) {
          reader.cancel().catch(() => {});
          return { bytes: joined(early, loaded) }; // the engine says what these bytes are
        }
        if (start.fileBytes !== undefined) {
          if (announced) checkFileLength(start.fileBytes, announced, what, announcedAs);
          checkFileLength(start.fileBytes, loaded, what, `${loaded} bytes have arrived, and the download was stopped`);
          sink = begin(start.fileBytes);
          sink.append(joined(early, loaded));
          early.length = 0;
        }
      }
      onProgress(loaded);
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    sink?.drop();
    throw e instanceof AttnscopeError ? e : new AttnscopeError(e.message);
  } finally {
    signal?.removeEventListener('abort', stop);
  }
  return sink ? { ...sink.result(), header: start } : { bytes: joined(early, loaded) };
}
