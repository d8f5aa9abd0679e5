// The main thread's side of web/app/worker/worker.js: one module worker per page, shared by the demo
// page and every <attn-scope> widget (so one WebAssembly instance and one copy of each model).
//
//   const engine = getEngine();
//   const info = await engine.request('load', { url }, (p) => console.log(p.loaded, p.total));
import { wasmFileUrl } from '../../package-files.js';

let shared = null;

/** The page's engine (created on first use). */
export function getEngine() {
  shared ??= new Engine(new URL('./worker.js', import.meta.url));
  return shared;
}

export class EngineError extends Error {
  constructor({ name, message }) {
    super(message);
    this.name = name === 'AttnscopeError' ? 'AttnscopeError' : 'EngineError';
  }
}

/** One engine worker (the page shares one: getEngine; web/app/worker/sweep-pool.js starts more). */
export class Engine {
  #worker;
  #pending = new Map();
  #next = 1;
  #broken = null;

  constructor(url, name = 'attnscope') {
    // A module worker must come from the page's origin; a widget loaded from another origin
    // starts it through a same-origin blob that imports the real one (CORS permitting).
    const source = url.origin === location.origin
      ? url
      : URL.createObjectURL(new Blob([`import ${JSON.stringify(url.href)};`], { type: 'text/javascript' }));
    this.#worker = new Worker(source, { type: 'module', name });
    this.#worker.onmessage = ({ data }) => {
      const pending = this.#pending.get(data.id);
      if (!pending) return;
      if ('progress' in data) {
        pending.onProgress?.(data.progress);
        return;
      }
      this.#pending.delete(data.id);
      if (data.error) pending.reject(new EngineError(data.error));
      else pending.resolve(data.result);
    };
    this.#worker.onerror = (e) => this.#fail(`the engine's worker failed: ${e.message ?? 'could not start'}`);
    // First message: compile the engine now, from where this page found the .wasm (in an app
    // built by a bundler, the .wasm is not beside the worker). Errors surface at the first request.
    this.request('init', { wasmUrl: wasmFileUrl() }).catch(() => {});
  }

  /**
   * Sends one request to the worker; resolves with its plain-data answer. `transfer`: buffers
   * among the arguments that move to the worker rather than being copied (a model file's bytes).
   */
  request(type, args = {}, onProgress, transfer = []) {
    if (this.#broken) return Promise.reject(this.#broken);
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject, onProgress });
      this.#worker.postMessage({ id, type, ...args }, transfer);
    });
  }

  /** Stops the worker; requests after this fail. */
  terminate() {
    this.#worker.terminate();
    this.#fail('the engine\'s worker was stopped');
  }

  #fail(message) {
    this.#broken = new EngineError({ name: 'Error', message });
    for (const p of this.#pending.values()) p.reject(this.#broken);
    this.#pending.clear();
  }
}

/** "1.2 MB of 12.4 MB" style byte counts. */
export function formatBytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} kB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
