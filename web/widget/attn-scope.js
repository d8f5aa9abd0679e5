// <attn-scope>: an attention heatmap of a live translation, to put in any page.
//
//   <script type="module" src="/web/widget/attn-scope.js"></script>
//   <attn-scope model="toy-en-de" src="i can eat apple" view="cross" layer="0" head="0" mode="greedy"></attn-scope>
//
// Attributes: model (an id of web/models.js, or a model file URL), src (the sentence), prompt (a
// decoder-only model's prompt, which it continues; the same as src), view
// (the name of one of the model's attention sites, model.info.sites: for the transformers
// cross | encoder | self; the model's main site when absent or unknown), layer, head (0-based as in
// the JS API, or head="mean"; the title shows them 1-based), mode (greedy | beam | sample),
// step (a number, or "end", the default), beam-size, seed, interventions (JSON, the JS API's
// `interventions` option, e.g. '{"skip": ["crossAttention"]}'). Every widget on a page talks to
// one Web Worker (web/app/worker/worker.js): one WebAssembly instance, one copy of each model. Errors
// (bad JSON, the engine refusing an option) are shown in the widget, never thrown at the page.
import { formatBytes, getEngine } from '../app/worker/client.js';
import { HEATMAP_CSS, Heatmap } from '../app/views/heatmap.js';
import { attentionSpec } from '../app/views/views.js';
import { formatState, hasInterventions, normalizeInterventions } from '../app/state/state.js';
import { describeInterventions } from '../app/panels/interventions.js';
import { mainSite, siteNamed } from '../app/model/sites.js';
import { StepStore } from '../app/state/step-store.js';
import { shownText } from '../app/util/pieces.js';
import { findModel, modelUrl, unknownModelMessage } from '../models.js';

