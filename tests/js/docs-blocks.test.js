// Every fenced code block of README.md and docs/*.md either runs in a test or says it is a
// fragment. The block's marker — the `<!-- … -->` comment on the line before it — names who runs it:
//
//   <!-- example:js -->        tests/js/package.test.js runs it in a project that installed `npm pack`'s tarball
//   <!-- example:install -->   tests/js/package.test.js: the install commands it runs (npm pack, npm install of the tarball)
//   <!-- embed:cdn -->, <!-- embed:csp -->   tests/browser/cdn.test.js: the one-tag embed from a (local) CDN, under that CSP
//   <!-- embed:cross-origin --> tests/browser/cross-origin.test.js: the widget from `npm start`'s server on another origin
//   <!-- example: PATH -->     the block is the file PATH as it is (checked here); the examples/ apps are built
//                              and opened by tests/browser/frameworks.test.js
//   <!-- excerpt: PATH -->     every line of the block is a line of PATH (checked here)
//   <!-- cli -->               run here with bash from a scratch folder that sees the repository's build/, models/
//                              and tests/ (so files a command writes stay out of the checkout); must exit 0
//   <!-- npm -->               each line is `npm start`, `npm test` or `npm run X` of a script package.json has
//   <!-- fragment -->          not run: a shape, a command that needs data or tools outside the repository, or one
//                              that another marker's test runs under its own name
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allCodeBlocks, docBlock, root } from './doc-blocks.js';

/** Markers whose blocks another test file reads: that file must name the marker. */
const ELSEWHERE = [
  [/^example:js$/, 'tests/js/package.test.js'],
  [/^example:install$/, 'tests/js/package.test.js'],
  [/^embed:(cdn|csp)$/, 'tests/browser/cdn.test.js'],
  [/^embed:cross-origin$/, 'tests/browser/cross-origin.test.js'],
];
/** Markers this file checks or runs itself. */
const HERE = [/^example: \S+$/, /^excerpt: \S+$/, /^cli$/, /^npm$/, /^fragment$/];

const blocks = allCodeBlocks();
const where = (b) => `${b.file}:${b.line}`;

it('finds the documentation\'s code blocks', () => {
  expect(blocks.length).toBeGreaterThan(20);
  for (const f of ['README.md', 'docs/cli.md', 'docs/js-api.md', 'docs/embed.md']) expect(blocks.some((b) => b.file === f), f).toBe(true);
});

it('every code block carries a marker that a test consumes (or <!-- fragment -->)', () => {
  const bad = [];
  for (const b of blocks) {
    if (b.marker === null) { bad.push(`${where(b)}: no <!-- marker --> before the block`); continue; }
    const elsewhere = ELSEWHERE.find(([re]) => re.test(b.marker));
    if (elsewhere) {
      const consumer = readFileSync(join(root, elsewhere[1]), 'utf8');
      if (!consumer.includes(`'${b.marker}'`)) bad.push(`${where(b)}: <!-- ${b.marker} --> but ${elsewhere[1]} does not read '${b.marker}'`);
      continue;
    }
    if (!HERE.some((re) => re.test(b.marker))) bad.push(`${where(b)}: <!-- ${b.marker} --> is no marker any test consumes`);
  }
  expect(bad).toEqual([]);
});

it('blocks shown in several places under one marker are the same text', () => {
  for (const marker of new Set(blocks.map((b) => b.marker).filter((m) => /^(embed:|example:install$)/.test(m ?? '')))) {
    expect(() => docBlock(marker), marker).not.toThrow();
  }
});

it('<!-- example: PATH --> blocks are the files as they are', () => {
  const shown = blocks.filter((b) => /^example: /.test(b.marker ?? ''));
  expect(shown.length).toBeGreaterThan(0);
  for (const b of shown) {
    const path = b.marker.slice('example: '.length);
    expect(existsSync(join(root, path)), `${where(b)}: ${path} exists`).toBe(true);
    expect(b.code, where(b)).toBe(readFileSync(join(root, path), 'utf8'));
  }
});

it('<!-- excerpt: PATH --> blocks are lines of the file', () => {
  for (const b of blocks.filter((x) => /^excerpt: /.test(x.marker ?? ''))) {
    const path = b.marker.slice('excerpt: '.length);
    const lines = new Set(readFileSync(join(root, path), 'utf8').split('\n').map((l) => l.trim()));
    for (const line of b.code.split('\n').map((l) => l.trim()).filter(Boolean)) expect(lines.has(line), `${where(b)}: ${line}`).toBe(true);
  }
});

it('<!-- npm --> blocks name scripts package.json has', () => {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const shown = blocks.filter((b) => b.marker === 'npm');
  expect(shown.length).toBeGreaterThan(0);
  for (const b of shown) {
    for (const line of b.code.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean)) {
      const m = line.match(/^npm (?:run ([\w:-]+)|(start|test))(?: -- .*)?$/);
      expect(m, `${where(b)}: "${line}" is npm start, npm test or npm run SCRIPT`).toBeTruthy();
      expect(scripts, `${where(b)}: ${line}`).toHaveProperty(m[1] ?? m[2]);
    }
  }
});

describe('<!-- cli --> blocks run as printed', () => {
  const cliBlocks = blocks.filter((b) => b.marker === 'cli');
  it('there are some, and the CLI is built', () => {
    expect(cliBlocks.length).toBeGreaterThan(3);
    expect(existsSync(join(root, 'build/native/attnscope-cli')), 'build/native/attnscope-cli (npm test builds it first)').toBe(true);
  });
  for (const b of cliBlocks) {
    it(`${where(b)}`, () => {
      // A scratch folder that sees the checkout's build/, models/ and tests/: the commands run as
      // from the repository root, and the files they write (a trained model, say) land here.
      const dir = mkdtempSync(join(tmpdir(), 'attnscope-docs-cli-'));
      for (const name of ['build', 'models', 'tests', 'web']) symlinkSync(join(root, name), join(dir, name));
      let out;
      try {
        out = execFileSync('bash', ['-eo', 'pipefail', '-c', b.code], { cwd: dir, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (e) {
        throw new Error(`${where(b)} exited with ${e.status}\n${b.code}\nstderr:\n${e.stderr}`);
      }
      expect(out.trim().length, `${where(b)} printed something`).toBeGreaterThan(0);
    });
  }
});
