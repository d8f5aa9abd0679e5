// The compare view: a second model (the URL's compare=ID) on the page's sentence, beside the
// page's model, its steps in sync: whenever the page's session moves (step, back, go to, force a
// token), the other session is moved to the same step by the engine's worker, with the same
// forced tokens where its vocabulary has them. Each pane shows its model's architecture in
// words, its translation so far and the attention map(s) of its main site (web/app/model/sites.js),
// with its own layer and head. Both sessions come from the engine; nothing here computes.
import { findModel, modelUrl } from '../../models.js';
import { renderArchitecture } from './architecture-panel.js';
import { Heatmap } from '../views/heatmap.js';
import { setProp } from '../util/html.js';
import { mainSite } from '../model/sites.js';
import { hasInterventions, strategyOptions } from '../state/state.js';
import { StepStore } from '../state/step-store.js';
import { attentionSpec } from '../views/views.js';
import { labelOf, piecesShown } from '../util/pieces.js';

const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};

/** What a model does with the page's text, by its info.input (web/attnscope.js). */
const DOES = { source: 'translates a source sentence', prompt: 'continues a prompt', text: 'encodes a text' };

/** One side of the compare view: a model's words, translation and its main site's map. */
class Pane {
  #heatmap;
  #pick = { layer: null, head: null }; // the reader's choice; null: the default (last layer, head 1)

