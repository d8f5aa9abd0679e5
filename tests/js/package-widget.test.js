// The package beyond the engine: the one-tag widget ships (web/widget.js + web/worker.js, built by
// web/build-widget.mjs), with its own export, types and Custom Elements Manifest; publint and
// @arethetypeswrong/cli find nothing wrong; importing the library or the widget in plain Node (as a
// server-side renderer would) touches no browser global; the widget's JS stays under 33 KiB gzip.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { AttnScope } from '../../web/widget/attn-scope.js';
import { root } from './helpers.js';
import { packed } from './pack.js';

let pack;
beforeAll(() => {
  pack = packed();
});

const bin = (name) => join(root, 'node_modules/.bin', name);
const run = (cmd, args, cwd = root) => spawnSync(cmd, args, { cwd, encoding: 'utf8' });

it('ships the widget, its worker, types and manifest, and no sources of web/app', () => {
  const listing = execFileSync('tar', ['-tzf', pack.tarball], { encoding: 'utf8' }).trim().split('\n').sort();
  expect(listing).toEqual(expect.arrayContaining(['package/web/widget.js', 'package/web/widget.d.ts', 'package/web/worker.js',
    'package/custom-elements.json', 'package/web/wasm/attnscope-wasm.wasm', 'package/models/toy-en-de.safetensors']));
  expect(listing.filter((f) => f.startsWith('package/web/app/') || f.startsWith('package/web/widget/'))).toEqual([]);
  const pkg = JSON.parse(readFileSync(join(pack.unpacked, 'package.json'), 'utf8'));
  expect(pkg.exports['./widget']).toEqual({ types: './web/widget.d.ts', default: './web/widget.js' });
  // The widget registers <attn-scope> when imported: a side effect bundlers must keep; the library has none.
  expect(pkg.sideEffects).toEqual(['./web/widget.js', './web/widget/attn-scope.js']);
  expect(pkg.customElements).toBe('custom-elements.json');
  const types = readFileSync(join(pack.unpacked, 'web/widget.d.ts'), 'utf8');
  expect(types).toMatch(/interface HTMLElementTagNameMap \{\s*'attn-scope': AttnScope;/);
});

it('publint --strict finds nothing', () => {
  const r = run(bin('publint'), ['run', pack.tarball, '--strict']);
  expect(r.stdout + r.stderr).toContain('All good!');
  expect(r.status).toBe(0);
});

it('@arethetypeswrong/cli resolves both entry points with their types (ESM-only package)', () => {
  // --profile esm-only: the package is "type": "module"; CommonJS require() and node10's
  // resolution (no exports) are not supported, and attw is told so.
  const r = run(bin('attw'), [pack.tarball, '--profile', 'esm-only', '--format', 'table-flipped']);
  const out = r.stdout + r.stderr;
  expect(r.status, out).toBe(0);
  expect(out).toMatch(/"attnscope"/);
  expect(out).toMatch(/"attnscope\/widget"/);
});

it('the Custom Elements Manifest describes the element the widget defines', () => {
  const cem = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8'));
  const [mod] = cem.modules;
  expect(mod.path).toBe('web/widget.js');
  const [decl] = mod.declarations;
  expect([decl.tagName, decl.name, decl.customElement]).toEqual(['attn-scope', 'AttnScope', true]);
  expect(decl.attributes.map((a) => a.name)).toEqual([...AttnScope.observedAttributes]);
  expect(mod.exports.find((e) => e.kind === 'custom-element-definition')).toMatchObject({ name: 'attn-scope', declaration: { name: 'AttnScope' } });
  // The parts and slot it names exist in the widget's shadow markup.
  const source = readFileSync(join(root, 'web/widget/attn-scope.js'), 'utf8');
  for (const p of decl.cssParts) expect(source).toContain(`part="${p.name}"`);
  expect(source).toContain('<slot>');
  for (const e of decl.events) expect(source).toContain(`'${e.name}'`);
});

it('imports in plain Node without touching a browser global (server-side rendering)', () => {
  const app = join(pack.dir, 'app');
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', pack.tarball], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  // Every browser global a module could reach for is a trap: reading any property of it, calling
  // or constructing it throws, and the access is recorded. (typeof still works: feature tests pass.)
  const script = `
    const touched = [];
    const NAMES = ['window', 'document', 'self', 'location', 'navigator', 'localStorage', 'sessionStorage', 'Worker', 'Blob', 'CSSStyleSheet'];
    const trap = (name) => new Proxy(function () {}, new Proxy({}, { get: (_, op) => (...a) => { touched.push(name + ':' + op + ':' + String(a[1])); throw new Error('browser global ' + name + ' touched'); } }));
    for (const n of NAMES) Object.defineProperty(globalThis, n, { value: trap(n), configurable: true, writable: true });
    const lib = await import('attnscope');
    const widget = await import('attnscope/widget');
    console.log(JSON.stringify({ touched, lib: Object.keys(lib).sort(), widget: Object.keys(widget).sort(),
      customElements: typeof customElements, HTMLElement: typeof HTMLElement }));
  `;
  const out = execFileSync('node', ['--input-type=module', '-e', script], { cwd: app, encoding: 'utf8' });
  const result = JSON.parse(out.trim().split('\n').at(-1));
  expect(result.touched).toEqual([]);
  expect(result.lib).toEqual(expect.arrayContaining(['loadModel', 'init', 'AttnscopeError']));
  expect(result.widget).toEqual(expect.arrayContaining(['AttnScope']));
  // Nothing was registered or defined on the way.
  expect([result.customElements, result.HTMLElement]).toEqual(['undefined', 'undefined']);
  // And with no browser globals at all (a bare Node), both still import.
  const bare = execFileSync('node', ['--input-type=module', '-e',
    "await import('attnscope'); const w = await import('attnscope/widget'); console.log(typeof w.AttnScope, typeof window, typeof document, typeof self);"],
  { cwd: app, encoding: 'utf8' });
  expect(bare.trim()).toBe('function undefined undefined undefined');
});

// 33 KiB: the heatmap that scrolls long maps with its labels in view, and the prompt mode of
// decoder-only models, took the widget from 28 to 31 KiB; stopping a download at its header's
// promise, reading files header first, and one piece-marker rule for every tokenizer kind took it
// from 31.6 to 32.3 KiB.
it("the widget's first load: its JavaScript stays under 33 KiB gzip (printed by web/build-widget.mjs)", () => {
  const line = pack.buildLog.match(/JavaScript ([\d.]+) KiB, everything ([\d.]+) KiB/);
  expect(line, pack.buildLog).toBeTruthy();
  const sum = [...pack.buildLog.matchAll(/\.js \([^)]*\)\s+[\d.]+ KiB ->\s+([\d.]+) KiB/g)].reduce((s, m) => s + Number(m[1]), 0);
  expect(sum).toBeCloseTo(Number(line[1]), 0);
  expect(Number(line[1])).toBeLessThan(33);
  expect(Number(line[2])).toBeGreaterThan(Number(line[1]));
});
