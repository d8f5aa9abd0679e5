// A static file server for the demo and the browser tests: serves the repository root on
// localhost with the right MIME types (application/wasm lets browsers stream-compile).
//   node web/serve.mjs [--port 8080] [--host 127.0.0.1]
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, relative, resolve, sep } from 'node:path';
import { PAGE_BUNDLES, buildPage, pageBundlesStale } from './build-page.mjs';

const root = resolve(import.meta.dirname, '..');
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.safetensors': 'application/octet-stream', '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8', '.csv': 'text/csv; charset=utf-8', '.webmanifest': 'application/manifest+json',
};

/** The page's bundles (web/build-page.mjs), rebuilt first when a source is newer: an edit shows on reload. */
let building = null;
async function freshPageBundles() {
  if (!building && pageBundlesStale()) building = buildPage().finally(() => { building = null; });
  await building;
}
const BUNDLE_PATHS = new Set(PAGE_BUNDLES.map(({ file }) => `/${relative(root, file).split(sep).join('/')}`));

export function serve({ port = 8080, host = '127.0.0.1' } = {}) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const pathname = decodeURIComponent(url.pathname);
    if (BUNDLE_PATHS.has(pathname)) {
      try {
        await freshPageBundles();
      } catch (e) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`could not build the page's bundles: ${e.message}`);
        return;
      }
    }
    if (pathname === '/') {
      // An HTTP redirect, not the page served under "/": its links are relative to /web/.
      res.writeHead(302, { location: `/web/index.html${url.search}`, 'access-control-allow-origin': '*' }).end();
      return;
    }
    const file = normalize(join(root, pathname));
    if (!file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let stat;
    try {
      stat = statSync(file);
    } catch {
      res.writeHead(404, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end(`not found: ${pathname}`);
      return;
    }
    if (stat.isDirectory()) {
      res.writeHead(302, { location: pathname.replace(/\/?$/, '/index.html') }).end();
      return;
    }
    res.writeHead(200, {
      // Any origin may embed the widget (web/widget/attn-scope.js): its module script, the worker
      // it starts, the engine and the models are fetched cross-origin from such a page.
      'access-control-allow-origin': '*',
      'content-type': types[extname(file)] ?? 'application/octet-stream',
      'content-length': stat.size,
      'cache-control': 'no-cache',
    });
    createReadStream(file).pipe(res);
  });
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
