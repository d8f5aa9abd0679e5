// Every figure an Analyses pane exports (CSV, JSON and SVG; the PNG is the SVG drawn) carries the
// heading the reader sees it under in that pane: a heading shown above it in the pane, else the
// pane's own title (its tab's label). Never a heading of another pane, hidden with it.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idle, openPage, startBrowser } from './browser.js';
import { parseCsv } from './csv.js';

let env;
beforeAll(async () => { env = await startBrowser(); });
afterAll(async () => { await env?.close(); });

async function exported(page, format) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`[data-export=analysis][data-format=${format}]`)]);
  return readFileSync(await d.path(), 'utf8');
}

/** What the reader sees of the pane: its tab's label and the headings shown in it, each with the canvases that follow it. */
const visibleHeadings = (page, an) => page.evaluate((an) => {
  const pane = document.querySelector(`#analyses .an-pane[data-an="${an}"]`);
  const title = document.querySelector(`#an-tab-${an}`).textContent.trim();
  const headings = [...pane.querySelectorAll('h3, h4, figcaption')].filter((h) => h.checkVisibility()).map((h) => h.textContent.replace(/\s+/g, ' ').trim());
  // The heading each drawn map sits under: the last one shown above it in the pane, else the title.
  const under = [...pane.querySelectorAll('canvas')].filter((c) => c.checkVisibility()).map((c) => {
    let last = title;
    for (const h of pane.querySelectorAll('h3, h4, figcaption')) {
      if (h.checkVisibility() && (h.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)) last = h.textContent.replace(/\s+/g, ' ').trim();
    }
    return last;
  });
  return { title, headings, under };
}, an);

const PANES = {
  rollout: { wait: '#rollout-body canvas', title: 'Attention rollout' },
  vectors: { wait: '#pca-body svg', title: 'Vectors' },
  importance: { wait: '#pre-results canvas', title: 'Head importance' },
  timeline: { wait: '#an-timeline canvas', title: 'Training timeline' },
};

it.each(Object.entries(PANES))('exports the %s pane\'s figures under the headings shown with them', async (an, { wait, title }) => {
  const { page, errors } = await openPage(env, `/web/index.html?model=multi30k-en-de&step=3&an=${an}`, { acceptDownloads: true });
  await page.locator(wait).first().waitFor({ timeout: 60_000 });
  await idle(page);
  const seen = await visibleHeadings(page, an);
  expect(seen.title).toBe(title);
  const allowed = new Set([seen.title, ...seen.headings]);

  // JSON: each map named by the heading it is drawn under, in order.
  const json = JSON.parse(await exported(page, 'json'));
  expect(json.maps.map((m) => m.heading)).toEqual(seen.under);
  // CSV: the same heading on every row of a map.
  const csv = parseCsv(await exported(page, 'csv'));
  const col = csv[0].indexOf('heading');
  expect(col).toBeGreaterThanOrEqual(0);
  for (const h of new Set(csv.slice(1).map((r) => r[col]))) expect(allowed.has(h), `${an}: CSV heading “${h}”`).toBe(true);
  expect([...new Set(csv.slice(1).map((r) => r[col]))]).toEqual([...new Set(seen.under)]);
  // SVG: the headings written above the figures (13 px bold lines) are headings the pane shows.
  const svg = await exported(page, 'svg');
  const captions = [...svg.matchAll(/<text [^>]*font-size="13" font-weight="600"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"'));
  expect(captions.length, an).toBeGreaterThan(0);
  for (const c of captions) expect(allowed.has(c), `${an}: SVG caption “${c}”`).toBe(true);
  if (an === 'rollout' || an === 'timeline') expect(captions).toEqual([title]);
  expect(errors).toEqual([]);
  await page.close();
});
