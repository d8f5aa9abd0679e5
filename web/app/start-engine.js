// Starts the engine's worker (and with it the WebAssembly compile) before the page's ~45 modules
// have loaded: index.html runs this one async, so the worker's own start-up overlaps the rest of
// the page's (a cold load waited for every module before the worker began: issue 20).
// main.js's getEngine() then returns this same worker.
import { getEngine } from './client.js';

getEngine();
