// web/serve.mjs (what `npm start` runs) against hostile requests, over raw sockets so that each
// request line reaches the server as written (fetch() would normalise it). A request it cannot
// read is a 400 and it keeps serving; a redirect only points at one of its own paths; it serves
// the page, the widget, the engine and the models and nothing else of the repository, not
// through a link either. The server runs as `npm start` runs it, in its own process.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../web/serve.mjs';
import { root } from './helpers.js';

let child;
let port;

beforeAll(async () => {
  child = spawn(process.execPath, ['web/serve.mjs', '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  port = await new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) ok(Number(m[1]));
    });
    child.once('exit', (code) => fail(new Error(`web/serve.mjs exited (${code}): ${out}${stderr}`)));
  });
});
afterAll(() => child?.kill());

/**
 * One request written as is (`target` unnormalised), answered on a fresh connection; the server
 * closes it after its answer (Connection: close). With `halfClose` the client ends its side of
 * the connection as soon as the request is written, as `curl`-like clients and proxies may.
 */
function request(target, { method = 'GET', to = port, halfClose = false } = {}) {
  return new Promise((ok, fail) => {
    const socket = connect(to, '127.0.0.1', () => {
      socket.write(`${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      if (halfClose) socket.end();
    });
    const chunks = [];
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', fail);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      ok({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

/** The server still answers a good request (it did not stop). */
async function stillServing() {
  expect(child.exitCode).toBe(null);
  const r = await request('/web/index.html');
  expect(r.status).toBe(200);
  expect(r.headers['content-type']).toBe('text/html; charset=utf-8');
}

describe('requests it cannot read are a 400 and it keeps serving', () => {
  for (const target of ['/%', '/%E0%A4%A', '/web/%ZZ', '/web%0D%0ASet-Cookie:%20x=1', '/web/app%0D%0A/', '/web/%00index.html', '/web/%5Cindex.html']) {
    it(target, async () => {
      const r = await request(target);
      expect(r.status).toBe(400);
      expect(r.headers['set-cookie']).toBeUndefined();
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      await stillServing();
    });
  }

  it('a target that is not a path (//, *, an absolute URL)', async () => {
    expect((await request('//')).status).toBe(302);
    expect((await request('//')).headers.location).toBe('/web/index.html');
    expect((await request('*')).status).toBe(400);
    expect((await request('http://evil.example/web/index.html')).status).toBe(400);
    await stillServing();
  });
});

describe('redirects point at its own paths only', () => {
  it('"/" keeps the query; a folder goes to its index.html', async () => {
    expect(await request('/?s=we%20can%20eat%20bread&step=2')).toMatchObject({ status: 302, headers: { location: '/web/index.html?s=we%20can%20eat%20bread&step=2' } });
    expect((await request('/web')).headers.location).toBe('/web/index.html');
    expect((await request('/web/')).headers.location).toBe('/web/index.html');
    expect((await request('/models/')).status).toBe(404);  // no index.html there
  });

  for (const target of ['/%2F%2Fevil.com%2F..%2Fweb', '//evil.com/../web', '/%2F%2Fevil.com/%2E%2E/web/', '/web/%2e%2e/web', '///evil.com/..%2Fweb']) {
    it(target, async () => {
      const r = await request(target);
      expect(r.status).toBe(302);
      expect(r.headers.location).toBe('/web/index.html');
    });
  }
  it('a query cannot add a header', async () => {
    const r = await request('/?a=%0D%0ASet-Cookie:x');
    expect(r.headers.location).toBe('/web/index.html?a=%0D%0ASet-Cookie:x');
    expect(r.headers['set-cookie']).toBeUndefined();
  });
});

describe('what it serves', () => {
  it('the page, the widget, the engine\'s JS API and the models', async () => {
    for (const [target, type] of [
      ['/web/index.html', 'text/html; charset=utf-8'],
      ['/web/widget/attn-scope.js', 'text/javascript; charset=utf-8'],
      ['/web/attnscope.js', 'text/javascript; charset=utf-8'],
      ['/web/models.js', 'text/javascript; charset=utf-8'],
      ['/web/data/toy-en-de.csv', 'text/csv; charset=utf-8'],
      ['/models/toy-en-de.safetensors', 'application/octet-stream'],
      ['/models/analysis/multi30k-en-de.heads.json', 'application/json'],
    ]) {
      const r = await request(target);
      expect([target, r.status, r.headers['content-type']]).toEqual([target, 200, type]);
    }
  });

  it('nothing else of the repository', async () => {
    for (const target of ['/.git/HEAD', '/.git/config', '/.ci/run', '/.gitignore', '/build/native/CMakeCache.txt',
      '/build/native/third_party_include/nlohmann/json.hpp', '/node_modules/vitest/package.json', '/src/core/json.h',
      '/package.json', '/README.md', '/tests/run.sh', '/models/train.py', '/models/README.md', '/web/../package.json',
      '/web/%2e%2e/package.json', '/web/..%2F.git%2FHEAD', '/web/.hidden.js', '/tests/models/toy-en-de.frozen.safetensors']) {
      const r = await request(target);
      expect([target, r.status]).toEqual([target, 404]);
    }
    await stillServing();
  });

  it('the whole answer to a client that half-closes after its request', async () => {
    for (const target of ['/web/index.html', '/web/attnscope.js', '/models/toy-en-de.safetensors']) {
      const r = await request(target, { halfClose: true });
      const file = readFileSync(join(root, target));
      expect([target, r.status, Number(r.headers['content-length'])]).toEqual([target, 200, file.length]);
      expect(Buffer.from(r.body, 'latin1').equals(file), target).toBe(true);
    }
    expect((await request('/web/no-such.js', { halfClose: true })).status).toBe(404);
    await stillServing();
  });

  it('GET and HEAD only', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const r = await request('/web/index.html', { method });
      expect([method, r.status, r.headers.allow]).toEqual([method, 405, 'GET, HEAD']);
    }
    const head = await request('/models/toy-en-de.safetensors', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000);
    expect(head.body).toBe('');
  });

  it('CORS on what an embed on another origin fetches (and on a 404 it must read), not on the pages', async () => {
    for (const target of ['/web/widget/attn-scope.js', '/web/attnscope.js', '/models/toy-en-de.safetensors', '/models/no-such.safetensors']) {
      expect([target, (await request(target)).headers['access-control-allow-origin']]).toEqual([target, '*']);
    }
    expect((await request('/web/index.html')).headers['access-control-allow-origin']).toBeUndefined();
  });
});

// What the pages load from web/, found by following them: index.html and blog.html (their
// scripts and styles), the service worker's list of files to keep offline, and the package's
// browser entries (the API and the one-file widget); from each script, its imports and the files
// it names by `new URL('…', import.meta.url)`. Type declarations, build recipes and the server
// itself are none of these.
function loadedByThePages() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = ['web/index.html', 'web/blog.html', 'web/sw.js',
    ...Object.values(pkg.exports).map((e) => e.default).filter((f) => /^\.\/web\/.*\.js$/.test(f ?? '')).map((f) => f.slice(2))];
  const loaded = new Set();
  const queue = [...entries];
  const refer = (from, spec) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(spec) || spec.startsWith('#') || spec.includes('${')) return; // another origin, data:, node:, a fragment, a computed name
    if (!spec.startsWith('.') && !spec.startsWith('/')) return; // a bare package name: not a file of this server
    const rel = spec.startsWith('/') ? spec.slice(1) : posix.join(dirname(from), spec);
    queue.push(posix.normalize(rel.split(/[?#]/)[0]));
  };
  while (queue.length) {
    const file = queue.pop();
    if (loaded.has(file) || !file.startsWith('web/') || !existsSync(join(root, file))) continue;
    loaded.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    if (file.endsWith('.html')) {
      for (const [, spec] of text.matchAll(/\b(?:src|href)="([^"]+)"/g)) refer(file, spec);
    } else if (file.endsWith('.js')) {
      for (const re of [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])([^'"]+)\1/g, /\bimport\s*\(?\s*(['"])([^'"]+)\1/g,
        /new URL\(\s*(['"`])([^'"`]+)\1\s*,\s*import\.meta\.url/g]) {
        for (const [, , spec] of text.matchAll(re)) refer(file, spec);
      }
      // The service worker's SHELL: paths relative to its own folder.
      const shell = /const SHELL = \[([^\]]*)\]/.exec(text);
      if (shell) for (const [, spec] of shell[1].matchAll(/'([^']+)'/g)) refer(file, `./${spec}`);
    }
  }
  return loaded;
}

/** Every file under web/ (no dotfiles), as repository paths. */
function webFiles(dir = 'web') {
  return readdirSync(join(root, dir)).filter((name) => !name.startsWith('.')).flatMap((name) => {
    const rel = `${dir}/${name}`;
    return statSync(join(root, rel)).isDirectory() ? webFiles(rel) : [rel];
  });
}

describe('what the pages load, and nothing else of web/', () => {
  it('the server and the build recipes are not served', async () => {
    for (const target of ['/web/serve.mjs', '/web/build-page.mjs', '/web/build-widget.mjs', '/web/build-wasm.sh', '/web/attnscope.d.ts']) {
      expect([target, (await request(target)).status]).toEqual([target, 404]);
    }
  });

  it('every file of web/ is served exactly when a page, the widget or a worker loads it', async () => {
    const loaded = loadedByThePages();
    // The following found the pages' own modules, the engine and the offline list (a scan that
    // found nothing would make this test pass for any server).
    for (const file of ['web/app/main.js', 'web/app/panels/open-model.js', 'web/widget/attn-scope.js', 'web/app/worker/worker.js',
      'web/attnscope.js', 'web/model-header.js', 'web/models.js', 'web/package-files.js', 'web/app/app.css', 'web/data/toy-en-de.csv']) {
      expect(loaded.has(file), file).toBe(true);
    }
    const wrong = [];
    for (const file of webFiles()) {
      const { status } = await request(`/${file}`);
      if ((status === 200) !== loaded.has(file)) wrong.push(`${file}: ${status} but ${loaded.has(file) ? '' : 'not '}loaded by the pages`);
    }
    expect(wrong).toEqual([]);
  });
});

// A link inside a served folder may not lead out of it: to a file outside the repository or to
// one elsewhere in it. Made under tests/artifacts/ (gitignored) and served by an in-process
// server whose one folder it is.
describe('links', () => {
  const folder = 'tests/artifacts/serve-links';
  let outside;
  let server;
  beforeAll(async () => {
    rmSync(join(root, folder), { recursive: true, force: true });
    mkdirSync(join(root, folder), { recursive: true });
    outside = mkdtempSync(join(tmpdir(), 'attnscope-serve-'));
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    writeFileSync(join(root, folder, 'inside.txt'), 'inside');
    symlinkSync(join(outside, 'secret.txt'), join(root, folder, 'outside.txt'));
    symlinkSync(join(root, 'package.json'), join(root, folder, 'repository.txt'));
    symlinkSync(outside, join(root, folder, 'dir'));
    server = await serve({ port: 0, folders: [{ folder, extensions: ['.txt'] }] });
  });
  afterAll(async () => {
    server?.closeAllConnections?.();
    await new Promise((ok) => (server ? server.close(ok) : ok()));
    rmSync(join(root, folder), { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('are not followed out of the served folder', async () => {
    const to = server.address().port;
    expect((await request(`/${folder}/inside.txt`, { to })).body).toBe('inside');
    for (const name of ['outside.txt', 'repository.txt', 'dir/secret.txt']) {
      const r = await request(`/${folder}/${name}`, { to });
      expect([name, r.status, r.body]).toEqual([name, 404, `not found: /${folder}/${name}\n`]);
    }
  });
});
