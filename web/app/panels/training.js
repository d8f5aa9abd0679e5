// The Training panel: sentence pairs (the toy grammar's 36 by default, editable), an architecture
// (one of the presets each model family registers in the engine, which the worker hands over:
// web/attnscope.js trainingPresets, state/trained.js) and its knobs within the browser-safe
// limits of web/attnscope.js (TRAIN_LIMITS), Train / Pause / One epoch / Start over at full or
// classroom speed, the loss curve, the exact-match count, one sentence's cross-attention after
// every epoch (the heatmap view: tokens + a tensor) with a timeline to scrub back through the run,
// and the trained weights as a download. Below them, the induction-heads preset (induction.js).
// Training runs in the engine's worker (web/app/worker/worker-training.js); when it stops, onTrained(id,
// pairs) hands the model's name (web/app/state/trained.js) to the page, whose views then use it.
import { TRAIN_LIMITS } from '../../attnscope.js';
import { Heatmap } from '../views/heatmap.js';
import { counted } from '../util/html.js';
import { InductionPanel } from './induction.js';
import { drawLossCurve } from '../views/loss-curve.js';
import { DEFAULT_PAIRS_URL, normalizePairs, parseTrainedId, presetOf } from '../state/trained.js';
import { noteTrainingPresets } from '../../models.js';

/** A link may name a training run; a longer one than this waits for the reader to start it. */
export const LINK_EPOCHS_WITHOUT_ASKING = 200;
/** The classroom speed: one epoch at a time, each shown for at least this long. */
const SLOW_EPOCH_MS = 250;

const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));

/**
 * The problems of a pairs text, one message per bad line ("line 3: …"), as the engine would
 * refuse them (one comma per line, both sides non-empty) and within TRAIN_LIMITS.
 */
export function pairProblems(text) {
  const problems = [];
  let count = 0;
  String(text).split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    count++;
    const commas = line.split(',').length - 1;
    if (commas !== 1) {
      problems.push(`line ${i + 1}: “${line}” needs exactly one comma between source and target (it has ${commas})`);
      return;
    }
    const [source, target] = line.split(',').map((x) => x.trim());
    if (!source || !target) problems.push(`line ${i + 1}: “${line}” has an empty ${source ? 'target' : 'source'}`);
    else if (source.length > TRAIN_LIMITS.pairLength || target.length > TRAIN_LIMITS.pairLength) {
      problems.push(`line ${i + 1}: a side is longer than ${TRAIN_LIMITS.pairLength} characters`);
    }
  });
  if (count === 0) problems.push('no sentence pairs: write one “source,target” per line');
  if (count > TRAIN_LIMITS.pairs) problems.push(`${count} pairs are more than the ${TRAIN_LIMITS.pairs} a browser trains on (use attnscope-cli train)`);
  return { problems, count };
}

export class TrainingPanel {
  #o;
  #root;
  #defaultPairs = null; // promise of the toy grammar's normalized text
  #history = [];        // epoch reports as the worker sent them (epoch 0: before training)
  #key = null;          // the pairs and options of the trainer the worker holds
  #training = false;
  #id = null;           // the name of the last model training registered
  #map = null;
  #pausing = false;     // Pause pressed during a classroom-speed run
  #presets;             // promise of the engine's training presets (the architecture picker's)

