// A model file the reader brings: opened by the page's file picker, dropped on the page, or named
// by ?model-url= on a second local origin that serves it with CORS. The model is the frozen toy
// under another name, with a licence, a source and a description holding markup added to its
// metadata. Its card is checked against the file's own header read here, its beam translation,
// beam tree, cross-attention and a masked head against the engine run here in Node. A file whose
// header declares tensors too big for the engine is refused with the size and the limit before
// the worker gets any byte (and a download as soon as its header has arrived, from a server that
// never sends the rest); a truncated file is the engine's clear error, naming the file. A file
// bigger than the engine's memory is refused by its size before any of it is read. A model that
// fails to load or whose download is cancelled leaves the page as it was: the picker, the URL
// and the views name and show the model they showed before. A refusal is said where the reader
// is, however far down the page they dropped the file.
import { existsSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../web/attnscope.js';
import { FROZEN_TOY, artifacts, idle, root, safetensorsHeader, screenshot, startBrowser, watchErrors } from './browser.js';

const NAME = 'my-model.safetensors';
const SENTENCE = 'i can eat apple';
const MARKUP = '<img src=x onerror="window.__injected = 1">A toy <b>model</b>';
const CONVERTED = join(root, 'tests/golden/hf/opus-mt-en-de-tiny.safetensors');

/** A safetensors file: `header` (JSON object) and the tensors' bytes after it. */
function safetensors(header, body) {
  const json = Buffer.from(JSON.stringify(header));
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, json, body]);
}

const frozen = readFileSync(FROZEN_TOY);
const { header: toyHeader, n: toyN } = safetensorsHeader(frozen);
/** The toy with a licence, a source and a description with markup in its metadata. */
const model = safetensors({
  ...toyHeader,
  __metadata__: { ...toyHeader.__metadata__, description: MARKUP, license: 'CC0-1.0', source: 'https://example.org/toy <script>' },
}, frozen.subarray(8 + toyN));
/** Its parameters, counted from its header here (every tensor's shape). */
const parameters = Object.entries(toyHeader).filter(([k]) => k !== '__metadata__')
  .reduce((sum, [, t]) => sum + t.shape.reduce((a, d) => a * d, 1), 0);
/** A header declaring one 40,000 × 20,000 F32 tensor (800 M parameters, 3.2 GB), without its bytes. */
const tooBig = safetensors({
  __metadata__: toyHeader.__metadata__, 'src_embed.weight': { dtype: 'F32', shape: [40000, 20000], data_offsets: [0, 3_200_000_000] },
}, Buffer.alloc(0));
const TOO_BIG_FILE = 8 + (tooBig.length - 8) + 3_200_000_000;

/** A real PNG image (2×2 pixels, RGB), the kind of file a reader may rename `.safetensors` by mistake. */
function png() {
  const chunk = (type, data) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])));
    return Buffer.concat([length, Buffer.from(type, 'latin1'), data, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0]); // 2×2, 8 bits, RGB
  const rows = Buffer.from([0, 255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 255, 255, 255]); // filter 0, two pixels a row
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
const PICTURE = png();
/** The PNG as the page's own server serves it (tests/artifacts/: a same-origin model-url). */
const PICTURE_PATH = '/tests/artifacts/picture.safetensors';