// Theming: every colour, font and size below comes from a public custom property
// (--attnscope-*, docs/embed.md "Theming"), each with a light default and a dark one under
// prefers-color-scheme: dark; the private --_* names are what the rules read.
const CSS = `
:host {
  --_font: var(--attnscope-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --_size: var(--attnscope-font-size, 14px);
  --_radius: var(--attnscope-radius, 10px);
  --_pad: var(--attnscope-padding, 10px 12px);
  --_fg: var(--attnscope-color, #1f2328);
  --_muted: var(--attnscope-muted-color, #57606a);
  --_bg: var(--attnscope-background, #fff);
  --_line: var(--attnscope-border-color, #d0d7de);
  --_accent: var(--attnscope-accent-color, #0969da);
  --_control: var(--attnscope-control-background, #f6f8fa);
  --_control-line: var(--attnscope-control-border-color, #8c959f);
  --_err: var(--attnscope-error-color, #82071e);
  --_err-bg: var(--attnscope-error-background, #ffebe9);
  --_err-line: var(--attnscope-error-border-color, #ff8182);
  --_note: var(--attnscope-notice-color, #3b2300);
  --_note-bg: var(--attnscope-notice-background, #fff8c5);
  --_note-line: var(--attnscope-notice-border-color, #d4a72c);
  --hm-empty: var(--attnscope-empty-cell-color, #eef0f3);
  --hm-highlight-ink: var(--attnscope-highlight-color, #a63603);
  display: block; margin: 1.2em 0; font: var(--_size)/1.45 var(--_font); color: var(--_fg);
}
@media (prefers-color-scheme: dark) {
  :host {
    --_fg: var(--attnscope-color, #e6edf3);
    --_muted: var(--attnscope-muted-color, #9198a1);
    --_bg: var(--attnscope-background, #0d1117);
    --_line: var(--attnscope-border-color, #3d444d);
    --_accent: var(--attnscope-accent-color, #4493f8);
    --_control: var(--attnscope-control-background, #21262d);
    --_control-line: var(--attnscope-control-border-color, #656c76);
    --_err: var(--attnscope-error-color, #ffa198);
    --_err-bg: var(--attnscope-error-background, #25171c);
    --_err-line: var(--attnscope-error-border-color, #f85149);
    --_note: var(--attnscope-notice-color, #e3b341);
    --_note-bg: var(--attnscope-notice-background, #272115);
    --_note-line: var(--attnscope-notice-border-color, #9e6a03);
    --hm-empty: var(--attnscope-empty-cell-color, #262c36);
    --hm-highlight-ink: var(--attnscope-highlight-color, #ffa657);
  }
}
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
figure { margin: 0; border: 1px solid var(--_line); border-radius: var(--_radius); background: var(--_bg); padding: var(--_pad); }
.head { display: flex; flex-wrap: wrap; gap: 2px 8px; align-items: baseline; margin-bottom: 6px; }
.title { font-weight: 600; }
.sentence { color: var(--_muted); }
.sentence b { color: var(--_fg); }
.progress { display: flex; gap: 8px; align-items: center; color: var(--_muted); font-size: .93em; margin: 6px 0; }
.progress progress { width: 160px; accent-color: var(--_accent); }
.modified { font-size: .93em; color: var(--_note); background: var(--_note-bg); border: 1px solid var(--_note-line); border-radius: 6px; padding: 2px 8px; margin-bottom: 6px; }
.fallback { color: var(--_muted); background: var(--_control); border: 1px dashed var(--_control-line); border-radius: 6px; padding: 8px 10px; }
.fallback .why { display: block; margin-top: 4px; font-size: .86em; color: var(--_err); }
.note { color: var(--_muted); background: var(--_control); border: 1px dashed var(--_control-line); border-radius: 6px; padding: 6px 10px; font-size: .93em; }
.error { color: var(--_err); background: var(--_err-bg); border: 1px solid var(--_err-line); border-radius: 6px; padding: 6px 10px; font-size: .93em; }
.map { color: var(--_fg); }
.controls { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: center; margin-top: 6px; font-size: .93em; color: var(--_muted); }
button { font: inherit; color: var(--_fg); background: var(--_control); border: 1px solid var(--_control-line); border-radius: 6px; min-width: 44px; min-height: 44px; cursor: pointer; }
button:hover:not(:disabled) { filter: brightness(.95); }
button:disabled { opacity: .45; cursor: default; }
button:focus-visible, a:focus-visible { outline: 3px solid var(--_accent); outline-offset: 2px; }
a { color: var(--_accent); margin-left: auto; display: inline-flex; align-items: center; min-height: 44px; }
[hidden] { display: none !important; }
` + HEATMAP_CSS;

/** The engine's worker or the model could not load (shown as the widget's fallback). */
class LoadError extends Error {}

// The full page the "explore" link opens: the repository's web/index.html beside web/widget/. The
// package's one-file build (web/widget.js, web/build-widget.mjs) ships no page and defines
// __ATTNSCOPE_PAGE__ as null, which hides the link.
// eslint-disable-next-line no-undef
const PAGE = typeof __ATTNSCOPE_PAGE__ === 'undefined' ? new URL('../index.html', import.meta.url).href : __ATTNSCOPE_PAGE__;

/**
 * Where a `model` attribute that names no manifest entry points: only http(s) URLs and URLs
 * relative to the page; any other scheme (javascript:, data:, blob:, file:) is refused.
 */
export function modelFileUrl(value, base) {
  const url = new URL(value, base); // a value with a scheme is read as it is, whatever the page's address
  if (!/^https?:$/.test(url.protocol)) {
    throw new LoadError(`the model attribute must be a model id, an http(s) URL or a relative URL: “${value}” is a ${url.protocol} URL`);
  }
  return url.href;
}

// One stylesheet object for every widget (adopted, not a <style> element: a page whose
// Content-Security-Policy has no style-src 'unsafe-inline' still styles it).
let sheet = null;
function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
  }
  return sheet;
}

// In Node (server-side rendering, a test runner) there is no HTMLElement: the module still
// imports, exports a class that is never constructed there, and registers nothing.
const Base = globalThis.HTMLElement ?? class {};