  /** root: the panel's element; engine: the worker's client; onTrained(id, pairs|null). */
  constructor(root, { engine, onTrained }) {
    this.#o = { engine, onTrained };
    this.#root = root;
    this.$('#tr-train').addEventListener('click', () => this.train());
    this.$('#tr-step').addEventListener('click', () => this.oneEpoch());
    this.$('#tr-pause').addEventListener('click', () => this.pause());
    this.$('#tr-reset').addEventListener('click', () => this.reset());
    this.$('#tr-download').addEventListener('click', () => this.download());
    this.$('#tr-pairs').addEventListener('input', () => this.#checkPairs());
    this.$('#tr-sentence').addEventListener('change', () => this.#watch());
    const arch = this.$('#tr-arch');
    this.#presets = engine.request('trainingPresets').then((presets) => {
      noteTrainingPresets(presets); // a trained model's name may name one
      arch.replaceChildren(...presets.map(({ id, label }) => new Option(label, id)));
      const lr = this.$('#tr-lr');
      if (lr.value === lr.defaultValue) lr.value = String(presets[0].proposedLr); // unless the reader wrote one
      this.#archChanged(presets);
      return presets;
    });
    this.#presets.catch((e) => this.#error(e.message));
    arch.addEventListener('change', async () => {
      // A learning rate the panel proposed follows the architecture; one the reader wrote stays.
      const lr = this.$('#tr-lr');
      const presets = await this.#presets;
      if (presets.some((p) => p.proposedLr === Number(lr.value))) lr.value = String(this.#preset(presets).proposedLr);
      this.#archChanged(presets);
    });
    this.$('#tr-timeline').addEventListener('input', () => this.#drawMap(this.#history[Number(this.$('#tr-timeline').value)]));
    this.$('#tr-confirm-go').addEventListener('click', () => this.#answerLink(true));
    this.$('#tr-confirm-no').addEventListener('click', () => this.#answerLink(false));
    this.#render(); // the empty curve and map: what will be drawn there
    this.induction = new InductionPanel(this.$('#induction'), { engine }); // the induction-heads preset
  }

  $(selector) { return this.#root.querySelector(selector); }

  /** The toy grammar's pairs (the shipped copy of the tests' CSV), fetched once. */
  defaultPairs() {
    this.#defaultPairs ??= fetch(DEFAULT_PAIRS_URL).then((r) => {
      if (!r.ok) throw new Error(`cannot fetch the toy grammar's pairs: HTTP ${r.status}`);
      return r.text();
    }).then(normalizePairs);
    return this.#defaultPairs;
  }

  /** Fills the pairs box with the toy grammar (unless it has text). */
  async start() {
    try {
      const pairs = await this.defaultPairs();
      if (!this.$('#tr-pairs').value.trim()) this.$('#tr-pairs').value = pairs;
      this.#checkPairs();
    } catch (e) {
      this.#error(e.message);
    }
  }

  /**
   * Trains the model a link names (`id`, trained:…; `pairs`: its pairs, null for the toy grammar)
   * again, to the same number of epochs; resolves to the name training registered (null on error).
   */
  async restore(id, pairs) {
    let presets;
    try {
      presets = await this.#presets;
      this.$('#tr-pairs').value = pairs ?? await this.defaultPairs();
    } catch (e) {
      this.#error(e.message);
      return null;
    }
    const recipe = parseTrainedId(id, presets);
    this.$('#tr-arch').value = recipe.arch ?? presets[0].id;
    this.#archChanged(presets);
    for (const [sel, v] of [['#tr-layers', recipe.layers], ['#tr-heads', recipe.heads], ['#tr-dmodel', recipe.dModel],
      ['#tr-epochs', Math.max(1, recipe.epochs)], ['#tr-lr', recipe.lr], ['#tr-seed', recipe.seed]]) this.$(sel).value = String(v);
    if (recipe.epochs > LINK_EPOCHS_WITHOUT_ASKING && !await this.#askLink(recipe.epochs)) return null;
    return this.#run(recipe.epochs, false);
  }

  /** Trains until the Epochs knob (or every pair is exact, when ticked). */
  train() {
    const target = this.#int('#tr-epochs', 'Epochs', 1, 100_000);
    if (target === null) return null;
    return this.#run(target, this.$('#tr-stop').checked);
  }

  /** One more epoch. */
  async oneEpoch() {
    const setup = await this.#setup();
    if (!setup) return null;
    const done = this.#key === setup.key ? (this.#history.at(-1)?.epoch ?? 0) : 0;
    return this.#run(done + 1, false);
  }

  /** Stops after the epoch running now (Train or One epoch continues from there). */
  pause() {
    this.#pausing = true;
    return this.#o.engine.request('trainPause');
  }

  /** Forgets the trainer: the next Train starts from random weights again. */
  async reset() {
    if (this.#training) return;
    await this.#o.engine.request('trainReset');
    this.#key = null;
    this.#history = [];
    this.#render();
  }

  /** The current weights as a .safetensors download. */
  async download() {
    try {
      const bytes = await this.#o.engine.request('trainExport');
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      a.download = `attnscope-${(this.#id ?? 'trained').replace(/[^\w.-]+/g, '-')}.safetensors`;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    } catch (e) {
      this.#error(e.message);
    }
  }

  /** The sentence whose attention the panel draws. */
  get sentence() { return this.$('#tr-sentence').value.trim() || 'i can eat apple'; }

  /** For tests and the curious: every epoch's report (attention as the engine returned it). */
  snapshot() {
    return { history: this.#history, training: this.#training, id: this.#id };
  }

  // ------------------------------------------------------------------------------ internals

  #error(message) {
    const box = this.$('#tr-error');
    box.hidden = !message;
    box.textContent = message ?? ''; // text, never HTML: the pairs are the reader's
  }

  /** The picked one of the engine's presets. */
  #preset(presets) { return presetOf(presets, this.$('#tr-arch').value); }

  /** A model without heads has its knob off; the width knob has the preset's name. */
  #archChanged(presets) {
    const preset = this.#preset(presets);
    this.$('#tr-heads').disabled = !preset.heads;
    this.$('#tr-dmodel-name').textContent = preset.widthLabel;
  }

  #linkAnswer = null;   // resolves the question a long link-started run asks

  /** Shows the question "this link trains N epochs" and resolves to the reader's answer. */
  #askLink(epochs) {
    const box = this.$('#tr-confirm');
    box.querySelector('span').textContent = `This link trains a model for ${counted(epochs, 'epoch')}, which can take minutes to hours `
      + 'in this tab. Start it?';
    box.hidden = false;
    box.scrollIntoView({ block: 'center' }); // the question is the page's first business
    return new Promise((resolve) => { this.#linkAnswer = resolve; });
  }

  #answerLink(yes) {
    this.$('#tr-confirm').hidden = true;
    this.#linkAnswer?.(yes);
    this.#linkAnswer = null;
    if (!yes) this.#error('The link\'s model was not trained: press Train to train it, or pick another model above.');
  }

  #checkPairs() {
    const { problems, count } = pairProblems(this.$('#tr-pairs').value);
    this.$('#tr-pairs-count').textContent = `${count} pair${count === 1 ? '' : 's'}`;
    this.#error(problems.length ? problems.slice(0, 5).join('\n') + (problems.length > 5 ? `\n… and ${problems.length - 5} more` : '') : null);
    return problems.length === 0;
  }

  #int(selector, name, low, high) {
    const v = Number(this.$(selector).value);
    if (Number.isInteger(v) && v >= low && v <= high) return v;
    this.#error(`${name} must be a whole number from ${low} to ${high}`);
    return null;
  }

  /** The pairs and options of the knobs, checked; null (and the reason shown) when not valid. */
  async #setup() {
    if (!this.#checkPairs()) return null;
    let presets;
    try {
      presets = await this.#presets;
    } catch (e) {
      this.#error(e.message);
      return null;
    }
    const [layersLow, layersHigh] = TRAIN_LIMITS.layers;
    const [headsLow, headsHigh] = TRAIN_LIMITS.heads;
    const [dLow, dHigh] = TRAIN_LIMITS.dModel;
    const preset = this.#preset(presets);
    const layers = this.#int('#tr-layers', 'Layers', layersLow, layersHigh);
    const heads = layers === null ? null : preset.heads ? this.#int('#tr-heads', 'Heads', headsLow, headsHigh) : 1;
    const dModel = heads === null ? null : this.#int('#tr-dmodel', preset.widthLabel, dLow, dHigh);
    const seed = dModel === null ? null : this.#int('#tr-seed', 'Seed', 0, Number.MAX_SAFE_INTEGER);
    if (seed === null) return null;
    if (dModel % heads !== 0) {
      this.#error(`${preset.widthLabel} ${dModel} must be divisible by the number of heads (${heads})`);
      return null;
    }
    const lr = Number(this.$('#tr-lr').value);
    if (!(lr > 0 && lr <= 1)) {
      this.#error('The learning rate must be a number above 0 and at most 1');
      return null;
    }
    const pairs = normalizePairs(this.$('#tr-pairs').value);
    let custom = true;
    try {
      custom = pairs !== await this.defaultPairs();
    } catch { /* no toy grammar to compare with: these pairs are the reader's */ }
    // The first preset stays unnamed in the recipe, as in its name (state/trained.js).
    const recipe = { layers, heads, dModel, seed, lr, ...(preset === presets[0] ? {} : { arch: preset.id }) };
    return { pairs, recipe, custom, key: JSON.stringify([pairs, recipe]) };
  }

  #buttons() {
    const t = this.#training;
    this.#root.dataset.training = String(t);
    for (const id of ['#tr-train', '#tr-step', '#tr-reset']) this.$(id).disabled = t;
    this.$('#tr-pause').disabled = !t;
    this.$('#tr-download').disabled = t || this.#key === null || !this.#history.some((r) => r.epoch > 0);
  }

  async #run(target, stopAtExact) {
    if (this.#training) return null;
    const setup = await this.#setup();
    if (!setup) return null;
    this.#error(null);
    this.#training = true;
    this.#pausing = false;
    this.#buttons();
    const train = (epochs, stop) => this.#o.engine.request('train', {
      pairs: setup.pairs, recipe: setup.recipe, custom: setup.custom, epochs, stopAtExact: stop, sentence: this.sentence,
    }, (report) => {
      if (report.epoch === 0) this.#history = [];
      this.#key = setup.key;
      this.#history.push(report);
      this.#render();
    });
    try {
      let result;
      if (this.$('#tr-speed').value !== 'slow') {
        result = await train(target, stopAtExact);
      } else {
        // Classroom speed: one epoch a request, each drawn and held on screen before the next.
        do {
          const done = this.#key === setup.key ? (this.#history.at(-1)?.epoch ?? 0) : 0;
          const shown = Promise.all([nextFrame(), new Promise((r) => setTimeout(r, SLOW_EPOCH_MS))]);
          result = await train(Math.min(target, done + 1), false);
          await shown;
          await nextFrame();
        } while (result.epochs < target && !this.#pausing && !(stopAtExact && result.exact === result.total));
      }
      this.#id = result.id;
      this.#o.onTrained?.(result.id, setup.custom ? setup.pairs : null);
      return result.id;
    } catch (e) {
      this.#error(e.message);
      return null;
    } finally {
      this.#training = false;
      this.#buttons();
    }
  }

