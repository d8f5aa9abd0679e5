// The page for encoder-only models (BERT): when the chosen model has nothing to
// translate, the translation panels are hidden and this panel shows, for the form's text (a
// sentence with [MASK]s, or a pair "A [SEP] B"): the fill-mask predictions (mask-panel.js), every
// head's map with its pattern class (pattern-grid.js), the per-layer shares of attention on
// [CLS]/[SEP]/punctuation/previous/next token raw beside norm-weighted (shares-figure.js), and the
// head-ablation map (ablation-map.js): precomputed for a shipped model, computed in the worker for
// pasted sentences; what drove each fill (mask-attribution.js); and its Analyses card
// (encoder-analyses.js). The study, the masks and the
// analyses are of the model as "Break the model" left it (heads switched off, sub-layers skipped).
// Every number comes from the worker (model.headStudy, fillMask, textAnalysis, headAblation).
import { ablationUrl } from '../../models.js';
import { AblationMap, loadAblationFile } from '../views/ablation-map.js';
import { byId as $ } from '../util/html.js';
import { describeInterventions } from './interventions.js';
import { EncoderAnalyses } from './encoder-analyses.js';
import { hasInterventions } from '../state/state.js';
import { MaskAttribution } from './mask-attribution.js';
import { renderMasks } from './mask-panel.js';
import { PatternGrid } from '../views/pattern-grid.js';
import { renderShares } from '../views/shares-figure.js';

export class EncoderPage {
  #root;
  #engine;
  #showError;
  #grid;
  #ablation;
  #current = null; // {url, entry}
  #shown = { study: null, ablation: null, ablationSource: null };
  #queue = Promise.resolve();
  #analyses;
  #modified;
  #attribution;

  /** root: the #encoder section; engine: the worker's client; showError(e). */
  constructor(root, { engine, showError }) {
    this.#root = root;
    this.#engine = engine;
    this.#showError = showError;
    this.#grid = new PatternGrid($('enc-grid'));
    this.#ablation = new AblationMap($('enc-ablation'));
    this.#analyses = new EncoderAnalyses($('enc-analyses'), { engine });
    this.#attribution = new MaskAttribution($('enc-attribution'), { engine });
    // What "Break the model" switched off, said above the guesses it changed.
    this.#modified = Object.assign(document.createElement('p'), { id: 'enc-modified', className: 'enc-modified', hidden: true });
    $('enc-masks').before(this.#modified);
    $('enc-run').addEventListener('click', () => this.#runAblation());
    $('enc-sentences').addEventListener('input', () => this.#countSentences());
  }

  /** Whether the encoder-only panel is showing. */
  get active() { return !this.#root.hidden; }

  /**
   * What is on screen, for tests: {study, ablation, ablationSource: 'precomputed' | 'live',
   * analysis, factor (the Analyses card's)}.
   */
  get shown() { return { ...this.#shown, ...this.#analyses.shown }; }

  /** Resolves once everything asked so far is drawn. */
  idle() { return this.#queue; }

  /**
   * An encoder-only model was chosen (or its text or interventions changed): {url, text, info,
   * entry, iv (the interventions, fitted to the model)}. Resolves with the study once drawn;
   * rejects with the engine's error (interventions it refuses), leaving what was shown.
   */
  show({ url, text, info, entry, iv = { attention: [], maskHeads: [], skip: [] } }) {
    this.#enter();
    const modelChanged = this.#current?.url !== url;
    this.#current = { url, entry, info };
    $('enc-model').textContent = entry?.label ?? info.name ?? url;
    return this.#then(async () => {
      const study = await this.#engine.request('encoderStudy', { url, text, interventions: iv });
      if (this.#current?.url !== url) return study;
      await this.#analyses.show({ url, text, iv, info });
      this.#modified.hidden = !hasInterventions(iv);
      this.#modified.textContent = hasInterventions(iv)
        ? `Modified model: ${describeInterventions(iv, info.sites).map((d) => d.text).join('; ')}.` : '';
      renderMasks($('enc-masks'), study);
      this.#attribution.show({ url, text, modified: hasInterventions(iv) });
      this.#grid.set({ tokens: study.tokens, attention: study.attention, patterns: study.patterns, label: info.sites[0]?.label });
      renderShares($('enc-shares'), study.shares);
      this.#shown.study = study;
      this.#root.dataset.tokens = study.tokens.length;
      if (modelChanged) await this.#showPrecomputed(entry);
      this.#root.dataset.renders = Number(this.#root.dataset.renders ?? 0) + 1; // (tests wait for it)
      return study;
    }, { rethrow: true });
  }

  /** Back to a translation model: the translation panels return. */
  hide() {
    if (this.#root.hidden) return;
    this.#root.hidden = true;
    $('app').classList.remove('encoder-only');
    this.#current = null;
    this.#shown = { study: null, ablation: null, ablationSource: null };
    this.#analyses.hide();
  }

  // The form's words are the page's words for the model's kind (prompt-mode.js renderInputKind).
  #enter() {
    if (!this.#root.hidden) return;
    this.#root.hidden = false;
    $('app').classList.add('encoder-only');
  }

  /** Runs `work` after what was asked before; its error is shown, or with `rethrow` the caller's. */
  #then(work, { rethrow = false } = {}) {
    const done = this.#queue.then(work);
    this.#queue = done.catch((e) => { if (!rethrow) this.#showError(e); });
    return rethrow ? done : this.#queue;
  }

  async #showPrecomputed(entry) {
    const url = ablationUrl(entry);
    if (!url) {
      this.#shown.ablation = null;
      this.#ablation.clear('No precomputed map for this model: paste sentences below and compute one.');
      return;
    }
    const { ablation, meta } = await loadAblationFile(url);
    this.#shown.ablation = ablation;
    this.#shown.ablationSource = 'precomputed';
    this.#ablation.show(ablation, `Precomputed for this model on ${meta.data} (${meta.command}).`);
  }

  #sentences() {
    return $('enc-sentences').value.split('\n').map((s) => s.trim()).filter(Boolean);
  }

  #countSentences() {
    const n = this.#sentences().length;
    $('enc-count').textContent = `${n} sentence${n === 1 ? '' : 's'}`;
  }

  #runAblation() {
    const current = this.#current;
    if (!current) return;
    const sentences = this.#sentences();
    const bar = $('enc-progress-bar');
    $('enc-run').disabled = true;
    $('enc-progress').hidden = false;
    bar.value = 0;
    return this.#then(async () => {
      try {
        const ablation = await this.#engine.request('ablation', { url: current.url, sentences }, ({ done, total }) => {
          bar.max = total;
          bar.value = done;
          $('enc-progress-text').textContent = `${done} of ${total} heads switched off so far`;
        });
        if (this.#current?.url !== current.url) return;
        this.#shown.ablation = ablation;
        this.#shown.ablationSource = 'live';
        this.#ablation.show(ablation, `Computed here on your ${ablation.sentences} sentence${ablation.sentences === 1 ? '' : 's'}.`);
      } finally {
        $('enc-run').disabled = false;
        $('enc-progress').hidden = true;
      }
    });
  }
}
