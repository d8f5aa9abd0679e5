// What a web developer does: `npm pack`, install the tarball into a fresh project, paste the
// README's example, run it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { root } from './helpers.js';

function readmeExample() {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const match = readme.match(/<!-- example:js -->\s*```js\n([\s\S]*?)```/);
  if (!match) throw new Error('README.md has no <!-- example:js --> code block');
  return match[1];
}

it('npm pack produces a package that installs and translates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-pack-'));
  const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  npm(['pack', '--pack-destination', dir], root);
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  expect(tarball).toMatch(/^attnscope-.*\.tgz$/);

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
  writeFileSync(join(app, 'example.mjs'), readmeExample());
  const out = execFileSync('node', ['example.mjs'], { cwd: app, encoding: 'utf8' });
  expect(out).toContain('ich konnen apfel essen');
});
