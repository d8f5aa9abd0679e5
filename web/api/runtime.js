// The engine's runtime: loading the WebAssembly engine once (init), the error its calls throw
// (AttnscopeError) and how each JS object owns its Embind handle. Every other module of the API
// reaches the engine through these.

import { wasmFileUrl } from '../package-files.js';

export const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

export class AttnscopeError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttnscopeError';
  }
}

/** An engine call's result, or its {error} thrown as an AttnscopeError. */
export function check(result) {
  if (result !== null && typeof result === 'object' && typeof result.error === 'string') {
    throw new AttnscopeError(result.error);
  }
  return result;
}

let runtimePromise = null;

/**
 * Loads the WebAssembly engine once (later calls return the same instance, so every model and
 * widget on a page shares it). Options: `wasmBinary` (bytes), `wasmUrl` (where the .wasm is).
 */
export function init(options = {}) {
  if (!runtimePromise) {
    runtimePromise = instantiate(options).catch((e) => {
      runtimePromise = null;
      throw new AttnscopeError(`could not start the attnscope WebAssembly engine: ${e?.message ?? e}`);
    });
  }
  return runtimePromise;
}

async function instantiate({ wasmBinary, wasmUrl } = {}) {
  const { default: createAttnscope } = await import('../wasm/attnscope-wasm.js');
  const args = {};
  if (wasmBinary) {
    args.wasmBinary = wasmBinary;
  } else if (isNode) {
    // Emscripten 3.1.6 would try fetch() on a file path in Node: hand it the bytes instead.
    const { readFile } = await import('node:fs/promises');
    args.wasmBinary = await readFile(new URL(wasmFileUrl()));
  } else {
    // Beside the package's wasm/ folder (web/package-files.js), also when a bundler has moved this
    // module and the Emscripten glue into one file elsewhere (web/worker.js of the package,
    // web/build-widget.mjs).
    args.locateFile = (file) => (wasmUrl ? String(wasmUrl) : new URL(file, wasmFileUrl()).href);
  }
  return createAttnscope(args);
}

// Each Model and Session owns one Embind handle. When one is garbage-collected without
// dispose(), the FinalizationRegistry frees its WASM memory anyway.
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => { try { handle.delete(); } catch { /* already freed */ } })
  : null;
const handles = new WeakMap();

export function own(object, handle) {
  handles.set(object, handle);
  finalizer?.register(object, handle, object);
}

export function handleOf(object, what) {
  const handle = handles.get(object);
  if (!handle) throw new AttnscopeError(`this ${what} has been disposed`);
  return handle;
}

export function release(object) {
  const handle = handles.get(object);
  if (!handle) return;
  finalizer?.unregister(object);
  handle.delete();
  handles.delete(object);
}
