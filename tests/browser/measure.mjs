// Measures the demo page in headless Chromium: what its first load downloads (raw and gzip -9)
// and the time to its first heatmap (the page's own performance mark 'attnscope:first-heatmap',
// from navigation start), over several cold loads (a fresh browser context each).
//   node tests/browser/measure.mjs [runs=7] [path=/web/index.html]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { root, startBrowser } from './browser.js';

const runs = Number(process.argv[2] ?? 7);
const path = process.argv[3] ?? '/web/index.html';
const env = await startBrowser();
const times = [];
let files = null;
try {
  for (let i = 0; i < runs; i++) {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
    const page = await context.newPage();
    const fetched = new Set();
    page.on('request', (r) => { if (r.method() === 'GET' && r.url().startsWith(env.url('/'))) fetched.add(new URL(r.url()).pathname); });
    await page.goto(env.url(path));
    await page.waitForFunction(() => performance.getEntriesByName('attnscope:first-heatmap').length > 0, null, { timeout: 60_000 });
    times.push(await page.evaluate(() => performance.getEntriesByName('attnscope:first-heatmap')[0].startTime));
    files ??= [...fetched].filter((p) => !p.includes('?'));
    await context.close();
  }
} finally {
  await env.close();
}

const rows = files.map((p) => {
  const bytes = readFileSync(join(root, p));
  return { file: p, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
});
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const sum = (list, k) => list.reduce((t, r) => t + r[k], 0);
const code = rows.filter((r) => /\.(html|js|mjs|css|wasm)$/.test(r.file));
const data = rows.filter((r) => !code.includes(r));
for (const r of rows) console.log(`${r.file.padEnd(48)} ${kib(r.raw).padStart(11)} ${kib(r.gzip).padStart(11)} gzip`);
console.log(`HTML+CSS+JS+WASM (${code.length} files): ${kib(sum(code, 'raw'))} raw, ${kib(sum(code, 'gzip'))} gzip`);
if (data.length) console.log(`model data: ${kib(sum(data, 'raw'))} raw, ${kib(sum(data, 'gzip'))} gzip`);
const sorted = [...times].sort((a, b) => a - b);
console.log(`time to first heatmap over ${runs} cold loads: median ${sorted[Math.floor(runs / 2)].toFixed(0)} ms, `
  + `min ${sorted[0].toFixed(0)} ms, max ${sorted.at(-1).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`);
