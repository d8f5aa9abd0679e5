// Where the package's own files are, each written as a literal `new URL('…', import.meta.url)`:
// the form bundlers (Vite, webpack 5, rolldown) recognise, copying the file into an app's build
// and rewriting the URL. This module sits in web/, as the one-file widget build web/widget.js
// does, so the same relative paths hold in the sources, in the package and in a CDN.
// (The worker is web/app/worker/client.js's `./worker.js`; the toy model is web/models.js's `url`.)
// web/api/runtime.js finds the engine's .wasm here, in Node too, so that the same path holds in the
// bundles (web/worker.js, web/page-worker.js), which sit in web/ and not in web/api/.

/** The engine's .wasm, which the page hands to its worker (`init {wasmUrl}`) and web/api/runtime.js loads. */
export const wasmFileUrl = () => new URL('./wasm/attnscope-wasm.wasm', import.meta.url).href;
