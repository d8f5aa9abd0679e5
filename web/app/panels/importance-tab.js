// The "Head importance" tab of the Analyses card: the sweep shipped with the selected model
// (web/models.js `heads`, computed by models/head_sweep.py with the CLI), and a sweep run here
// (Model.headImportance, optionally with Δ BLEU) on the toy grammar's pairs or on pasted / loaded
// ones, with a progress bar: split over a pool of workers (web/app/worker/sweep-pool.js), one per core,
// started at the first sweep and kept; a model trained in the page lives only in the page's
// engine worker and is swept there. Drawing: web/app/views/head-importance.js.
import { SweepView, loadSweepFile } from '../views/head-importance.js';
import { SweepPool } from '../worker/sweep-pool.js';
import { TRAINED_PREFIX } from '../state/trained.js';
import { findModel, headsUrl, modelUrl } from '../../models.js';
import { counted } from '../util/html.js';

/**
 * The toy model's dev set, generated from its grammar (README, models/README.md): subject i/we
 * → ich/wir, an optional modal (can → konnen, want to → mochten), a verb and one of its objects.
 * German order: subject, modal, object, verb with a modal; else subject, verb, object.
 */
export function toyDevSet() {
  const subjects = [['i', 'ich'], ['we', 'wir']];
  const modals = [null, ['can', 'konnen'], ['want to', 'mochten']];
  const verbs = [
    ['eat', 'essen', [['bread', 'brot'], ['apple', 'apfel']]],
    ['drink', 'trinken', [['water', 'wasser'], ['beer', 'bier']]],
    ['read', 'lesen', [['book', 'buch'], ['newspaper', 'zeitung']]],
  ];
  const pairs = [];
  for (const [se, sd] of subjects) {
    for (const modal of modals) {
      for (const [ve, vd, objects] of verbs) {
        for (const [oe, od] of objects) {
          pairs.push(modal
            ? [`${se} ${modal[0]} ${ve} ${oe}`, `${sd} ${modal[1]} ${od} ${vd}`]
            : [`${se} ${ve} ${oe}`, `${sd} ${vd} ${od}`]);
        }
      }
    }
  }
  return pairs;
}

const isToy = (id) => /^toy-en-de(-epoch\d+)?$/.test(id);

/** "source<TAB>reference" lines (blank lines and lines without a tab are skipped). */
export function parsePairs(text) {
  return text.split(/\r?\n/).map((l) => l.split('\t')).filter((p) => p.length >= 2 && p[0].trim() && p[1].trim())
    .map(([a, b]) => [a.trim(), b.trim()]);
}

/** What a precomputed sweep was computed on and how, from its file. */
function precomputedCaption(result, meta) {
  const p = document.createElement('span');
  const bleu = Number.isFinite(result.baseBleu) ? `BLEU ${result.baseBleu.toFixed(2)} (greedy), ` : '';
  p.append(`Computed by the engine on ${meta.data ?? 'a dev set'}${meta.sentences ? ` (${counted(meta.sentences, 'pair')}, ${counted(result.tokens, 'reference token')})` : ''}`
    + `${meta.model ? ` for ${meta.model}` : ''}. With nothing masked: ${bleu}log-likelihood ${result.baseLogLikelihood.toFixed(4)} per token. `
    + 'Each cell: the change when that head alone is masked (negative = the model needs the head). Command: ');
  p.append(Object.assign(document.createElement('code'), { textContent: meta.command ?? '?' }));
  if (Number.isFinite(meta.seconds)) p.append(` (${Math.round(meta.seconds)} s).`);
  return p;
}


function showError(where, e) {
  where.innerHTML = '<p class="error"></p>';
  where.firstChild.textContent = e.message;
}

export class ImportanceTab {
  #el;
  #o;
  #st = null;
  #ran = null; // {model, result}: the last sweep run here
  #sweep = null; // its SweepView
  #precomputed = new Map(); // url of a models/analysis/*.heads.json -> promise of its contents
  #preShown = null; // the url the precomputed view shows
  #preView = null;
  #running = false;
  #devFor = null;
  #pool = null; // the sweep's workers (SweepPool), from the first sweep on

