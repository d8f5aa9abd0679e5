// The <attn-scope> widget on the sample blog post (web/blog.html): two widgets inside prose,
// each with a heatmap, sharing one worker, one WebAssembly module and one copy of the model.
import { expect, it } from 'vitest';
import { TEST_FOLDERS, serve } from '../../web/serve.mjs';
import { FROZEN_TOY, hoverCell, idle, openPage, screenshot, watchErrors } from './browser.js';
import { browserWithModel } from './with-model.js';

const t = browserWithModel(FROZEN_TOY);

const finished = (page, id) => page.waitForFunction((sel) => document.querySelector(sel)?.snapshot?.done === true, `#${id}`, { timeout: 30_000 });

it('renders the two widgets of the blog post, each with a heatmap, from one worker and one model copy', async () => {
  const page = await t.env.browser.newPage({ viewport: { width: 900, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await page.goto(t.env.url('/web/blog.html'));
  await finished(page, 'first');
  await finished(page, 'second');

  const widgets = page.locator('article attn-scope');
  expect(await widgets.count()).toBe(2);
  for (const [id, sentence] of [['first', 'i can eat apple'], ['second', 'we want to read book']]) {
    const s = t.model.translate(sentence);
    s.run();
    const w = page.locator(`#${id}`);
    // The heatmap lives in the widget's shadow root (Playwright's CSS selectors pierce it).
    expect(await page.evaluate((sel) => !!document.querySelector(sel).shadowRoot.querySelector('canvas'), `#${id}`)).toBe(true);
    const canvas = w.locator('canvas');
    const grid = JSON.parse(await canvas.getAttribute('data-grid'));
    expect([grid.rows, grid.cols]).toEqual([s.steps, s.source.ids.length]);
    expect(await w.locator('.sentence b').textContent()).toBe(s.translation);
    expect(await w.locator('.title').textContent()).toMatch(/^Cross-attention · layer 1\/1 · head 1\/1/);
    // Hover values are the engine's.
    const expected = s.crossAttention(3, { layer: 0, head: 0 }).data;
    for (let col = 0; col < grid.cols; col++) {
      await hoverCell(page, canvas, 3, col);
      await expect.poll(() => w.locator('.hm-tip').getAttribute('data-col')).toBe(String(col));
      expect(Number(await w.locator('.hm-tip').getAttribute('data-value'))).toBe(expected[col]);
    }
    s.dispose();
  }
  await page.mouse.move(0, 0);
  await screenshot(page, 'blog-widgets');

  // Shared: one worker, one .wasm download, one model download for two widgets.
  expect(page.workers()).toHaveLength(1);
  expect(fetched.filter((p) => p.endsWith('.wasm'))).toHaveLength(1);
  expect(fetched.filter((p) => p.endsWith('toy-en-de.safetensors'))).toHaveLength(1);
  // (A string, so that Vitest leaves the page's dynamic import alone.)
  const stats = await page.evaluate("import('/web/app/worker/client.js').then((m) => m.getEngine().request('stats'))");
  expect(stats.models).toHaveLength(1);
  expect(stats.sessions).toBe(2);

  // Each widget steps on its own.
  await page.locator('#first .prev').click();
  await page.waitForFunction(() => document.querySelector('#first').snapshot.steps === 4);
  expect(await page.evaluate(() => document.querySelector('#second').snapshot.steps)).toBe(5);
  const grid = JSON.parse(await page.locator('#first canvas').getAttribute('data-grid'));
  expect(grid.rows).toBe(4);

  // Attributes drive it: another view, and a sentence change re-translates.
  await page.evaluate(() => document.querySelector('#second').setAttribute('view', 'encoder'));
  await expect.poll(() => page.locator('#second .title').textContent()).toMatch(/^Encoder self-attention/);
  expect(JSON.parse(await page.locator('#second canvas').getAttribute('data-grid')).rows).toBe(6);
  await page.evaluate(() => document.querySelector('#second').setAttribute('src', 'we can eat bread'));
  await page.waitForFunction(() => document.querySelector('#second').snapshot.source.pieces.includes('bread'));
  expect(await page.locator('#second .sentence b').textContent()).toBe('wir konnen brot essen');
  // The link opens the full page on the same view.
  const href = await page.locator('#first a.open').getAttribute('href');
  expect(new URL(href).searchParams.get('s')).toBe('i can eat apple');
  expect(new URL(href).searchParams.get('step')).toBe('4');
  expect(errors).toEqual([]);
  await page.close();
});

it('applies an interventions attribute, and shows bad JSON and engine refusals inside the widget', async () => {
  const page = await t.env.browser.newPage({ viewport: { width: 900, height: 1100 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(t.env.url('/tests/browser/fixtures/widget-interventions.html'));
  const errorOf = (id) => page.locator(`#${id} .error`);
  await finished(page, 'copy');
  await page.waitForFunction(() => ['bad-json', 'refused'].every((id) => !document.querySelector(`#${id}`).shadowRoot.querySelector('.error').hidden), null, { timeout: 30_000 });

  // {"copySourceEncoding": true}: the engine's broken translation, said to be a modified model.
  const copied = t.model.translate('i can eat apple', { interventions: { copySourceEncoding: true } });
  copied.run();
  expect(copied.translation).toBe('ich konnen brot essen');
  expect(await page.locator('#copy .sentence b').textContent()).toBe(copied.translation);
  expect(await page.locator('#copy .modified').textContent()).toBe('Modified model: source encoding copied into the decoder (cross-attention outputs the encoder mean)');
  expect(new URL(await page.locator('#copy a.open').getAttribute('href')).searchParams.get('copysrc')).toBe('1');
  copied.dispose();

  // Bad JSON and an option the engine refuses: said in the widget, nothing thrown at the page.
  expect(await errorOf('bad-json').textContent()).toMatch(/^the interventions attribute is not valid JSON \(/);
  let refusal = '';
  try {
    t.model.translate('i can eat apple', { interventions: { skip: ['everything'] } });
  } catch (e) {
    refusal = e.message;
  }
  expect(refusal).not.toBe('');
  expect(await errorOf('refused').textContent()).toBe(refusal);
  expect(await page.evaluate(() => document.querySelector('#refused').snapshot)).toBeNull();
  await page.mouse.move(0, 0);
  await screenshot(page, 'widget-interventions');

  // Fixed by an attribute change: the engine's weights ("uniform": 1/5 everywhere).
  await page.evaluate(() => document.querySelector('#refused').setAttribute('interventions', '{"attention": [{"site": "cross", "pattern": "uniform"}]}'));
  await finished(page, 'refused');
  expect(await errorOf('refused').isHidden()).toBe(true);
  const uniform = t.model.translate('i can eat apple', { interventions: { attention: [{ site: 'cross', pattern: 'uniform' }] } });
  uniform.run();
  expect(await page.locator('#refused .sentence b').textContent()).toBe(uniform.translation);
  const canvas = page.locator('#refused canvas');
  await hoverCell(page, canvas, 1, 2);
  await expect.poll(() => page.locator('#refused .hm-tip').getAttribute('data-col')).toBe('2');
  expect(Number(await page.locator('#refused .hm-tip').getAttribute('data-value'))).toBe(uniform.crossAttention(1, { layer: 0, head: 0 }).data[2]);
  uniform.dispose();

  // Removing the attribute gives the trained model back.
  await page.evaluate(() => document.querySelector('#copy').removeAttribute('interventions'));
  await page.waitForFunction(() => document.querySelector('#copy').snapshot?.options?.interventions === undefined && document.querySelector('#copy').snapshot.done);
  expect(await page.locator('#copy .sentence b').textContent()).toBe('ich konnen apfel essen');
  expect(await page.locator('#copy .modified').isHidden()).toBe(true);

  expect(await page.evaluate(() => window.hostErrors)).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
});

it('carries its own model file to the page through the explore link: loaded there on the same origin, on another only when the reader agrees', async () => {
  const page = await t.env.browser.newPage({ viewport: { width: 900, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.goto(t.env.url('/web/blog.html'));
  await finished(page, 'first');
  // A model file beside the post, by a relative URL, as an author writes model="my.safetensors".
  await page.evaluate(() => document.querySelector('#first').setAttribute('model', '../tests/models/toy-en-de.frozen.safetensors'));
  const file = t.env.url('/tests/models/toy-en-de.frozen.safetensors');
  await page.waitForFunction((u) => document.querySelector('#first').snapshot?.url === u && document.querySelector('#first').snapshot.done, file);
  const href = new URL(await page.locator('#first a.open').getAttribute('href'));
  expect(href.searchParams.get('model')).toBe(file);
  expect(errors).toEqual([]);
  await page.close();

  // The page opens that file (its own origin), and names it in the picker.
  const expected = t.model.translate('i can eat apple');
  expected.run();
  const opened = await openPage(t.env, href.pathname + href.search);
  expect(await opened.page.evaluate(() => window.attnscope.snapshot.url)).toBe(file);
  expect(await opened.page.locator('#model').inputValue()).toBe(file);
  expect(await opened.page.locator('#model option:checked').textContent()).toContain('toy-en-de.frozen.safetensors');
  expect(await opened.page.textContent('#translation')).toBe(expected.translation);
  expect(await opened.page.isHidden('#notice')).toBe(true);
  expect(opened.errors).toEqual([]);
  await opened.page.close();

  // The same file on another origin: nothing is fetched from there until the reader says so.
  const other = await serve({ port: 0, folders: TEST_FOLDERS });
  try {
    const elsewhere = `http://127.0.0.1:${other.address().port}/tests/models/toy-en-de.frozen.safetensors`;
    const asked = [];
    const { page: p, errors: e } = await openPage(t.env, `/web/index.html?model=${encodeURIComponent(elsewhere)}&s=i+can+eat+apple&step=end`);
    p.on('request', (r) => { if (r.url().startsWith(elsewhere)) asked.push(r.url()); });
    expect(await p.evaluate(() => window.attnscope.snapshot.url)).not.toBe(elsewhere);
    expect(await p.isVisible('#notice')).toBe(true);
    expect(await p.textContent('#notice')).toContain(`The link asks for the model file ${elsewhere}, on another site`);
    expect(asked).toEqual([]);
    await p.locator('#notice button').click();
    await p.waitForFunction((u) => window.attnscope.snapshot?.url === u, elsewhere, { timeout: 30_000 });
    await idle(p);
    expect(asked.length).toBeGreaterThan(0);
    expect(await p.locator('#model').inputValue()).toBe(elsewhere);
    expect(await p.textContent('#translation')).toBe(expected.translation);
    expect(e).toEqual([]);
    await p.close();
  } finally {
    other.closeAllConnections?.();
    await new Promise((ok) => other.close(ok));
    expected.dispose();
  }
});
