// The package as npm publishes it, for the tests that check what ships (package-lint, the CDN
// embed in tests/browser/cdn.test.js): builds the one-tag widget (web/build-widget.mjs) and packs
// the working tree without the prepack script (npm test has just built web/wasm/; the full
// `npm pack` with its prepack is tests/js/package.test.js). `packed()` unpacks it too.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

/** {dir, tarball (its path), unpacked (the package's root folder)}; the widget's build log. */
export function packed() {
  if (!existsSync(join(root, 'web/wasm/attnscope-wasm.wasm'))) throw new Error('web/wasm/ is missing: run npm test (or bash web/build-wasm.sh)');
  const buildLog = execFileSync(process.execPath, ['web/build-widget.mjs'], { cwd: root, encoding: 'utf8' });
  const dir = mkdtempSync(join(tmpdir(), 'attnscope-packed-'));
  execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const name = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!name) throw new Error(`npm pack wrote no tarball into ${dir}`);
  const tarball = join(dir, name);
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  return { dir, tarball, unpacked: join(dir, 'package'), buildLog };
}
