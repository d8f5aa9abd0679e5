// The framework examples (examples/react, vue, svelte, vite), each built with Vite's JS API from
// the package as npm packs it (`attnscope` resolves to the unpacked tarball through aliases made
// from its exports map) and opened in Chromium: the widget renders the toy model's translation,
// an attribute change (the example's "Another sentence" button) updates it, and unmounting (its
// "Hide" button) frees the widget's session in the engine (AttnScope.engineStats()). docs/embed.md
// ("Bundlers and frameworks") shows these files; a test checks it shows them as they are.
import { copyFileSync, createReadStream, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packed } from '../js/pack.js';
import { CHROMIUM_FLAGS, FROZEN_TOY, root, screenshot, watchErrors } from './browser.js';

const EXAMPLES = ['vite', 'react', 'vue', 'svelte'];
// The files docs/embed.md shows, per example.
const README_FILES = {
  vite: ['src/main.js'],
  react: ['src/App.jsx'],
  vue: ['vite.config.js', 'src/App.vue'],
  svelte: ['src/App.svelte'],
};
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.css': 'text/css' };

let out;
let server;
let origin;
let browser;

/** Vite aliases for every export of the packed package: `attnscope/widget` -> its web/widget.js. */
function aliasesOf(unpacked) {
  const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
  return Object.entries(pkg.exports)
    .filter(([key, target]) => !key.includes('*') && key !== './package.json' && (typeof target === 'string' || target.default))
    .map(([key, target]) => ({
      find: new RegExp(`^${`${pkg.name}${key.slice(1)}`.replace(/[/.]/g, '\\$&')}$`),
      replacement: join(unpacked, typeof target === 'string' ? target : target.default),
    }));
}

beforeAll(async () => {
  const { unpacked } = packed();
  // The translations asserted here are the frozen toy's (tests/browser/browser.js): the build
  // copies the package's toy model into each app, so the unpacked package gets the frozen one.
  copyFileSync(FROZEN_TOY, join(unpacked, 'models/toy-en-de.safetensors'));
  out = mkdtempSync(join(tmpdir(), 'attnscope-examples-'));
  const alias = aliasesOf(unpacked);
  for (const name of EXAMPLES) {
    const dir = join(root, 'examples', name);
    await build({
      root: dir,
      configFile: existsSync(join(dir, 'vite.config.js')) ? join(dir, 'vite.config.js') : false, // plain Vite has none
      base: `/${name}/`,
      logLevel: 'warn',
      resolve: { alias },
      build: { outDir: join(out, name), emptyOutDir: true },
    });
  }
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (path === '/favicon.ico') { res.writeHead(204).end(); return; }
    const file = normalize(join(out, path.endsWith('/') ? `${path}index.html` : path));
    let size = -1;
    try { if (file.startsWith(out + sep)) size = statSync(file).size; } catch { /* 404 */ }
    if (size < 0) { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': size });
    createReadStream(file).pipe(res);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections?.();
  await new Promise((ok) => (server ? server.close(ok) : ok()));
});

const sessions = (page) => page.evaluate(() => customElements.get('attn-scope').engineStats().then((s) => s.sessions));

/** Waits for the widget to show `target` as its finished translation. */
async function translated(page, target) {
  await page.waitForFunction((t) => {
    const w = document.querySelector('attn-scope');
    const shown = w?.shadowRoot.querySelector('.error:not([hidden]), .fallback:not([hidden])');
    if (shown) throw new Error(`the widget says: ${shown.textContent}`);
    return w?.snapshot?.done === true && w.shadowRoot.querySelector('.sentence b')?.textContent === t;
  }, target, { timeout: 30_000 });
}

describe.each(EXAMPLES)('examples/%s', (name) => {
  it('renders, updates on an attribute change and frees its session when unmounted', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 700 }, serviceWorkers: 'block' });
    const errors = watchErrors(page);
    await page.goto(`${origin}/${name}/`);
    const w = page.locator('attn-scope');
    await translated(page, 'ich konnen apfel essen');
    const grid = JSON.parse(await w.locator('canvas').getAttribute('data-grid'));
    expect([grid.rows, grid.cols]).toEqual([5, 5]);
    expect(await sessions(page)).toBe(1);
    // The bundler copied the engine and the model into the app (hashed names), and the worker found them.
    const fetched = await page.evaluate(() => performance.getEntriesByType('resource').map((r) => new URL(r.name).pathname));
    expect(fetched.filter((p) => p.startsWith(`/${name}/assets/`) && p.endsWith('.js')).length).toBeGreaterThan(0);
    const stats = await page.evaluate(() => customElements.get('attn-scope').engineStats());
    expect(stats.models).toHaveLength(1);
    expect(new URL(stats.models[0]).pathname).toMatch(new RegExp(`^/${name}/assets/toy-en-de-[\\w-]+\\.safetensors$`));

    await page.getByRole('button', { name: 'Another sentence' }).click();
    await translated(page, 'ich mochten wasser trinken');
    expect(await w.getAttribute('src')).toBe('i want to drink water');
    expect(await sessions(page)).toBe(1); // the new translation replaced the old session
    await screenshot(page, `example-${name}`);

    await page.getByRole('button', { name: 'Hide the widget' }).click();
    await page.waitForFunction(() => !document.querySelector('attn-scope'));
    await expect.poll(() => sessions(page), { timeout: 10_000 }).toBe(0);
    // Unmounted while its session is still opening: the widget closes the session when it arrives.
    await page.getByRole('button', { name: 'Show the widget' }).click();
    await page.getByRole('button', { name: 'Hide the widget' }).click();
    await page.waitForTimeout(1500); // the open request, already sent, is answered meanwhile
    expect(await sessions(page)).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});

it("the documented framework snippets (docs/embed.md) are the examples' files as they are", () => {
  const readme = readFileSync(join(root, 'docs/embed.md'), 'utf8');
  for (const [name, files] of Object.entries(README_FILES)) {
    for (const file of files) {
      const path = `examples/${name}/${file}`;
      const m = readme.match(new RegExp(`<!-- example: ${path.replace(/[/.]/g, '\\$&')} -->\\s*\`\`\`\\w+\\n([\\s\\S]*?)\`\`\``));
      expect(m, `docs/embed.md shows ${path} after <!-- example: ${path} -->`).toBeTruthy();
      expect(m[1], path).toBe(readFileSync(join(root, path), 'utf8'));
    }
  }
});
