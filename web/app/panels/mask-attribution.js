// The "What drove each fill" card of the encoder-only page: for every [MASK], the saliency strip
// of its best piece over the input (views/saliency-strip.js), from the engine's
// model.maskAttribution, and the score it explains. Closed, it asks nothing (each answer costs a
// backward pass per mask; integrated gradients one per point). Attribution explains the model as
// trained: while "Break the model" changes it, the card says so instead of explaining another model.
import { SaliencyStrip } from '../views/saliency-strip.js';

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);

const STEPS = 32; // the points of this card's integrated gradients

// Integrated gradients' completeness error as a share of the change it explains, and the points
// the engine suggests when that share is large.
function completeness(a) {
  const share = Number.isFinite(a.completenessShare) ? `${(100 * a.completenessShare).toFixed(1)}%` : 'all';
  return `, completeness error ${a.completenessError.toExponential(2)}: ${share} of the change from the baseline` +
    (a.suggestedSteps > STEPS ? ` (rough: about ${a.suggestedSteps} points would bring it within 5%)` : '');
}

export class MaskAttribution {
  #root;
  #engine;
  #body;
  #method;
  #asked = null; // {url, text, modified} of the text shown
  #key = '';

  /** root: the <details> card (a [name="mask-attr-method"] select and a .mask-attr-body inside). */
  constructor(root, { engine }) {
    this.#root = root;
    this.#engine = engine;
    this.#body = root.querySelector('.mask-attr-body');
    this.#method = root.querySelector('[name="mask-attr-method"]');
    const redraw = () => this.#draw();
    root.addEventListener('toggle', redraw);
    this.#method.addEventListener('change', redraw);
  }

  /** The text now shown: {url, text, modified (whether interventions change the model)}. */
  show({ url, text, modified }) {
    this.#asked = { url, text, modified };
    return this.#draw();
  }

  #message(text, className = 'placeholder') {
    this.#body.replaceChildren(el('p', { className, textContent: text }));
  }

  async #draw() {
    if (!this.#root.open || !this.#asked) return;
    const { url, text, modified } = this.#asked;
    const options = { method: this.#method.value };
    if (options.method === 'integrated-gradients') options.steps = STEPS;
    const key = JSON.stringify([url, text, modified, options]);
    if (key === this.#key) return;
    this.#key = key;
    if (modified) {
      this.#root.dataset.state = 'modified';
      this.#message('Attribution explains the model as trained: switch off “Break the model” to see it.');
      return;
    }
    this.#root.dataset.state = 'loading';
    try {
      const rows = await this.#engine.request('maskAttribution', { url, text, options });
      if (key !== this.#key) return;
      if (!rows.length) {
        this.#message('No [MASK] in the text: nothing to explain.');
      } else {
        this.#body.replaceChildren(...rows.map((a, k) => this.#figure(a, k)));
      }
      Object.assign(this.#root.dataset, { state: 'ready', method: options.method });
    } catch (e) {
      if (key !== this.#key) return;
      this.#message(e.message, 'error');
      this.#root.dataset.state = 'error';
    }
  }

  #figure(a, k) {
    const fig = el('figure', { className: 'mask-attr' });
    fig.dataset.position = a.step;
    const what = `“${a.token}” in [MASK] #${k + 1} (position ${a.step})`;
    fig.append(el('figcaption', {
      textContent: `${what}: log p = ${a.f.toFixed(4)}, sum of the scores ${a.sum.toFixed(4)}` +
        (a.completenessError !== undefined ? completeness(a) : ''),
    }));
    const box = fig.appendChild(el('div'));
    const detail = el('p', { className: 'saliency-detail caption', ariaLive: 'polite' });
    fig.append(detail);
    new SaliencyStrip(box, detail).set({ groups: [{ name: 'input', tokens: a.sourceTokens, scores: a.sourceScores }], what });
    return fig;
  }
}
