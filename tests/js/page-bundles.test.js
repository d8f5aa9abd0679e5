// The demo page runs two bundles (web/build-page.mjs, for a faster cold start): web/page.js and
// web/page-worker.js. A file the sources name relative to web/app/ must still be found from web/,
// where the bundles sit: a wrong path breaks the page only where that file is used (the service
// worker, the training panel's pairs, the sweep's workers), so check every one here.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { PAGE_BUNDLES, pageBundlesStale } from '../../web/build-page.mjs';

const root = resolve(import.meta.dirname, '../..');
const web = join(root, 'web');
const read = (file) => readFileSync(file, 'utf8');
/** The literal `new URL('…', import.meta.url)` paths of a bundle (those without an interpolation). */
const urlsIn = (code) => [...code.matchAll(/new URL\((["'`])([^"'`$]+)\1,\s*import\.meta\.url\)/g)].map((m) => m[2]);

it('the bundles are built from the sources as they are now (npm test builds them first)', () => {
  for (const { file } of PAGE_BUNDLES) expect(existsSync(file), `${file}: run node web/build-page.mjs`).toBe(true);
  expect(pageBundlesStale()).toBe(false);
});

it('index.html loads the page bundle as its one script, and preloads the modules the bundle imports', () => {
  const html = read(join(web, 'index.html'));
  const scripts = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]);
  expect(scripts).toEqual(['page.js']);
  // The bundle's imports (web/models.js) and theirs, found from the files.
  const importsOf = (file) => [...read(file).matchAll(/^import\b[^;]*?\bfrom\s*['"](\.[^'"]+)['"]/gm)].map((m) => resolve(file, '..', m[1]));
  const graph = new Set();
  const visit = (file) => { if (!graph.has(file)) { graph.add(file); importsOf(file).forEach(visit); } };
  importsOf(PAGE_BUNDLES[0].file).forEach(visit);
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => join(web, m[1]));
  expect(graph.size).toBeGreaterThan(0);
  expect(preloaded.sort()).toEqual([...graph].sort());
});

it('every file a bundle names by URL exists where the bundle finds it, and the page starts the bundled worker', () => {
  const page = read(PAGE_BUNDLES[0].file);
  const worker = read(PAGE_BUNDLES[1].file);
  const pageUrls = urlsIn(page);
  const workerUrls = urlsIn(worker);
  // The parser sees the URLs (a broken regex would find none and pass).
  expect(pageUrls).toEqual(expect.arrayContaining(['./page-worker.js', './sw.js', './wasm/attnscope-wasm.wasm', './data/toy-en-de.csv']));
  expect(workerUrls).toEqual(expect.arrayContaining(['./data/toy-en-de.csv']));
  expect(pageUrls.filter((u) => u.includes('app/worker/worker.js'))).toEqual([]);
  // Emscripten's glue names its .wasm bare (`attnscope-wasm.wasm`); web/attnscope.js hands it the
  // URL instead (locateFile), so that one is never fetched from where it points.
  for (const url of [...pageUrls, ...workerUrls].filter((u) => u.startsWith('.'))) {
    expect(existsSync(join(web, url)), `${url} (from web/)`).toBe(true);
  }
  // web/models.js stays a module of its own (the browser tests serve it extended).
  expect([...page.matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1])).toEqual(['./models.js']);
});
