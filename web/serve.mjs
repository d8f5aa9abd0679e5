// A static file server for the demo and the browser tests: serves the page, the widget, the
// engine and the models on localhost with the right MIME types (application/wasm lets browsers
// stream-compile), and nothing else of the repository.
//   node web/serve.mjs [--port 8080] [--host 127.0.0.1]
//
// Every request is answered and none stops the server: a request it cannot read (a malformed
// percent-escape, a path that is not a path) is a 400, a method other than GET and HEAD a 405,
// anything outside the served folders a 404. A redirect only ever points at a path of this
// server, rebuilt from the file it resolved to, never from the request's text.
import { createReadStream, realpathSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, posix, relative, resolve, sep } from 'node:path';
import { PAGE_BUNDLES, buildPage, pageBundlesStale } from './build-page.mjs';

const root = resolve(import.meta.dirname, '..');
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.safetensors': 'application/octet-stream', '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.webmanifest': 'application/manifest+json',
};

/**
 * The folders `npm start` serves, each with the file types it serves from there: what the page,
 * the widget and their workers load from web/ (the two pages, their modules and bundles, the
 * service worker, the styles, the engine in web/wasm/, the Training panel's sentence pairs in
 * web/data/), not the Node scripts beside them (this server and the build recipes, .mjs) nor the
 * type declarations; and the models with their precomputed analyses (models/: not its Python
 * scripts, logs or notes). tests/js/serve.test.js checks that what web/ serves is what the pages
 * load, found by following their scripts, imports and URLs.
 */
export const SERVED_FOLDERS = Object.freeze([
  { folder: 'web', extensions: ['.html', '.js', '.css', '.wasm', '.csv'] },
  { folder: 'models', extensions: ['.safetensors', '.json'] },
]);
/**
 * What the browser tests add (tests/browser/browser.js): the frozen toy model the expected
 * translations were made with, the random-weight RNNs, the fixture pages and the models a test
 * writes for a page to fetch (tests/artifacts/, e.g. the hostile model of hostile.test.js).
 */
export const TEST_FOLDERS = Object.freeze([
  { folder: 'tests/models', extensions: ['.safetensors'] },
  { folder: 'tests/golden', extensions: ['.safetensors'] },
  { folder: 'tests/browser/fixtures', extensions: ['.html', '.js'] },
  { folder: 'tests/artifacts', extensions: ['.safetensors'] },
]);

/** The page's bundles (web/build-page.mjs), rebuilt first when a source is newer: an edit shows on reload. */
let building = null;
async function freshPageBundles() {
  if (!building && pageBundlesStale()) building = buildPage().finally(() => { building = null; });
  await building;
}
const BUNDLE_PATHS = new Set(PAGE_BUNDLES.map(({ file }) => `/${relative(root, file).split(sep).join('/')}`));

/** An answer the request gets instead of a file (thrown by `resolveRequest`). */
class Refusal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/**
 * The request target split into its decoded, normalised path ("/web/index.html") and its query
 * ("?s=..." or ""). Throws a 400 Refusal for a target that is not an origin-form path or whose
 * percent-escapes do not decode.
 */
function parseTarget(target) {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const query = q < 0 ? '' : target.slice(q);
  if (!rawPath.startsWith('/')) throw new Refusal(400, 'bad request: the path must start with /');
  let path;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    throw new Refusal(400, 'bad request: malformed percent-escape in the path');
  }
  if (/[\0-\x1f\x7f\\]/.test(path)) throw new Refusal(400, 'bad request: control character or backslash in the path');
  // "." and ".." segments resolved (never above "/"); repeated slashes collapse.
  return { path: posix.normalize(path), query: safeQuery(query) };
}

/**
 * The query as a Location header may carry it. Node's parser already refuses a request line
 * with bytes outside printable ASCII; should one get through, it is percent-encoded (a code
 * unit past 0xFF, which no byte decodes to, is dropped).
 */
function safeQuery(query) {
  return query.replace(/[^\x21-\x7e]/g, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `%${n.toString(16).toUpperCase().padStart(2, '0')}` : '';
  });
}

/** The allowed folder `relPath` ("web/app/x.js") lies in, or undefined. */
function folderOf(relPath, folders) {
  return folders.find(({ folder }) => relPath === folder || relPath.startsWith(`${folder}/`));
}

/** The URL path of a file under the root, each segment percent-encoded: a same-origin path. */
function urlPathOf(file) {
  return `/${relative(root, file).split(sep).map(encodeURIComponent).join('/')}`;
}

