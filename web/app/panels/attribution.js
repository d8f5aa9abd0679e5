// The "What drove this token" card under the attention view: while it is open, asks the worker
// for the attribution of the current step (session.attribution and sentenceAttribution through
// the `attribution` request) whenever the step, the path or the method changes, and draws the
// saliency strip (views/saliency-strip.js) and the attention-vs-attribution grids
// (views/saliency-agreement.js). The contrast token is one of the current step's candidates, the
// logits chart's bars: chosen in the card's menu, or with a bar's "why not?" (contrastWith).
// Closed, it asks nothing: each answer costs the engine a backward pass per
// step (integrated gradients: one per point). While a request runs, the summary says how long it
// should take (the worker's estimate from the engine's count of the work); integrated gradients'
// completeness error is read as a share of the change it explains, and when the engine suggests
// more points, a button asks for them.
import { AgreementGrids } from '../views/saliency-agreement.js';
import { SaliencyStrip } from '../views/saliency-strip.js';
import { labelOf } from '../util/pieces.js';

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
const seconds = (ms) => (ms < 100 ? 'under 0.1 s' : `${(ms / 1000).toFixed(ms < 9500 ? 1 : 0)} s`);

/** "about 2.3 s" of a worker estimate, or what stands for it before the worker timed anything. */
function estimateText(estimateMs) {
  return estimateMs == null ? 'timing this first request to estimate the next ones' : `about ${seconds(estimateMs)}`;
}

/** The completeness of integrated gradients, as words: its share of f − f(baseline) and what to do about it. */
function completenessText(step, steps) {
  const share = Number.isFinite(step.completenessShare) ? `${(100 * step.completenessShare).toFixed(1)}%` : 'all';
  let text = `, completeness error ${step.completenessError.toExponential(2)}: ${share} of the change f − f(baseline)`;
  if (step.suggestedSteps > steps) text += `. The integral needs more points: about ${step.suggestedSteps} would bring it within 5%`;
  else if (step.suggestedSteps > 0) text += `. More points would help, but ${steps} is the most this model and input allow`;
  return text;
}

export class AttributionPanel {
  #root;
  #engine;
  #strip;
  #grids;
  #controls;
  #key = '';
  #last = null; // the latest snapshot, drawn when the card opens or an option changes
  #wanted = null; // the contrast a "why not?" asked for, chosen once the menu offers it

  constructor(root, { engine }) {
    this.#root = root;
    this.#engine = engine;
    this.#strip = new SaliencyStrip(root.querySelector('.saliency-body'), root.querySelector('.saliency-detail'));
    this.#grids = new AgreementGrids(root.querySelector('.agreement-body'), root.querySelector('.agreement-detail'));
    const q = (name) => root.querySelector(`[name="${name}"]`);
    this.#controls = { method: q('attr-method'), steps: q('attr-steps'), baseline: q('attr-baseline'), contrast: q('attr-contrast') };
    const redraw = () => {
      this.#syncControls();
      if (this.#last) this.render(this.#last);
    };
    root.addEventListener('toggle', redraw);
    for (const c of Object.values(this.#controls)) c.addEventListener('change', redraw);
    this.#syncControls();
  }

  #syncControls() {
    const ig = this.#controls.method.value === 'integrated-gradients';
    for (const c of [this.#controls.steps, this.#controls.baseline]) c.closest('label').hidden = !ig;
  }

  // The button that asks for the engine's suggested number of points.
  #moreSteps(steps) {
    const button = el('button', { type: 'button', className: 'attr-more-steps', textContent: `Use ${steps} steps` });
    button.addEventListener('click', () => {
      this.#controls.steps.value = String(steps);
      this.#controls.steps.dispatchEvent(new Event('change'));
    });
    return button;
  }

  /** Opens the card on the current step's token rather than candidate `id` (a bar's "why not?"). */
  contrastWith(id) {
    this.#wanted = String(id);
    this.#root.open = true;
    if (this.#last) this.render(this.#last);
    this.#root.scrollIntoView({ block: 'nearest' });
  }

  // The contrast choices: "none" and the current step's candidates (the logits chart's bars).
  #offerContrasts(row, label) {
    const select = this.#controls.contrast;
    const chosen = this.#wanted ?? select.value;
    this.#wanted = null;
    const options = [el('option', { value: '', textContent: 'none' })];
    for (const a of row?.top ?? []) {
      if (a.id === row.outputId) continue;
      options.push(el('option', { value: String(a.id), textContent: label(a.token) }));
    }
    select.replaceChildren(...options);
    select.value = options.some((o) => o.value === chosen) ? chosen : '';
  }

  /** Draws the attribution of `snap`'s current step (a request when anything it depends on changed). */
  render(snap) {
    this.#last = snap;
    if (!this.#root.open) return;
    const row = snap.rows.at(-1);
    const label = labelOf(snap);
    this.#offerContrasts(row, label);
    const c = this.#controls;
    const options = { method: c.method.value };
    if (options.method === 'integrated-gradients') Object.assign(options, { steps: Number(c.steps.value), baseline: c.baseline.value });
    if (c.contrast.value) options.contrast = Number(c.contrast.value);
    const key = JSON.stringify([snap.sid, snap.path.ids, row?.step, options, document.body.classList.contains('show-pieces')]);
    if (key === this.#key) return;
    this.#key = key;
    if (!row) {
      this.#strip.message('No step yet: press Next (or →).');
      this.#grids.message('');
      this.#root.dataset.step = '';
      return;
    }
    this.#root.dataset.state = 'loading';
    const summary = this.#root.querySelector('.saliency-summary');
    const started = (p) => {
      if (key !== this.#key) return;
      summary.replaceChildren(`Computing ${c.method.selectedOptions[0].textContent}: ${estimateText(p.estimateMs)}…`);
      this.#root.dataset.estimateMs = p.estimateMs == null ? '' : String(Math.round(p.estimateMs));
    };
    this.#engine.request('attribution', { sid: snap.sid, step: row.step, hypothesis: row.expansion, token: row.outputId, options }, started)
      .then(({ step, mean, estimateMs, ms }) => {
        if (key !== this.#key) return;
        const what = `“${label(step.token)}” at step ${step.step + 1}${step.contrast ? ` rather than “${label(step.contrast)}”` : ''}`;
        const groups = snap.input === 'prompt'
          ? [{ name: 'context', tokens: step.targetTokens.map(label), scores: step.targetScores }]
          : [{ name: 'source', tokens: step.sourceTokens.map(label), scores: step.sourceScores },
            { name: 'target', tokens: step.targetTokens.map(label), scores: step.targetScores }];
        this.#strip.set({ groups, what });
        this.#grids.set({ step: step.agreement, mean });
        const ig = step.completenessError !== undefined;
        summary.replaceChildren(`Explains ${what}: f = ${step.f.toFixed(4)}, sum of the scores ${step.sum.toFixed(4)}` +
          (ig ? `, f(baseline) = ${step.fBaseline.toFixed(4)}${completenessText(step, options.steps)}` : '') +
          `. Took ${seconds(ms)}${estimateMs == null ? '' : ` (estimated ${seconds(estimateMs)} before it started)`}.`);
        if (ig && step.suggestedSteps > options.steps) summary.append(' ', this.#moreSteps(step.suggestedSteps));
        Object.assign(this.#root.dataset, { step: String(step.step), state: 'ready' });
      }, (e) => {
        if (key !== this.#key) return;
        summary.replaceChildren();
        this.#strip.message(e.message, 'error');
        this.#grids.message('');
        this.#root.dataset.state = 'error';
      });
  }
}
