// The demo page asks for every module of its import graph at once (web/index.html's
// <link rel="modulepreload"> list, issue 20's cold start): the list must be that graph, no more
// and no less. A module the list misses is fetched late, level by level; one it names that the
// page no longer imports is a wasted request.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const web = join(root, 'web');

/** The static import graph from `file` (relative imports: `import … from './x.js'`, `import './x.js'`). */
function graph(file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  for (const m of code.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gms)) {
    graph(resolve(dirname(file), m[1] ?? m[2]), seen);
  }
  return seen;
}

it("index.html preloads exactly main.js's import graph, and starts the engine before it", () => {
  const html = readFileSync(join(web, 'index.html'), 'utf8');
  const preloaded = [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((m) => m[1]);
  const imported = [...graph(join(web, 'app/main.js'))].map((f) => relative(web, f)).filter((f) => f !== 'app/main.js');
  expect(imported.length).toBeGreaterThan(30); // the parser found the graph (a broken regex finds nothing)
  expect(imported).toContain('app/heatmap.js');
  expect([...preloaded].sort()).toEqual([...imported].sort());
  expect(new Set(preloaded).size).toBe(preloaded.length);
  // The early, async module that starts the worker comes before main.js.
  const early = html.indexOf('<script type="module" src="app/start-engine.js" async>');
  expect(early).toBeGreaterThan(0);
  expect(early).toBeLessThan(html.indexOf('<script type="module" src="app/main.js">'));
});
