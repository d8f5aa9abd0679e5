// Builds the package's one-tag widget: web/widget.js (the <attn-scope> element, its styles and
// the page side of the engine's worker) and web/worker.js (the worker, the JS wrapper and the
// Emscripten glue), each one minified ES module, so a page that embeds the widget from a CDN
// loads two scripts instead of the ~20 modules of web/widget/ and web/app/. The sources stay what
// the demo page and the repository's tests run; this is only their packaging (run by `npm pack`
// and `npm test`, after web/build-wasm.sh). Then prints the widget's first load, gzipped.
//   node web/build-widget.mjs
//
// The bundles sit in web/ so that every URL the sources resolve against import.meta.url still
// points where it did: web/models.js's ../models/, web/app/worker/client.js's ./worker.js (the
// bundled worker), and web/package-files.js's ./wasm/ (web/api/runtime.js hands the glue the .wasm's URL).
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'rolldown';

const root = resolve(import.meta.dirname, '..');
const web = join(root, 'web');

const bundles = [
  { input: 'web/widget/attn-scope.js', file: 'widget.js' },
  { input: 'web/app/worker/worker.js', file: 'worker.js' },
];

// The widget's styles are CSS in template literals (`const CSS = \`…\``, `HEATMAP_CSS`), which a JS
// minifier keeps as written: drop their comments and collapse their whitespace here. They hold no
// CSS strings, url()s or interpolations, so this changes no rule.
const minifyCss = {
  name: 'attnscope-minify-css',
  transform(code, id) {
    if (!/web[\\/](widget[\\/]attn-scope|app[\\/]views[\\/]heatmap)\.js$/.test(id)) return null;
    return code.replace(/(CSS = `)([^`$]*)(`)/g, (_, open, css, close) => open + css
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/\s*([{};,>])\s*/g, '$1')
      .replace(/:\s+/g, ':') // after a property's colon (no selector has a colon before a space)
      .trim() + close);
  },
};

for (const { input, file } of bundles) {
  await build({
    input: join(root, input),
    platform: 'browser',
    plugins: [minifyCss],
    // Node's modules stay imports that a browser never reaches (web/api/'s Node branches).
    external: [/^node:/],
    // The package ships no demo page for the widget's "explore in attnscope" link.
    // Nor the page's analyses and training: the worker leaves their handlers out
    // (web/app/worker/worker.js).
    transform: { define: { __ATTNSCOPE_PAGE__: 'null', __ATTNSCOPE_PAGE_WORKER__: 'false' } },
    logLevel: 'warn',
    output: { file: join(web, file), format: 'esm', minify: true, codeSplitting: false, comments: false },
  });
}

const gz = (path) => gzipSync(readFileSync(path), { level: 9 }).length;
const parts = [
  ['widget.js (the element, page side)', join(web, 'widget.js')],
  ['worker.js (worker, wrapper, glue)', join(web, 'worker.js')],
  ['attnscope-wasm.wasm', join(web, 'wasm/attnscope-wasm.wasm')],
  ['toy-en-de.safetensors', join(root, 'models/toy-en-de.safetensors')],
];
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
let js = 0;
let total = 0;
console.log("The widget's first load (gzip -9):");
for (const [label, path] of parts) {
  const z = gz(path);
  if (path.endsWith('.js')) js += z;
  total += z;
  console.log(`  ${label.padEnd(38)} ${kb(statSync(path).size).padStart(10)} -> ${kb(z).padStart(9)}`);
}
console.log(`  JavaScript ${kb(js)}, everything ${kb(total)}`);