let env;
let other; // the second origin: serves the model files with CORS
let engineModel;
beforeAll(async () => {
  env = await startBrowser();
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(join(root, PICTURE_PATH), PICTURE);
  engineModel = await loadModel(new Uint8Array(model));
  other = createServer(async (req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'content-type': 'application/octet-stream' };
    if (req.url === `/${NAME}`) {
      // In chunks with pauses: the page's progress bar has a download to show.
      res.writeHead(200, { ...cors, 'content-length': String(model.length) });
      for (let i = 0; i < model.length; i += 64 * 1024) {
        res.write(model.subarray(i, i + 64 * 1024));
        await new Promise((ok) => setTimeout(ok, 40));
      }
      res.end();
    } else if (req.url === `/stalls/${NAME}`) {
      // Its first 64 KiB, then nothing: a download only Cancel ends.
      res.writeHead(200, { ...cors, 'content-length': String(model.length) });
      res.write(model.subarray(0, 64 * 1024));
    } else if (req.url === '/picture.safetensors') {
      res.writeHead(200, { ...cors, 'content-length': String(PICTURE.length) }).end(PICTURE);
    } else if (req.url === '/too-big.safetensors') {
      // The header, then nothing: the rest never comes, so a refusal can only come from the header.
      res.writeHead(200, { ...cors, 'content-length': String(TOO_BIG_FILE) });
      res.write(tooBig);
    } else {
      res.writeHead(404, cors).end();
    }
  });
  await new Promise((ok) => other.listen(0, '127.0.0.1', ok));
});
afterAll(async () => {
  rmSync(join(root, PICTURE_PATH), { force: true });
  engineModel?.dispose();
  other?.closeAllConnections?.();
  await new Promise((ok) => (other ? other.close(ok) : ok()));
  await env?.close();
});

const otherUrl = (path) => `http://127.0.0.1:${other.address().port}${path}`;

/**
 * A fresh page that records every message posted to a worker ({type, url, bytes: byteLength of
 * a `bytes` argument after posting (0: transferred), file: the size of a `file` argument (a File),
 * transferred: the transfer list's length})
 * and the texts the download progress showed.
 */
async function freshPage(path) {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    window.__posted = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function posted(message, transfer) {
      const result = post.call(this, message, transfer);
      window.__posted.push({ type: message?.type, url: message?.url, bytes: message?.bytes?.byteLength, file: message?.file instanceof File ? message.file.size : undefined, transferred: transfer?.length ?? 0 });
      return result;
    };
    window.__progress = [];
    document.addEventListener('DOMContentLoaded', () => {
      const box = document.querySelector('#progress');
      new MutationObserver(() => {
        if (!box.hidden) window.__progress.push(document.querySelector('#progress-text').textContent);
      }).observe(box, { attributes: true, subtree: true, childList: true, characterData: true });
    });
  });
  await page.goto(env.url(path));
  await idle(page);
  return { page, errors };
}

const settle = (page) => page.evaluate(() => window.attnscope.idle());
const modelOpened = (page, id) => page.waitForFunction((want) => window.attnscope.state.model === want && window.attnscope.snapshot?.url === want, id, { timeout: 30_000 });

/**
 * What the page names and what it shows: the picker, the page's URL, the state's model, the
 * model and translation of the views, the sentence, the model card and the word hints.
 */
const named = (page) => page.evaluate(() => ({
  picker: document.querySelector('#model').value,
  url: location.search,
  state: window.attnscope.state.model,
  views: window.attnscope.snapshot?.url ?? null,
  translation: window.attnscope.snapshot?.path.text ?? null,
  sentence: document.querySelector('#sentence').value,
  card: document.querySelector('#model-card').textContent,
  stale: document.querySelector('#app').classList.contains('stale'),
  hint: document.querySelector('#vocab-hint').hidden,
}));

/** The card's rows as {field: text}. */
const card = (page) => page.$$eval('#model-card dl > div', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.field, r.querySelector('dd').textContent])));

function expectCard(rows) {
  expect(rows).toEqual({
    name: toyHeader.__metadata__.name,
    description: MARKUP,
    licence: 'CC0-1.0',
    source: 'https://example.org/toy <script>',
    parameters: parameters.toLocaleString('en'),
    file: expect.stringContaining(`(${model.length.toLocaleString('en')} bytes)`),
  });
}

/** The engine's beam-4 run of the model on SENTENCE: translation and the beam tree at the end. */
function engineBeam(interventions) {
  const s = engineModel.translate(SENTENCE, { strategy: 'beam', beamSize: 4, nbest: 4, ...(interventions ? { interventions } : {}) });
  try {
    s.run();
    return { translation: s.translation, steps: s.steps, tree: s.beamTree().length, sourceLength: s.source.ids.length };
  } finally {
    s.dispose();
  }
}