  constructor(root, side) {
    this.root = root;
    root.dataset.pane = side;
    this.title = el('h3', { className: 'cv-title' });
    this.arch = el('div', { className: 'cv-arch' });
    this.output = el('p', { className: 'cv-output' });
    this.status = el('p', { className: 'cv-status muted' });
    this.layer = el('select', { className: 'cv-layer' });
    this.head = el('select', { className: 'cv-head' });
    this.tools = el('div', { className: 'view-tools cv-tools' },
      el('label', { className: 'inline' }, 'Layer ', this.layer), el('label', { className: 'inline' }, 'Head ', this.head));
    this.mapTitle = el('p', { className: 'cv-map-title caption' });
    this.note = el('p', { className: 'cv-note placeholder', hidden: true });
    const map = el('div', { className: 'cv-map' });
    root.replaceChildren(this.title, this.arch, this.output, this.status, this.tools, this.mapTitle, this.note, map);
    this.#heatmap = new Heatmap(map);
    this.#heatmap.root.classList.add('cv-heatmap');
    this.layer.addEventListener('change', () => { this.#pick.layer = Number(this.layer.value); this.draw(); });
    this.head.addEventListener('change', () => { this.#pick.head = Number(this.head.value); this.draw(); });
  }

  /** Shows `snap` (a step-store snapshot) of the model `entry` described by `info`. */
  show(entry, info, snap) {
    this.entry = entry;
    this.info = info;
    this.snap = snap;
    this.draw();
  }

  draw() {
    const { entry, info, snap } = this;
    if (!snap) return;
    this.title.textContent = entry.label;
    if (info) renderArchitecture(this.arch, info, { diagram: false });
    this.output.textContent = snap.path.text || '…';
    this.output.dataset.tokens = snap.path.tokens.join(' ');
    this.status.textContent = `step ${snap.steps}${snap.done ? ' (finished)' : ''}`;
    this.root.dataset.steps = snap.steps;
    this.root.dataset.done = String(snap.done);
    const site = mainSite(snap.sites);
    this.root.dataset.site = site?.name ?? '';
    const empty = !site || (site.perStep && !snap.rows.length);
    this.tools.hidden = !site || (site.layers === 1 && site.heads === 1);
    this.note.hidden = !empty;
    this.note.textContent = !site
      ? 'This model has no attention: its decoder never looks back at the source token by token, so there is no map to draw.'
      : 'No step yet: press Next (or →).';
    this.#heatmap.root.hidden = empty;
    this.mapTitle.hidden = !site;
    if (!site) return;
    const layer = Math.min(this.#pick.layer ?? site.layers - 1, site.layers - 1);
    const head = Math.min(this.#pick.head ?? 0, site.heads - 1);
    const fill = (select, n, value) => {
      if (select.options.length !== n) select.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(`${i + 1} of ${n}`, i)));
      select.value = String(value);
    };
    fill(this.layer, site.layers, layer);
    fill(this.head, site.heads, head);
    this.root.dataset.layer = layer;
    this.root.dataset.head = head;
    this.mapTitle.textContent = `${site.label} · layer ${layer + 1} of ${site.layers} · head ${head + 1} of ${site.heads}`;
    if (!empty) this.#heatmap.set(attentionSpec(snap.attention(site.name, { show: piecesShown() }), layer, head));
  }
}

export class CompareView {
  #store;
  #engine;
  #root;
  #steps = new StepStore(); // the other model's session, as the worker sends it
  #snap = null;
  #info = null;
  #key = ''; // what the other session was opened with
  #queue = Promise.resolve();
  #pending = 0;
  #panes;

  /** store: the page store; engine: the worker's client; root: the compare card. */
  constructor({ store, engine, root }) {
    this.#store = store;
    this.#engine = engine;
    this.#root = root;
    this.#root.dataset.busy = 'false';
    const body = root.querySelector('.cv-panes');
    this.#panes = [new Pane(el('section', { className: 'cv-pane' }), 'page'), new Pane(el('section', { className: 'cv-pane' }), 'other')];
    body.replaceChildren(...this.#panes.map((p) => p.root));
    this.error = root.querySelector('.cv-error');
    this.notes = root.querySelector('.cv-notes');
  }

  /** The other model's latest snapshot (for tests and the curious). */
  get snapshot() { return this.#snap; }

  /** Resolves when the other session has caught up with every request so far. */
  idle() { return this.#queue; }

  /** Draws both panes again as they are (the page's "show subword pieces" switch changed). */
  redraw() {
    for (const pane of this.#panes) pane.draw();
    this.#renderForced();
  }

  /** Brings the view in line with the page's state and snapshot (called on every change). */
  sync() {
    const { st, snap, info } = this.#store.get();
    const entry = st.compare ? findModel(st.compare) : null;
    setProp(this.#root, 'hidden', !entry);
    if (!entry) {
      this.#close();
      return;
    }
    if (!snap) return;
    this.#panes[0].show(findModel(st.model), info, snap);
    const url = modelUrl(entry);
    const options = strategyOptions(st);
    const forced = snap.forced.map((f) => ({ ...f }));
    const key = JSON.stringify([url, st.s, options, forced]);
    this.#renderNotes(st, entry);
    // Where the page is when the work runs (it may have moved on while the other model loaded):
    // the same step, or (the page's translation finished) the other's end.
    const target = () => {
      const now = this.#store.get().snap;
      return now.done ? 'end' : now.steps;
    };
    if (key !== this.#key) {
      this.#key = key;
      this.#run(async () => {
        this.#info = await this.#engine.request('load', { url });
        const [mine, theirs] = [info?.input, this.#info.input];
        if (mine !== theirs && [mine, theirs].includes('prompt')) {
          throw new Error(`it ${DOES[theirs]}, the page's model ${DOES[mine]}: nothing to compare step by step (compare two translators, or two decoder-only models on the same prompt)`);
        }
        const answer = await this.#engine.request('open', { url, text: st.s, options, step: target(), forced, replace: this.#snap?.sid });
        if (answer.encoderOnly) throw new Error('an encoder-only model does not translate: there is nothing to compare');
        return answer;
      }, entry);
    } else {
      this.#run(() => {
        const now = this.#snap;
        const step = target();
        const want = step === 'end' ? (now?.done ? null : 'end') : step;
        return !now || want === null || want === now.steps ? null : this.#engine.request('goto', { sid: now.sid, step: want });
      }, entry);
    }
  }

  #run(work, entry) {
    this.#pending++;
    this.#root.dataset.busy = 'true';
    this.#queue = this.#queue.then(async () => {
      try {
        const answer = await work();
        const snap = answer ? this.#steps.apply(answer) : null;
        if (snap) this.#snap = snap;
        this.error.hidden = true;
        this.error.textContent = '';
        if (this.#snap) this.#panes[1].show(entry, this.#info, this.#snap);
        this.#renderForced();
      } catch (e) {
        this.#key = ''; // try again on the next change
        this.error.hidden = false;
        this.error.textContent = `${entry.label}: ${e.message}`;
      } finally {
        if (--this.#pending === 0) this.#root.dataset.busy = 'false';
      }
    });
    return this.#queue;
  }

  /** What differs between the two sides: the interventions apply to the page's model only. */
  #renderNotes(st, entry) {
    const iv = hasInterventions(st.iv);
    this.notes.querySelector('.cv-iv').hidden = !iv;
    this.notes.querySelector('.cv-iv').textContent = iv ? `“Break the model” changes the page's model only: ${entry.label} runs unmodified.` : '';
  }

  /** Forced tokens the other model's vocabulary lacks (the worker forced the others). */
  #renderForced() {
    const asked = this.#store.get().snap?.forced ?? [];
    const done = new Set((this.#snap?.forced ?? []).map((f) => `${f.step}:${f.token}`));
    const missing = asked.filter((f) => !done.has(`${f.step}:${f.token}`));
    const line = this.notes.querySelector('.cv-forced');
    line.hidden = !missing.length;
    const label = missing.length ? labelOf(this.#store.get().snap) : null;
    line.textContent = missing.length ? `Not forced in the other model (not in its vocabulary): ${missing.map((f) => `“${label(f.token)}” at step ${f.step + 1}`).join(', ')}.` : '';
  }

  #close() {
    const sid = this.#snap?.sid;
    this.#key = '';
    this.#snap = null;
    if (sid !== undefined) this.#engine.request('close', { sid }).catch(() => {});
  }
}