/**
 * What a request path names: {file, stat} of a file the server may send, or {redirect} to a
 * same-origin path. Throws a Refusal (404) for anything outside the served folders: a dotfile
 * or dot-folder anywhere in the path, a type the folder does not serve, a link whose target
 * lies outside them.
 */
function resolveRequest(path, folders, realRoot) {
  const rel = path.replace(/^\/+/, '');
  const notFound = new Refusal(404, `not found: ${path.slice(0, 200)}`);
  if (rel.split('/').some((segment) => segment.startsWith('.'))) throw notFound;
  const allowed = folderOf(rel, folders);
  if (!allowed) throw notFound;
  let real;
  let stat;
  try {
    real = realpathSync(join(root, rel));
    stat = statSync(real);
  } catch {
    throw notFound;
  }
  // Confinement on the resolved path: a link may not lead out of the folder it is served from.
  const realRel = relative(realRoot, real).split(sep).join('/');
  if (realRel.startsWith('..') || folderOf(realRel, [allowed]) === undefined) throw notFound;
  if (stat.isDirectory()) {
    const index = join(real, 'index.html');
    try {
      if (statSync(index).isFile()) return { redirect: urlPathOf(join(root, realRel, 'index.html')) };
    } catch { /* no index.html: not found */ }
    throw notFound;
  }
  if (!stat.isFile() || !allowed.extensions.includes(extname(real))) throw notFound;
  return { file: real, stat };
}

// Cross-origin: a page on another origin that embeds the widget loads the widget's module graph
// (web/widget/, web/app/, web/models.js, web/attnscope.js and web/api/), its worker, the engine (web/wasm/)
// and the models with CORS, and must read a 404's status to say why a model is missing. Only
// the HTML pages are never fetched cross-origin (they are navigated to). Nothing served is
// private: the allow-list holds what the npm package and the demo publish anyway.
const CORS = { 'access-control-allow-origin': '*' };
const TEXT = { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' };

function refuse(res, status, message, extra = {}) {
  const body = Buffer.from(`${message}\n`);
  res.writeHead(status, { ...TEXT, ...CORS, 'content-length': body.length, ...extra }).end(body);
}

async function handle(req, res, folders, realRoot) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    refuse(res, 405, `method not allowed: ${req.method === undefined ? '' : String(req.method).slice(0, 16)}`, { allow: 'GET, HEAD' });
    return;
  }
  const { path, query } = parseTarget(req.url ?? '');
  if (path === '/') {
    // An HTTP redirect, not the page served under "/": its links are relative to /web/.
    res.writeHead(302, { location: `/web/index.html${query}`, ...CORS }).end();
    return;
  }
  if (BUNDLE_PATHS.has(path)) {
    try {
      await freshPageBundles();
    } catch (e) {
      refuse(res, 500, `could not build the page's bundles: ${e.message}`);
      return;
    }
  }
  const found = resolveRequest(path, folders, realRoot);
  if (found.redirect) {
    res.writeHead(302, { location: found.redirect + query, ...CORS }).end();
    return;
  }
  const { file, stat } = found;
  res.writeHead(200, {
    ...(extname(file) === '.html' ? {} : CORS),
    'content-type': types[extname(file)] ?? 'application/octet-stream',
    'content-length': stat.size,
    'cache-control': 'no-cache',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const stream = createReadStream(file);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
}

/**
 * Starts the server. `folders`: what it serves (SERVED_FOLDERS; the browser tests add
 * TEST_FOLDERS).
 */
export function serve({ port = 8080, host = '127.0.0.1', folders = SERVED_FOLDERS } = {}) {
  const realRoot = realpathSync(root);
  const server = createServer((req, res) => {
    handle(req, res, folders, realRoot).catch((e) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (e instanceof Refusal) refuse(res, e.status, e.message);
      else refuse(res, 500, 'internal error');
    });
  });
  // A client may half-close its side once its request is written (`shutdown(SHUT_WR)`, Node's
  // socket.end()): its answer is still sent in full, and the connection closed after it. By
  // default Node's server ends the socket when the request side ends, before a file streamed
  // from disk has been written, and such a client got 0 bytes of a 200.
  server.httpAllowHalfOpen = true;
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(port, host, () => ok(server));
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : fallback;
  };
  const server = await serve({ port: Number(arg('--port', 8080)), host: arg('--host', '127.0.0.1') });
  const { address, port } = server.address();
  console.log(`attnscope demo: http://${address}:${port}/`);
}