  /** `el`: the tab's pane (#an-importance); opts: engine, state() (the page state), sites() (the model's site table). */
  constructor(el, opts) {
    this.#el = el;
    this.#o = opts;
    const $ = (sel) => el.querySelector(sel);
    this.$ = $;
    $('#hi-run').addEventListener('click', () => this.#run());
    $('#hi-file').addEventListener('change', async () => {
      const f = $('#hi-file').files[0];
      if (f) $('#hi-pairs').value = await f.text();
      this.#countPairs();
    });
    $('#hi-pairs').addEventListener('input', () => this.#countPairs());
    $('#hi-generate').addEventListener('click', () => { $('#hi-pairs').value = toyDevSet().map((p) => p.join('\t')).join('\n'); this.#countPairs(); });
  }

  /** Starts fetching the model's precomputed sweep (if any) when the model is picked, whichever tab is open, so the offline cache keeps it with the model. */
  prefetch(modelId) {
    const url = headsUrl(findModel(modelId));
    if (url) this.#precomputedOf(url);
  }

  #countPairs() {
    const n = parsePairs(this.$('#hi-pairs').value).length;
    this.$('#hi-count').textContent = counted(n, 'pair');
    this.$('#hi-run').disabled = this.#running || n === 0;
  }

  /** Shows the tab for the page state `st` (its model decides the dev set and the precomputed sweep). */
  render(st) {
    this.#st = st;
    const $ = this.$;
    if (this.#devFor !== st.model) {
      this.#devFor = st.model;
      const toy = isToy(st.model);
      $('#hi-generate').hidden = !toy;
      $('#hi-pairs').value = toy ? toyDevSet().map((p) => p.join('\t')).join('\n') : '';
      $('#hi-devnote').textContent = toy
        ? 'Dev set: the toy grammar’s 36 sentence pairs, generated by the page (edit them if you like).'
        : 'Paste a dev set, one “input<TAB>reference output” pair per line (an input and the output the model should give), or load a file (e.g. 100 validation sentences).';
      this.#countPairs();
      if (this.#ran?.model !== st.model) $('#hi-results').replaceChildren();
    }
    this.#renderPrecomputed();
  }

  #precomputedOf(url) {
    if (!this.#precomputed.has(url)) {
      const p = loadSweepFile(url);
      p.catch(() => this.#precomputed.delete(url)); // a failed fetch is tried again next time
      this.#precomputed.set(url, p);
    }
    return this.#precomputed.get(url);
  }

  /** The sweep shipped with the selected model (web/models.js `heads`), drawn without running anything. */
  async #renderPrecomputed() {
    const entry = findModel(this.#st.model);
    const url = headsUrl(entry);
    const section = this.$('#hi-precomputed');
    section.hidden = !url;
    this.$('#hi-own-title').hidden = !url;
    if (!url || this.#preShown === url) return;
    this.#preShown = url;
    const box = this.$('#pre-results');
    section.dataset.state = 'loading';
    box.innerHTML = '<p class="placeholder">Loading the precomputed sweep…</p>';
    try {
      const { result, meta } = await this.#precomputedOf(url);
      if (this.#preShown !== url) return;
      this.#preView ??= new SweepView(box, 'pre');
      this.#preView.show(result, precomputedCaption(result, meta), this.#o.sites?.() ?? []);
      section.dataset.state = 'done';
      section.dataset.model = entry.id;
    } catch (e) {
      if (this.#preShown !== url) return;
      this.#preShown = null;
      section.dataset.state = 'error';
      showError(box, e);
    }
  }

  async #run() {
    const $ = this.$;
    const pairs = parsePairs($('#hi-pairs').value);
    if (!pairs.length || this.#running) return;
    const st = this.#o.state();
    const url = modelUrl(findModel(st.model));
    const pane = this.#el;
    this.#running = true;
    pane.dataset.state = 'running';
    $('#hi-run').disabled = true;
    const bar = $('#hi-progress');
    $('#hi-progress-box').hidden = false;
    bar.value = 0;
    $('#hi-progress-text').textContent = 'Starting…';
    try {
      const bleu = $('#hi-bleu').checked;
      const onProgress = ({ done, total }) => {
        bar.max = total;
        bar.value = done;
        $('#hi-progress-text').textContent = `${done} of ${total} heads masked`;
      };
      const result = url.startsWith(TRAINED_PREFIX)
        ? await this.#o.engine.request('importance', { url, pairs, bleu }, onProgress)
        : await (this.#pool ??= new SweepPool()).importance({ url, pairs, bleu }, onProgress);
      this.#ran = { model: st.model, result };
      this.#sweep ??= new SweepView($('#hi-results'), 'hi');
      this.#sweep.show(result, `${counted(pairs.length, 'pair')}, ${counted(result.tokens, 'reference token')}; with nothing masked: log-likelihood `
        + `${result.baseLogLikelihood.toPrecision(4)} per token${Number.isFinite(result.baseBleu) ? `, BLEU ${result.baseBleu.toFixed(2)}` : ''}. `
        + 'Each cell: how much that changes when that head alone is masked (negative = the model needs the head).', this.#o.sites?.() ?? []);
      pane.dataset.state = 'done';
    } catch (e) {
      pane.dataset.state = 'error';
      showError($('#hi-results'), e);
    } finally {
      this.#running = false;
      this.#countPairs();
    }
  }
}
