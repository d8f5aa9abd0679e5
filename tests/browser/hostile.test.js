// Hostile content is shown as text and never runs, in the page and in the widget: sentences, URL
// parameters, custom attention text, widget attributes, and a model (tests/browser/hostile.js)
// whose name, description and vocabularies carry HTML and JavaScript. Every payload calls
// window.__pwned, a trap installed before the page's own scripts; the tests assert it never fired,
// no dialog opened, and no element a payload would inject exists (in the document or in any
// shadow root). The widget's model attribute refuses every scheme but http(s).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, idle, startBrowser, watchErrors } from './browser.js';
import { ALL, HOSTILE, HOSTILE_DESCRIPTION, HOSTILE_NAME, TARGET_SWAPS, hostileModel } from './hostile.js';

let env;
const HOSTILE_URL = '/tests/artifacts/hostile.safetensors';
const HOSTILE_TRANSLATION = Object.values(TARGET_SWAPS).join(' ');

beforeAll(async () => {
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(join(artifacts, 'hostile.safetensors'), hostileModel());
  env = await startBrowser();
});
afterAll(async () => {
  await env?.close();
});

/** A page with the trap set before anything of the page runs. */
async function trappedPage({ routeToyToHostile = false } = {}) {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 900 }, serviceWorkers: 'block' });
  const errors = watchErrors(page);
  const dialogs = [];
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  await page.addInitScript(() => {
    window.__pwnedCalls = [];
    window.__pwned = (x) => window.__pwnedCalls.push(String(x));
  });
  if (routeToyToHostile) {
    const bytes = hostileModel();
    await page.route('**/models/toy-en-de.safetensors', (r) => r.fulfill({ status: 200, contentType: 'application/octet-stream', body: bytes }));
  }
  return { page, errors, dialogs };
}

/** What a payload would have left behind, in the document and every shadow root. */
async function injected(page) {
  return page.evaluate(() => {
    const found = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        for (const a of el.attributes) if (/^on/i.test(a.name)) found.push(`<${el.localName} ${a.name}>`);
        if (['iframe', 'img', 'object', 'embed'].includes(el.localName)) found.push(`<${el.localName}>`);
        if (el.localName === 'script' && !(el.src && new URL(el.src).origin === location.origin)) found.push('<script> not from this origin');
        for (const attr of ['href', 'src', 'action', 'formaction', 'xlink:href']) {
          if (/^\s*javascript:/i.test(el.getAttribute(attr) ?? '')) found.push(`<${el.localName} ${attr}=javascript:>`);
        }
        if (el.id === 'pwned-link') found.push('#pwned-link');
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return found;
  });
}

async function expectNothingRan(page, dialogs) {
  // Hover and focus across the page: payloads that wait for onmouseover/onfocus get their chance.
  for (let y = 50; y < 900; y += 120) for (let x = 50; x < 1280; x += 200) await page.mouse.move(x, y);
  expect(await page.evaluate(() => window.__pwnedCalls)).toEqual([]);
  expect(dialogs).toEqual([]);
  expect(await injected(page)).toEqual([]);
}

/** Every text node of the document and its shadow roots, joined (what a reader sees as text). */
const allText = (page) => page.evaluate(() => {
  const out = [];
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
    for (let n = it.nextNode(); n; n = it.nextNode()) {
      if (n.nodeType === Node.TEXT_NODE) out.push(n.data);
      else if (n.shadowRoot) walk(n.shadowRoot);
    }
  };
  walk(document.body);
  return out.join('\n');
});

