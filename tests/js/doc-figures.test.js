// The sizes docs/embed.md states for the widget's first load are the build's: each file gzipped
// at level 9, as web/build-widget.mjs prints them (it builds web/widget.js and web/worker.js;
// web/build-wasm.sh the engine). The JavaScript is stated to the nearest KiB, the engine, the
// model and the sum to the nearest 10 KiB: a stated figure may be off by half that step.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const FILES = {
  widget: 'web/widget.js',
  worker: 'web/worker.js',
  engine: 'web/wasm/attnscope-wasm.wasm',
  model: 'models/toy-en-de.safetensors',
};
const KiB = 1024;

/** The paragraph of docs/embed.md's "Size" section that states the figures. */
function statedSizes() {
  const doc = readFileSync(join(root, 'docs/embed.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Size'));
  const figure = (re) => {
    const m = section.replace(/\s+/g, ' ').match(re);
    expect(m, `docs/embed.md "Size" states ${re}`).toBeTruthy();
    return Number(m[1]);
  };
  return {
    js: figure(/about (\d+) KiB of JavaScript/),
    widget: figure(/`widget\.js` about (\d+) KiB/),
    worker: figure(/`worker\.js` about (\d+) KiB/),
    engine: figure(/the engine about (\d+) KiB/),
    model: figure(/the toy model about (\d+) KiB/),
    total: figure(/about (\d+) KiB in all/),
  };
}

it('states the widget\'s first load as the build has it (gzip -9 of each file)', () => {
  for (const f of Object.values(FILES)) {
    expect(existsSync(join(root, f)), `${f}: run web/build-wasm.sh and node web/build-widget.mjs first`).toBe(true);
  }
  const gz = Object.fromEntries(Object.entries(FILES).map(([k, f]) => [k, gzipSync(readFileSync(join(root, f)), { level: 9 }).length / KiB]));
  const actual = { ...gz, js: gz.widget + gz.worker, total: gz.widget + gz.worker + gz.engine + gz.model };
  const stated = statedSizes();
  const step = { js: 1, widget: 1, worker: 1, engine: 10, model: 10, total: 10 };
  for (const k of Object.keys(step)) {
    expect(Math.abs(stated[k] - actual[k]), `${k}: docs/embed.md says about ${stated[k]} KiB, the build is ${actual[k].toFixed(1)} KiB`).toBeLessThanOrEqual(step[k] / 2);
  }
});