export class AttnScope extends Base {
  static observedAttributes = ['model', 'src', 'prompt', 'view', 'layer', 'head', 'mode', 'step', 'beam-size', 'seed', 'interventions'];

  #root;
  #map = null;
  #steps = new StepStore(); // the session's steps, appended as the worker sends them
  #snap = null;
  #sid = null;
  #queue = Promise.resolve();
  #opened = '';
  #connected = false;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [styleSheet()];
    this.#root.innerHTML = `<figure part="figure">
        <figcaption class="head"><span class="title" part="title"></span><span class="sentence" part="sentence"></span></figcaption>
        <div class="progress" part="progress" hidden><progress max="1" value="0"></progress><span class="bytes" aria-live="polite">Loading…</span></div>
        <p class="modified" part="notice" hidden></p>
        <div class="error" part="error" role="alert" hidden></div>
        <div class="fallback" part="fallback" role="alert" hidden><slot>This attention heatmap could not load.</slot><span class="why"></span></div>
        <p class="note" part="notice" hidden></p>
        <div class="map" part="map"></div>
        <div class="controls" part="controls">
          <button type="button" class="prev" part="button" aria-label="Previous step">◀</button>
          <button type="button" class="next" part="button" aria-label="Next step">▶</button>
          <span class="status" part="status" aria-live="polite"></span>
          <a class="open" part="link" target="_blank" rel="noopener" hidden>explore in attnscope ↗</a>
        </div>
      </figure>`;
    this.#map = new Heatmap(this.#root.querySelector('.map'));
    this.#map.root.hidden = true; // until there is a translation to draw
    for (const b of this.#root.querySelectorAll('.prev, .next')) b.disabled = true;
    this.#root.querySelector('.prev').addEventListener('click', () => this.#goto(this.#snap.steps - 1));
    this.#root.querySelector('.next').addEventListener('click', () => this.#goto(this.#snap.steps + 1));
    this.#root.querySelector('figure').addEventListener('keydown', (e) => {
      if (!this.#snap || e.target.closest?.('canvas')) return;
      if (e.key === 'ArrowLeft' && this.#snap.steps > 0) this.#goto(this.#snap.steps - 1);
      else if (e.key === 'ArrowRight' && !this.#snap.done) this.#goto(this.#snap.steps + 1);
      else return;
      e.preventDefault();
      e.stopPropagation();
    });
  }

  /**
   * What the page's engine holds now: {sessions, models, fetches, embindCalls}. Every widget
   * holds one session while it is in the document and closes it when removed, so a framework
   * that unmounts its widgets can check that they freed what they held (sessions back to 0).
   */
  static engineStats() {
    return getEngine().request('stats');
  }

  /** The latest snapshot (for tests and tools). */
  get snapshot() { return this.#snap; }
  /** Resolves when the widget has drawn what its attributes ask for. */
  get ready() { return this.#queue; }

  connectedCallback() {
    this.#connected = true;
    this.#open();
  }

  disconnectedCallback() {
    this.#connected = false;
    const sid = this.#sid;
    this.#sid = null;
    this.#opened = '';
    if (sid !== null) getEngine().request('close', { sid }).catch(() => {});
  }

  attributeChangedCallback(name) {
    if (!this.#connected) return;
    if (['view', 'layer', 'head'].includes(name)) this.#draw();
    else if (name === 'step') this.#goto(this.#step());
    else this.#open();
  }

  #entry() {
    const id = this.getAttribute('model') ?? 'toy-en-de';
    const entry = findModel(id);
    if (entry) return { id, url: modelUrl(entry), label: entry.label };
    // Not an id of the manifest: a model file's URL has a slash, a dot or a scheme; anything else
    // is an id mistyped, said with the ids there are.
    if (!/[/.:]/.test(id)) return { id, unknown: true, url: null, label: id };
    try {
      return { id, url: modelFileUrl(id, document.baseURI), label: id };
    } catch (e) {
      return { id, url: null, label: id, refused: e };
    }
  }

  #options() {
    const mode = this.getAttribute('mode') ?? 'greedy';
    if (mode === 'beam') {
      const beamSize = Number(this.getAttribute('beam-size') ?? 4);
      return { strategy: 'beam', beamSize, nbest: beamSize };
    }
    if (mode === 'sample') return { strategy: 'sample', seed: Number(this.getAttribute('seed') ?? 1) };
    return { strategy: 'greedy' };
  }

  /** The interventions attribute, parsed: {value} (undefined when absent or blank) or {error}. */
  #interventions() {
    const text = this.getAttribute('interventions');
    if (text === null || !text.trim()) return { value: undefined };
    try {
      return { value: JSON.parse(text) };
    } catch (e) {
      return { error: `the interventions attribute is not valid JSON (${e.message})` };
    }
  }

  /** The text the session starts from: a decoder-only model's prompt, or the sentence to translate. */
  #text() { return this.getAttribute('prompt') ?? this.getAttribute('src') ?? ''; }

  #step() {
    const s = this.getAttribute('step');
    return s === null || s === 'end' ? 'end' : Math.max(0, Number.parseInt(s, 10) || 0);
  }

  #run(work) {
    this.#queue = this.#queue.then(async () => {
      try {
        const answer = await work();
        // Removed from the document while the engine was answering: the session that answer
        // opened is no one's; close it (disconnectedCallback could not, it had no id yet).
        if (!this.#connected && answer?.sid !== undefined && answer.sid !== this.#sid) {
          getEngine().request('close', { sid: answer.sid }).catch(() => {});
          return;
        }
        const snap = answer ? this.#steps.apply(answer) : null;
        if (snap) {
          this.#snap = snap;
          this.#sid = snap.sid;
          this.#draw();
        }
        this.#error(null);
      } catch (e) {
        this.#error(e);
      }
    });
    return this.#queue;
  }

  #open() {
    const entry = this.#entry();
    const text = this.#text();
    const options = this.#options();
    const iv = this.#interventions();
    const key = JSON.stringify([entry.url ?? entry.id, text, options, this.getAttribute('interventions')]);
    if (key === this.#opened) return;
    this.#opened = key;
    this.#root.querySelector('.sentence').innerHTML = '';
    if (iv.value !== undefined) options.interventions = iv.value;
    this.#run(async () => {
      if (entry.unknown) throw new LoadError(`${unknownModelMessage(entry.id)} (or give a model file's URL)`);
      if (entry.refused) throw entry.refused;
      if (iv.error) throw new Error(iv.error);
      const progress = this.#root.querySelector('.progress');
      try {
        // The engine and the model first: when either cannot load, the widget says so in its
        // fallback (the author's text inside the element) rather than showing nothing.
        await getEngine().request('load', { url: entry.url }, ({ loaded, total }) => {
          progress.hidden = false;
          progress.querySelector('progress').max = total || loaded || 1;
          progress.querySelector('progress').value = loaded;
          progress.querySelector('.bytes').textContent = `Loading ${entry.label}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`;
        });
      } catch (e) {
        throw new LoadError(e.message);
      } finally {
        progress.hidden = true;
      }
      if (!this.#connected) return null; // removed while the model loaded: open nothing
      const answer = await getEngine().request('open', { url: entry.url, text, options, step: this.#step(), replace: this.#sid ?? undefined });
      if (answer.encoderOnly) throw new Error(`${entry.label} is an encoder-only model: it does not translate (the demo page shows it)`);
      return answer;
    });
  }

  #goto(step) {
    if (this.#sid === null || !this.#snap) return;
    this.#run(() => getEngine().request('goto', { sid: this.#sid, step }));
  }

  #error(e) {
    const failed = e instanceof LoadError;
    const fallback = this.#root.querySelector('.fallback');
    fallback.hidden = !failed;
    fallback.querySelector('.why').textContent = failed ? e.message : '';
    const box = this.#root.querySelector('.error');
    box.hidden = !e || failed;
    box.textContent = e && !failed ? e.message : '';
    // What is on screen no longer matches the attributes: say so until a new translation comes,
    // and offer no link to it (#draw shows the link again, to what it draws).
    this.#map.root.style.opacity = e ? '0.35' : '';
    if (e) this.#root.querySelector('.open').hidden = true;
  }