describe('the page', () => {
  it('shows a hostile sentence and hostile URL parameters as text', async () => {
    // The toy model (the model parameter is hostile too, so the default), every other parameter
    // hostile: the sentence is too long for it (16 positions), and the page says so. The Multi30k
    // model (128 positions) reads the payloads in two sentences and translates them.
    const { img, script, svg, jsUrl, iframe, anchor, attr } = HOSTILE;
    for (const [model, sentence] of [[HOSTILE.img, `i can eat apple ${ALL.join(' ')}`],
      ['multi30k-en-de', [img, script, svg, jsUrl].join(' ')], ['multi30k-en-de', [iframe, anchor, attr].join(' ')]]) {
      const { page, errors, dialogs } = await trappedPage();
      const q = new URLSearchParams({ s: sentence, model, step: model === 'multi30k-en-de' ? '3' : 'end' });
      if (model !== 'multi30k-en-de') {
        for (const [k, v] of [['view', HOSTILE.script], ['mode', HOSTILE.svg], ['layer', HOSTILE.attr],
          ['head', HOSTILE.jsUrl], ['force', `0:${HOSTILE.img}`], ['att', `cross.*.*.${HOSTILE.script}`], ['an', HOSTILE.iframe],
          ['pin', HOSTILE.anchor], ['hyp', HOSTILE.svg], ['path', HOSTILE.img], ['kind', HOSTILE.script]]) q.append(k, v);
      }
      await page.goto(env.url(`/web/index.html?${q}`));
      if (model === 'multi30k-en-de') {
        await idle(page);
        expect(await page.evaluate(() => Number(document.querySelector('#app').dataset.steps))).toBe(3);
      } else {
        await page.locator('#error').waitFor({ state: 'visible', timeout: 30_000 });
        expect(await page.locator('#error').textContent()).toMatch(/^the sentence has more than \d+ tokens but this model reads at most 16/);
      }
      // The sentence is the input's value, verbatim.
      expect(await page.inputValue('#sentence'), model).toBe(sentence);
      await expectNothingRan(page, dialogs);
      expect(errors, model).toEqual([]);
      await page.close();
    }
  });

  it("shows a hostile model's name, description and vocabulary tokens as text, in every view", async () => {
    for (const extra of ['', '&view=model', '&mode=beam&view=beam', '&view=encoder']) {
      const { page, errors, dialogs } = await trappedPage({ routeToyToHostile: true });
      // An unknown word makes the form list the model's vocabulary (and its name).
      await page.goto(env.url(`/web/index.html?s=${encodeURIComponent('i can eat apple zzz')}&step=end${extra}`));
      await idle(page);
      const text = await allText(page);
      for (const token of Object.values(TARGET_SWAPS)) expect(text, extra).toContain(token);
      await expectNothingRan(page, dialogs);
      expect(errors, extra).toEqual([]);
      await page.close();
    }
  });

  it('refuses a model-url of any scheme but http(s), blob: or a relative path, in plain words', async () => {
    for (const [url, scheme] of [['file:///etc/passwd', 'file:'], [`javascript:__pwned('model-url')`, 'javascript:'],
      ['data:application/octet-stream;base64,AAAA', 'data:'], ['ftp://127.0.0.1/toy.safetensors', 'ftp:']]) {
      const { page, errors, dialogs } = await trappedPage();
      await page.goto(env.url(`/web/index.html?model-url=${encodeURIComponent(url)}`));
      await idle(page);
      const notice = await page.locator('#notice').textContent();
      expect(notice, url).toContain(`model-url “${url}” is a ${scheme} URL`);
      expect(notice, url).toMatch(/only from an http\(s\) or blob: URL, or a path relative to the page\. Showing “Toy en→de/);
      expect(notice, url).not.toMatch(/opened from a computer/);
      expect(await page.locator('#notice').isVisible()).toBe(true);
      expect(await page.evaluate(() => window.attnscope.state.model)).toBe('toy-en-de');
      const q = new URL(page.url()).searchParams;
      expect([url, q.get('model'), q.get('model-url')]).toEqual([url, 'toy-en-de', null]);
      await expectNothingRan(page, dialogs);
      expect(errors, url).toEqual([]);
      await page.close();
    }
    // model=file:NAME names a file opened from a computer, whose name has no folder in it.
    const { page } = await trappedPage();
    await page.goto(env.url(`/web/index.html?model=${encodeURIComponent('file:///etc/passwd')}`));
    await idle(page);
    const notice = await page.locator('#notice').textContent();
    expect(notice).not.toMatch(/opened from a computer/);
    expect(notice).toContain('there is no model “file:///etc/passwd”');
    await page.close();
  });

  it('shows hostile custom attention text in its error message as text', async () => {
    const { page, errors, dialogs } = await trappedPage();
    await page.goto(env.url('/web/index.html?s=i+can+eat+apple&step=end'));
    await idle(page);
    await page.click('#break summary');
    await page.click('#add-override');
    await idle(page);
    await page.selectOption('#overrides li select[name=pattern]', 'custom');
    await idle(page);
    const area = page.locator('#overrides textarea[name=matrix]');
    await area.fill(ALL.join('\n'));
    await page.click('#overrides button.apply');
    await idle(page);
    const problem = page.locator('#overrides .matrix-error');
    expect(await problem.isVisible()).toBe(true);
    expect((await problem.textContent()).length).toBeGreaterThan(0);
    await expectNothingRan(page, dialogs);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('the widget', () => {
  /** A page of the test server's origin with widgets whose attributes are set from `widgets`. */
  async function widgets(list) {
    const { page, errors, dialogs } = await trappedPage();
    await page.route('**/hostile-widgets.html', (r) => r.fulfill({ contentType: 'text/html; charset=utf-8',
      body: '<!doctype html><meta charset="utf-8"><title>hostile</title><link rel="icon" href="data:,"><script type="module" src="/web/widget/attn-scope.js"></script><main></main>' }));
    await page.goto(env.url('/hostile-widgets.html'));
    await page.evaluate((list) => {
      for (const attrs of list) {
        const w = document.createElement('attn-scope');
        for (const [k, v] of Object.entries(attrs)) w.setAttribute(k, v);
        w.append('fallback text');
        document.querySelector('main').append(w);
      }
    }, list);
    await page.waitForFunction(() => customElements.get('attn-scope'));
    await page.evaluate(() => Promise.all([...document.querySelectorAll('attn-scope')].map((w) => w.ready)));
    // ready resolves with the queue; wait until each has drawn or said why not.
    await page.waitForFunction(() => [...document.querySelectorAll('attn-scope')].every((w) => w.snapshot?.done
      || w.shadowRoot.querySelector('.fallback:not([hidden]), .error:not([hidden])')), null, { timeout: 30_000 });
    return { page, errors, dialogs };
  }
  const shown = (page, i, sel) => page.evaluate(([i, sel]) => document.querySelectorAll('attn-scope')[i].shadowRoot.querySelector(sel).textContent, [i, sel]);
  const hidden = (page, i, sel) => page.evaluate(([i, sel]) => document.querySelectorAll('attn-scope')[i].shadowRoot.querySelector(sel).hidden, [i, sel]);

  it("shows a hostile model's tokens, a hostile sentence and hostile attributes as text", async () => {
    const { page, errors, dialogs } = await widgets([
      { model: HOSTILE_URL, src: 'i can eat apple' },
      { src: `i can eat apple ${ALL.join(' ')}`, view: HOSTILE.script, layer: HOSTILE.img, head: HOSTILE.svg, mode: HOSTILE.attr, step: HOSTILE.jsUrl, 'beam-size': HOSTILE.anchor, seed: HOSTILE.iframe },
      { src: 'i can eat apple', interventions: JSON.stringify({ skip: [HOSTILE.img], attention: [{ site: HOSTILE.script, pattern: HOSTILE.svg }] }) },
      { src: 'i can eat apple', interventions: `${HOSTILE.script} not JSON` },
    ]);
    expect(await shown(page, 0, '.sentence b')).toBe(HOSTILE_TRANSLATION);
    expect(await hidden(page, 0, '.fallback')).toBe(true);
    expect(await hidden(page, 1, '.fallback')).toBe(true);
    // The engine's refusal names the hostile item; shown as text.
    expect(await hidden(page, 2, '.error')).toBe(false);
    expect(await shown(page, 2, '.error')).toMatch(/skip|site|pattern/);
    expect(await shown(page, 3, '.error')).toMatch(/^the interventions attribute is not valid JSON/);
    await expectNothingRan(page, dialogs);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('refuses model URLs that are not http(s) or relative, saying so', async () => {
    const refused = [`javascript:__pwned('model')`, ` JAVASCRIPT:__pwned('model')`, `java\tscript:__pwned('model')`,
      `data:application/octet-stream;base64,AAAA`, `data:text/html,<script>__pwned('data')</script>`, 'blob:http://127.0.0.1/x', 'file:///etc/passwd',
      `vbscript:__pwned('vb')`];
    const { page, errors, dialogs } = await widgets([...refused.map((model) => ({ model, src: 'i can eat apple' })), { model: HOSTILE_URL, src: 'i can eat apple' }]);
    for (const [i, model] of refused.entries()) {
      expect(await hidden(page, i, '.fallback'), model).toBe(false);
      expect(await shown(page, i, '.fallback .why'), model).toMatch(/^the model attribute must be a model id, an http\(s\) URL or a relative URL/);
    }
    // A relative URL is fine (the last widget).
    expect(await shown(page, refused.length, '.sentence b')).toBe(HOSTILE_TRANSLATION);
    await expectNothingRan(page, dialogs);
    expect(errors).toEqual([]);
    await page.close();
  });
});

it('the hostile model carries its payloads (the fixture is what the tests think it is)', async () => {
  const { loadModel } = await import('../../web/attnscope.js');
  const model = await loadModel(new Uint8Array(hostileModel()));
  expect(model.info.name).toBe(HOSTILE_NAME);
  expect(model.info.description).toBe(HOSTILE_DESCRIPTION);
  const s = model.translate('i can eat apple');
  s.run();
  expect(s.translation).toBe(HOSTILE_TRANSLATION);
  s.dispose();
  model.dispose();
});