/** Beam 4 to the end, the beam tree, the cross-attention map and a masked head, each the engine's. */
async function exerciseModel(page) {
  await page.fill('#sentence', SENTENCE);
  await page.check('input[name=mode][value=beam]');
  await page.fill('#beam', '4');
  await page.dispatchEvent('#beam', 'change');
  await settle(page);
  await page.click('#last');
  await settle(page);
  const want = engineBeam();
  let snap = await page.evaluate(() => ({ text: window.attnscope.snapshot.path.text, steps: window.attnscope.snapshot.steps, done: window.attnscope.snapshot.done }));
  expect(snap).toEqual({ text: want.translation, steps: want.steps, done: true });

  await page.click('#tab-beam');
  await settle(page);
  await expect.poll(() => page.locator('#view-body .node').count()).toBe(want.tree);

  await page.click('#tab-cross');
  await settle(page);
  const grid = JSON.parse(await page.locator('#view-body canvas').first().getAttribute('data-grid'));
  expect(grid.cols).toBe(want.sourceLength);
  expect(grid.rows).toBeGreaterThan(0);

  await page.evaluate(() => { document.querySelector('#break').open = true; });
  await page.check('input.mask[data-site=cross][data-layer="0"][data-head="0"]');
  await settle(page); // (the page translates again at the step it showed: the end)
  const masked = engineBeam({ maskHeads: [{ site: 'cross', layer: 0, head: 0 }] });
  snap = await page.evaluate(() => ({ text: window.attnscope.snapshot.path.text, done: window.attnscope.snapshot.done, iv: window.attnscope.state.iv.maskHeads }));
  expect(snap).toEqual({ text: masked.translation, done: true, iv: [{ site: 'cross', layer: 0, head: 0 }] });
  expect(masked.translation, 'the mask changes something to see').not.toBe(want.translation);
  expect(await page.locator('#modified').isVisible()).toBe(true);
}

it('the engine\'s heap limit is the one the refusal uses', async () => {
  const { WASM_MEMORY_LIMIT } = await import('../../web/model-header.js');
  const glue = readFileSync(join(root, 'web/wasm/attnscope-wasm.js'), 'utf8');
  const max = /function _emscripten_get_heap_max\(\)\{return (\d+)\}/.exec(glue);
  expect(max, 'the glue says its maximum heap').not.toBeNull();
  expect(WASM_MEMORY_LIMIT).toBe(Number(max[1]));
});