  #draw() {
    const snap = this.#snap;
    if (!snap) return;
    const site = siteNamed(snap.sites, this.getAttribute('view')) ?? mainSite(snap.sites);
    if (!site) {
      // A model without attention (an RNN's no-attention baseline): its translation, and why no map.
      this.#map.root.hidden = true;
      this.#root.querySelector('.title').textContent = 'No attention in this model';
      this.#drawSentence(snap);
      this.#drawControls(snap);
      this.#note('This model has no attention: its decoder never looks back at the source token by token, so there is no map to draw.');
      return;
    }
    this.#note(null);
    const view = site.name;
    const layers = site.layers;
    const layer = Math.min(layers - 1, Math.max(0, Number.parseInt(this.getAttribute('layer') ?? '0', 10) || 0));
    const headAttr = this.getAttribute('head') ?? '0';
    const head = headAttr === 'mean' ? 'mean' : Math.min(site.heads - 1, Math.max(0, Number.parseInt(headAttr, 10) || 0));
    const headName = head === 'mean' ? 'mean of heads' : `head ${head + 1}/${site.heads}`;
    this.#root.querySelector('.title').textContent = `${site.label} · layer ${layer + 1}/${layers} · ${headName}`;
    this.#drawSentence(snap);
    const empty = site.perStep && !snap.rows.length;
    this.#map.root.hidden = empty;
    if (!empty) this.#map.set(attentionSpec(snap.attention(view), layer, head));
    this.#drawControls(snap);
    const iv = normalizeInterventions(snap.options.interventions);
    const modified = this.#root.querySelector('.modified');
    modified.hidden = !hasInterventions(iv);
    modified.textContent = modified.hidden ? '' : `Modified model: ${describeInterventions(iv, snap.sites).map((d) => d.text).join('; ')}`;
    const entry = this.#entry();
    const mode = snap.options.strategy ?? 'greedy';
    const open = this.#root.querySelector('.open');
    open.hidden = !PAGE;
    if (!PAGE) return this.#rendered(snap);
    const link = new URL(PAGE);
    // A manifest model by its id; the widget's own model file by its absolute URL (the page loads
    // one on its own origin, one elsewhere when the reader agrees: web/models.js findModel).
    link.search = formatState({
      s: this.#text(), model: findModel(entry.id) ? entry.id : entry.url, mode, step: snap.steps, view, layer, head, kind: view,
      beam: snap.options.beamSize ?? 4, lp: 'none', alpha: 0.6, temp: 1, topk: 0, topp: 1, seed: snap.options.seed ?? 1, iv,
    });
    open.href = link.href;
    this.#rendered(snap);
  }

  #rendered(snap) {
    this.dispatchEvent(new CustomEvent('attn-scope:render', { detail: { steps: snap.steps, done: snap.done } }));
  }

  #note(text) {
    const note = this.#root.querySelector('.note');
    note.hidden = !text;
    note.textContent = text ?? '';
  }

  #drawSentence(snap) {
    const sentence = this.#root.querySelector('.sentence');
    sentence.innerHTML = '<span class="s"></span><span class="a"> → </span><b class="t"></b>';
    if (snap.input === 'prompt') sentence.querySelector('.a').textContent = ' '; // a prompt runs on into its continuation
    sentence.querySelector('.s').textContent = shownText(snap.source.pieces.filter((p) => p !== '</s>'), { subwords: snap.subwords });
    sentence.querySelector('.t').textContent = snap.path.text || '…';
  }

  #drawControls(snap) {
    this.#root.querySelector('.prev').disabled = snap.steps === 0;
    this.#root.querySelector('.next').disabled = snap.done;
    this.#root.querySelector('.status').textContent = `step ${snap.steps}${snap.done ? ' (finished)' : ''}`;
  }
}

if (globalThis.customElements && !customElements.get('attn-scope')) customElements.define('attn-scope', AttnScope);