  /** Another watched sentence: its attention under the current weights (the next epoch redraws it too). */
  async #watch() {
    const last = this.#history.at(-1);
    if (this.#training || !last || last.epoch === 0) return;
    let attention;
    try {
      attention = await this.#o.engine.request('trainAttention', { sentence: this.sentence });
    } catch (e) {
      attention = { error: e.message };
    }
    if (this.#history.at(-1) === last && !this.#training) this.#drawMap({ ...last, attention });
  }

  #render() {
    const last = this.#history.at(-1);
    this.#root.dataset.epoch = String(last?.epoch ?? 0);
    this.$('#tr-epoch').textContent = String(last?.epoch ?? 0);
    this.$('#tr-loss').textContent = last?.loss == null ? '–' : last.loss.toFixed(4);
    this.$('#tr-exact').textContent = last?.exact == null ? '–' : `${last.exact}/${last.total}`;
    this.#root.dataset.exact = last?.exact == null ? '' : `${last.exact}/${last.total}`;
    drawLossCurve(this.$('#tr-curve'), this.#history.filter((r) => r.epoch > 0));
    // The timeline follows the run; afterwards it scrubs back through every epoch's map.
    const timeline = this.$('#tr-timeline');
    timeline.max = String(Math.max(0, this.#history.length - 1));
    timeline.value = timeline.max;
    timeline.disabled = this.#history.length < 2;
    this.#drawMap(last);
    this.#buttons();
  }

  #drawMap(report) {
    const body = this.$('#tr-map');
    this.$('#tr-map-epoch').textContent = String(report?.epoch ?? 0);
    this.$('#tr-timeline').setAttribute('aria-valuetext', `epoch ${report?.epoch ?? 0}`);
    const a = report?.attention;
    if (!a || a.error) {
      this.#map = null;
      const p = document.createElement('p');
      p.className = a?.error ? 'error' : 'muted';
      p.textContent = a?.error ?? 'Train to see the attention.';
      body.replaceChildren(p);
      this.$('#tr-output').textContent = '';
      return;
    }
    if (!this.#map || !body.contains(this.#map.root)) {
      body.replaceChildren();
      this.#map = new Heatmap(body);
      this.#map.root.id = 'tr-heatmap';
    }
    const source = a.source.pieces;
    body.dataset.source = source.join(' '); // which sentence is drawn (for tests and tools)
    this.$('#tr-output').textContent = a.text || a.tokens.join(' ');
    // Layer 1, head 1: the first `source` values of each step's [layers, heads, source] tensor.
    this.#map.set({
      values: a.attention.map((d) => d.subarray(0, source.length)),
      rowLabels: a.tokens.map((t, k) => `${k + 1}) ${t}`), colLabels: source, highlightRow: -1, maxCell: 36,
      describe: (row, c) => `Epoch ${report.epoch}: step ${row + 1}, producing “${a.tokens[row]}”, attends to “${source[c]}”`,
      ariaLabel: `${a.site.label} after epoch ${report.epoch}, layer 1, head 1`,
    });
  }
}