describe('a model file opened in the page', () => {
  it('opens by the file picker: its card as text, beam 4, the beam tree, cross-attention, a masked head; compare offers it; the URL says file:', async () => {
    const { page, errors } = await freshPage('/web/index.html');
    await page.setInputFiles('#open-file', { name: NAME, mimeType: 'application/octet-stream', buffer: model });
    await modelOpened(page, `file:${NAME}`);
    await settle(page);
    // The File went to the worker as a handle, none of its bytes read here: the worker streams it
    // into the engine, and its progress is shown.
    const posted = await page.evaluate(() => window.__posted.filter((m) => m.type === 'file'));
    expect(posted).toEqual([{ type: 'file', url: `file:${NAME}`, bytes: undefined, file: model.length, transferred: 0 }]);
    const total = `${(model.length / 1024).toFixed(0)} kB`;
    expect(await page.evaluate(() => window.__progress)).toContain(`Reading ${NAME}: ${total} of ${total}`);
    expectCard(await card(page));
    expect(await page.locator('#model-card img, #model-card b, #model-card script').count()).toBe(0);
    expect(await page.evaluate(() => window.__injected)).toBeUndefined();
    expect(await page.locator(`#compare option[value="file:${NAME}"]`).count()).toBe(1);
    await exerciseModel(page);
    // The compare view runs it too (unmodified: the mask is the page's model's only), to the end as the page.
    await page.selectOption('#compare', `file:${NAME}`);
    await page.evaluate(() => window.attnscope.idle());
    const other = await page.evaluate(() => window.attnscope.compare.snapshot);
    expect({ url: other?.url, done: other?.done, text: other?.path.text }).toEqual({ url: `file:${NAME}`, done: true, text: engineBeam().translation });
    expect(new URL(page.url()).searchParams.get('model')).toBe(`file:${NAME}`);
    await screenshot(page, 'open-model-file');

    // The link cannot reopen the file: the page says so, with the picker at hand, and shows the default.
    await page.reload();
    await idle(page);
    expect(await page.locator('#notice').textContent()).toMatch(new RegExp(`model file “${NAME}”.*Open the file again`));
    expect(await page.locator('#notice button').textContent()).toBe('Open a model file…');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens by a drop anywhere on the page', async () => {
    const { page, errors } = await freshPage('/web/index.html');
    await page.evaluate(({ bytes, name }) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], name));
      const target = document.querySelector('#attention');
      for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
    }, { bytes: [...model], name: NAME });
    await modelOpened(page, `file:${NAME}`);
    await settle(page);
    expectCard(await card(page));
    expect(await page.evaluate(() => window.attnscope.snapshot.steps)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.runIf(existsSync(CONVERTED))('opens a converted Hugging Face Marian file by the picker', async () => {
    const { page, errors } = await freshPage('/web/index.html');
    await page.setInputFiles('#open-file', { name: 'opus-mt-en-de-tiny.safetensors', mimeType: 'application/octet-stream', buffer: readFileSync(CONVERTED) });
    await modelOpened(page, 'file:opus-mt-en-de-tiny.safetensors');
    await settle(page);
    expect(await page.evaluate(() => window.attnscope.snapshot.steps)).toBeGreaterThan(0);
    expect(await page.locator('#model-card').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses a file whose header declares tensors too big, with the size and the limit, before the worker gets a byte', async () => {
    const { page } = await freshPage('/web/index.html');
    await page.setInputFiles('#open-file', { name: 'huge.safetensors', mimeType: 'application/octet-stream', buffer: tooBig });
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/too big/);
    const message = await page.locator('#error').textContent();
    expect(message).toContain('“huge.safetensors”');
    // 800,000,000 parameters: 2.98 GiB as f32; the limit 2 GiB.
    expect(message).toContain('800000000 parameters');
    expect(message).toContain(`its tensors ${(4 * 800_000_000 / 2 ** 30).toFixed(2)} GiB`);
    expect(message).toContain('limit of 2.00 GiB');
    expect(await page.evaluate(() => window.__posted.filter((m) => m.type === 'file' || m.bytes !== undefined || m.file !== undefined))).toEqual([]);
    expect(await page.evaluate(() => window.attnscope.state.model)).toBe('toy-en-de');
    await page.close();
  });

  it('refuses a file bigger than the engine\'s memory by its size, before reading any of it', async () => {
    // 3 GiB on disk: the toy model (a header that fits) and then zeros, a sparse file that costs
    // no disk; the picker hands Chromium its path, and Chromium reads a File only when asked to.
    const path = join(artifacts, 'three-gib.safetensors');
    writeFileSync(path, model);
    truncateSync(path, 3 * 2 ** 30);
    try {
      const { page } = await freshPage('/web/index.html');
      await page.setInputFiles('#open-file', path);
      await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/^Could not open/);
      const message = await page.locator('#error').textContent();
      expect(message).toMatch(/^Could not open the model file “three-gib\.safetensors”: .*is too big/);
      expect(message).toContain(`${(3).toFixed(2)} GiB`); // the file's own size, 3 × 2^30 bytes
      expect(message).toContain('limit of 2.00 GiB');
      // Nothing was read: no progress of reading, no byte posted to the worker.
      expect(await page.evaluate(() => window.__progress.filter((t) => t.startsWith('Reading')))).toEqual([]);
      expect(await page.evaluate(() => window.__posted.filter((m) => m.type === 'file' || m.bytes !== undefined || m.file !== undefined))).toEqual([]);
      expect(await page.evaluate(() => window.attnscope.state.model)).toBe('toy-en-de');
      await page.close();
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('refuses a file that goes on after its last tensor by its header, before reading the rest', async () => {
    // The toy model and then 1 GiB of zeros (sparse): a header that fits, a file that does not end with it.
    const path = join(artifacts, 'padded.safetensors');
    writeFileSync(path, model);
    truncateSync(path, model.length + 2 ** 30);
    try {
      const { page } = await freshPage('/web/index.html');
      await page.setInputFiles('#open-file', path);
      await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/^Could not open/);
      const message = await page.locator('#error').textContent();
      expect(message).toMatch(/^Could not open the model file “padded\.safetensors”: /);
      expect(message).toContain(`ends at byte ${model.length}`); // where the toy's last tensor ends
      expect(message).toContain(`${model.length + 2 ** 30} bytes`);
      expect(await page.evaluate(() => window.__progress.filter((t) => t.startsWith('Reading')))).toEqual([]);
      expect(await page.evaluate(() => window.__posted.filter((m) => m.type === 'file' || m.bytes !== undefined || m.file !== undefined))).toEqual([]);
      await page.close();
    } finally {
      rmSync(path, { force: true });
    }
  });

  it('says a refusal where the reader is: scrolled far down, a dropped or picked file\'s error comes into view, focused', async () => {
    const { page } = await freshPage('/web/index.html');
    const bottom = () => page.evaluate(() => { window.scrollTo(0, document.documentElement.scrollHeight); return window.scrollY; });
    const seen = () => page.evaluate(() => {
      const box = document.querySelector('#error');
      const r = box.getBoundingClientRect();
      return { inView: r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight, focused: document.activeElement === box, role: box.getAttribute('role') };
    });
    // A PNG renamed .safetensors, dropped on what is under the reader's pointer.
    expect(await bottom(), 'the error box is far above the viewport').toBeGreaterThan(1400);
    await page.evaluate((bytes) => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array(bytes)], 'picture.safetensors'));
      const target = document.elementFromPoint(window.innerWidth / 2, window.innerHeight - 100);
      for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: data }));
    }, [...PICTURE]);
    await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/^Could not open the model file “picture\.safetensors”/);
    expect(await seen()).toEqual({ inView: true, focused: true, role: 'alert' });

    // A file too big for the engine, picked with the page scrolled down again.
    expect(await bottom()).toBeGreaterThan(1400);
    await page.setInputFiles('#open-file', { name: 'huge.safetensors', mimeType: 'application/octet-stream', buffer: tooBig });
    await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/^Could not open the model file “huge\.safetensors”/);
    expect(await seen()).toEqual({ inView: true, focused: true, role: 'alert' });
    await page.close();
  });

  it('says a truncated file or header is truncated (the engine\'s words, with the file\'s name)', async () => {
    const { page } = await freshPage('/web/index.html');
    await page.setInputFiles('#open-file', { name: 'cut.safetensors', mimeType: 'application/octet-stream', buffer: model.subarray(0, model.length - 1000) });
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/^Could not open the model file “cut\.safetensors”: invalid model file: .*data_offsets \[\d+, \d+\] lie outside the \d+-byte data section \(file truncated\?\)$/);
    await page.setInputFiles('#open-file', { name: 'head.safetensors', mimeType: 'application/octet-stream', buffer: model.subarray(0, 200) });
    await expect.poll(() => page.locator('#error').textContent()).toMatch(/^Could not open the model file “head\.safetensors”: .*header length \d+ exceeds the 192 bytes after it \(file truncated\?\)/);
    expect(await page.evaluate(() => window.attnscope.state.model)).toBe('toy-en-de');
    await page.close();
  });
});

