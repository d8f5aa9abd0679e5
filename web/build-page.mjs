// Builds the demo page's two bundles: web/page.js (web/app/main.js and its ~45 modules) and
// web/page-worker.js (web/app/worker/worker.js and its modules, the page's handlers included), so
// a cold load asks for two scripts instead of ~55. Measured in headless Chromium on 2 cores: the
// modules one by one took ~640 ms to arrive, and the worker's own script waited behind them.
// The sources stay what the repository's tests import; index.html loads the page bundle (and
// web/models.js, kept apart: below), never the modules one by one.
//   node web/build-page.mjs        (npm start and npm test run it; web/serve.mjs rebuilds when stale)
//
// The bundles sit in web/, like the widget's (web/build-widget.mjs). A source in web/app/ or a
// folder of it that names a file by a relative `new URL('../x', import.meta.url)` is rewritten to
// the same file seen from web/; the page's workers become web/page-worker.js. web/models.js stays
// its own module: the tests extend the model list by serving another web/models.js
// (tests/browser/browser.js).
import { existsSync, readFileSync, readdirSync, renameSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { modelUrl, models } from './models.js';

const root = resolve(import.meta.dirname, '..');
const web = join(root, 'web');
const MODELS = join(web, 'models.js');
export const PAGE_BUNDLES = [
  { input: join(web, 'app/main.js'), file: join(web, 'page.js') },
  { input: join(web, 'app/worker/worker.js'), file: join(web, 'page-worker.js') },
];
const WORKER_SOURCE = join(web, 'app/worker/worker.js');

/** `new URL('<relative>', import.meta.url)` in a module at `id`, re-expressed from web/. */
const rebaseUrls = {
  name: 'attnscope-rebase-urls',
  transform(code, id) {
    if (!id.startsWith(web) || dirname(id) === web) return null;
    return code.replace(/new URL\((['`])(\.\.?\/[^'`$]+)\1, import\.meta\.url\)/g, (_, q, path) => {
      const target = resolve(dirname(id), path);
      const file = target === WORKER_SOURCE ? PAGE_BUNDLES[1].file : target;
      return `new URL(${q}./${relative(web, file)}${q}, import.meta.url)`;
    });
  },
};

/** web/models.js stays an import of './models.js' (see above). */
const modelsApart = {
  name: 'attnscope-models-apart',
  resolveId(source, importer) {
    if (importer && resolve(dirname(importer), source) === MODELS) return { id: './models.js', external: true };
    return null;
  },
};

/**
 * Every source a bundle may be made of: the .js of web/app/ and its folders, of web/api/, web/*.js but
 * the built ones and the service worker, the Emscripten glue (its import names are minified per link: a
 * worker bundle with another build's glue cannot instantiate the .wasm beside it), and this recipe.
 */
function sources() {
  const built = new Set([...PAGE_BUNDLES.map((b) => b.file), join(web, 'widget.js'), join(web, 'worker.js'), join(web, 'sw.js')]);
  const js = (dir, recursive = false) => readdirSync(dir, { recursive }).filter((f) => f.endsWith('.js')).map((f) => join(dir, f));
  return [...js(web), ...js(join(web, 'app'), true), ...js(join(web, 'api')), join(web, 'wasm/attnscope-wasm.js'), join(web, 'build-page.mjs')]
    .filter((f) => !built.has(f));
}

/** The file of each model of the manifest that names one. */
const modelFiles = () => models.filter((m) => m.file).map((m) => ({ id: m.id, path: fileURLToPath(modelUrl(m)) }));

/**
 * The download size of each model of the manifest, in bytes (null: the file is missing), put into
 * the page's bundle as __ATTNSCOPE_MODEL_SIZES__: the picker shows them without asking the server
 * (a HEAD request per model on every load, web/app/panels/form.js).
 */
export const modelSizes = () => Object.fromEntries(modelFiles().map(({ id, path }) => [id, existsSync(path) ? statSync(path).size : null]));

/** True when a bundle is missing or older than one of its sources (a model file included: its size). */
export function pageBundlesStale() {
  let oldest = Infinity;
  for (const { file } of PAGE_BUNDLES) {
    try {
      oldest = Math.min(oldest, statSync(file).mtimeMs);
    } catch {
      return true;
    }
  }
  const models = modelFiles().map((m) => m.path).filter((f) => existsSync(f));
  return [...sources(), ...models].some((f) => statSync(f).mtimeMs > oldest);
}

export async function buildPage() {
  let build;
  try {
    ({ build } = await import('rolldown'));
  } catch {
    throw new Error('web/build-page.mjs needs the dev dependency rolldown: run `npm ci` in the repository');
  }
  const define = { __ATTNSCOPE_MODEL_SIZES__: JSON.stringify(modelSizes()) };
  for (const { input, file } of PAGE_BUNDLES) {
    // Written beside the bundle, then renamed over it: a server never serves half a file.
    const tmp = `${file}.${process.pid}.tmp`;
    await build({
      input,
      platform: 'browser',
      transform: { define },
      plugins: [rebaseUrls, modelsApart],
      external: [/^node:/], // web/api/'s Node branches, never reached in a browser
      logLevel: 'warn',
      // Names kept (no mangling): a profile of the page (tests/perf/page_profile.mjs) or an
      // error's stack then names the source's functions. Whitespace and comments go.
      output: { file: tmp, format: 'esm', minify: { compress: true, mangle: false }, codeSplitting: false, comments: false },
    });
    renameSync(tmp, file);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildPage();
  for (const { file } of PAGE_BUNDLES) {
    const bytes = readFileSync(file);
    console.log(`${relative(root, file)}: ${(bytes.length / 1024).toFixed(1)} KiB, ${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzip`);
  }
}
