// What a web developer does: `npm pack`, install the tarball into a fresh project, paste the
// documentation's examples (every <!-- example:js --> block of README.md and docs/*.md), run them.
// The install commands the documentation prints (<!-- example:install -->) are the ones run here.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { docBlock, docBlocks } from './doc-blocks.js';
import { root } from './helpers.js';

/** The distinct <!-- example:js --> blocks (README.md shows one that docs/js-api.md shows too). */
function docExamples() {
  const examples = [...new Set(docBlocks('example:js').map((b) => b.code))];
  if (examples.length === 0) throw new Error('README.md and docs/*.md have no <!-- example:js --> code block');
  return examples;
}

it('npm pack produces a package that installs and translates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-pack-'));
  const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  npm(['pack', '--pack-destination', dir], root);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  expect(tarball).toMatch(/^attnscope-.*\.tgz$/);
  // The documented install: npm pack in the checkout, then npm install of this very tarball.
  const install = docBlock('example:install');
  expect(install).toMatch(/^npm pack\b/m);
  expect(install).toMatch(new RegExp(`^npm install \\S*${tarball.replace(/\./g, '\\.')}(\\s|$)`, 'm'));

  const listing = execFileSync('tar', ['-tzf', join(dir, tarball)], { encoding: 'utf8' }).split('\n');
  expect(listing).toEqual(expect.arrayContaining([
    'package/web/attnscope.js', 'package/web/attnscope.d.ts', 'package/web/wasm/attnscope-wasm.js',
    'package/web/wasm/attnscope-wasm.wasm', 'package/models/toy-en-de.safetensors', 'package/package.json',
    'package/LICENSE']));
  expect(listing.filter((f) => f.startsWith('package/src/') || f.startsWith('package/tests/'))).toEqual([]);

  const app = join(dir, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  npm(['install', '--offline', '--no-audit', '--no-fund', join(dir, tarball)], app);
  const examples = docExamples();
  expect(examples.length).toBeGreaterThan(0);
  examples.forEach((code, i) => {
    writeFileSync(join(app, `example-${i}.mjs`), code);
    const out = execFileSync('node', [`example-${i}.mjs`], { cwd: app, encoding: 'utf8' });
    expect(out, `example ${i}:\n${code}`).toContain('ich konnen apfel essen');
  });
});