describe('a model file named by ?model-url= on another origin', () => {
  it('downloads with a progress bar once the reader agrees, shows its card, and the URL records it', async () => {
    const url = otherUrl(`/${NAME}`);
    const { page, errors } = await freshPage(`/web/index.html?s=${encodeURIComponent(SENTENCE)}&model-url=${encodeURIComponent(url)}`);
    await page.click('#notice button');
    await modelOpened(page, url);
    await settle(page);
    const texts = await page.evaluate(() => window.__progress);
    // Bytes received of the total (the server sends a Content-Length), more than once on the way.
    const total = `${(model.length / 1024).toFixed(0)} kB`;
    expect(texts.filter((t) => t.includes(`of ${total}`)).length).toBeGreaterThan(1);
    expectCard(await card(page));
    await exerciseModel(page);
    await page.evaluate(() => window.attnscope.idle());
    expect(new URL(page.url()).searchParams.get('model')).toBe(url);
    expect(await page.locator(`#compare option[value="${url}"]`).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('cancels a download that stalls, says so, and leaves the page as it was', async () => {
    const url = otherUrl(`/stalls/${NAME}`);
    const { page } = await freshPage(`/web/index.html?model-url=${encodeURIComponent(url)}`);
    const before = await named(page);
    expect(before).toMatchObject({ picker: 'toy-en-de', state: 'toy-en-de', stale: false });
    await page.click('#notice button');
    await page.locator('#progress-cancel').click({ timeout: 30_000 });
    await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/the download was cancelled/);
    await settle(page);
    expect(await page.locator('#progress').isHidden()).toBe(true);
    expect(await named(page)).toEqual(before);
    expect(await page.locator('#error').textContent()).toContain('The page still shows “Toy en→de');
    await page.close();
  });

  it('a file that is no model (a PNG renamed .safetensors) leaves the page as it was, and says which model it shows', async () => {
    const url = otherUrl('/picture.safetensors');
    const { page } = await freshPage(`/web/index.html?model-url=${encodeURIComponent(url)}`);
    const before = await named(page);
    await page.click('#notice button');
    await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/^Could not load the model “picture\.safetensors/);
    await settle(page);
    expect(await named(page)).toEqual(before);
    expect(await page.locator('#error').textContent()).toContain('The page still shows “Toy en→de');
    await page.close();
  });

  it('a link to a file of the page\'s own origin that is no model: the page shows the default model, and says so', async () => {
    const { page } = await freshPage(`/web/index.html?model-url=${encodeURIComponent(PICTURE_PATH)}`);
    await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/^Could not load the model “picture\.safetensors/);
    await settle(page);
    const now = await named(page);
    expect(now).toMatchObject({ picker: 'toy-en-de', state: 'toy-en-de', views: env.url('/models/toy-en-de.safetensors'), stale: false });
    expect(new URLSearchParams(now.url).get('model') ?? 'toy-en-de').toBe('toy-en-de');
    expect(now.url).not.toContain('picture');
    expect(await page.locator('#error').textContent()).toContain('The page shows “Toy en→de');
    await page.close();
  });

  it('refuses a download too big as soon as its header has arrived', async () => {
    const url = otherUrl('/too-big.safetensors');
    const { page } = await freshPage(`/web/index.html?model-url=${encodeURIComponent(url)}`);
    await page.click('#notice button');
    // The server never sends more than the header: this message can only come from it.
    await expect.poll(() => page.locator('#error').textContent(), { timeout: 30_000 }).toMatch(/is too big: the engine would need/);
    const message = await page.locator('#error').textContent();
    expect(message).toContain(url);
    expect(message).toContain('limit of 2.00 GiB');
    await page.close();
  });

  it('the widget refuses it in its fallback, with the size and the limit', async () => {
    const page = await env.browser.newPage({ serviceWorkers: 'block' });
    const url = otherUrl('/too-big.safetensors');
    await page.route(env.url('/web/open-model-widget.html'), (route) => route.fulfill({
      contentType: 'text/html',
      body: `<!doctype html><meta charset="utf-8"><script type="module" src="/web/widget/attn-scope.js"></script><attn-scope model="${url}" src="${SENTENCE}">fallback</attn-scope>`,
    }));
    await page.goto(env.url('/web/open-model-widget.html'));
    const why = page.locator('attn-scope .fallback .why');
    await why.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await why.textContent()).toMatch(/is too big: the engine would need [\d.]+ GiB .*limit of 2\.00 GiB/);
    await page.close();
  });
});
