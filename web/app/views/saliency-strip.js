// The saliency strip: the tokens a prediction read, each coloured by its attribution score (blue
// for a positive score, red for a negative one, stronger for a larger |score|), with its sign
// written beside it so that colour is never the only cue. Hover or focus reads a token's value
// out as text. Takes the engine's answer as it is (session.attribution, docs/js-api.md); model
// strings reach the page as text, never as markup. Its only arithmetic is the colour scale: each
// |score| over the largest |score| of the strip.

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);
const signed = (v) => `${v >= 0 ? '+' : '−'}${Math.abs(v).toPrecision(3)}`;

/** Reads the title of the `selector` element under the pointer or focus in `box` out into `detail`, as text. */
export function readOut(box, detail, selector) {
  const show = (e) => {
    const item = e.target.closest?.(selector);
    if (item) detail.textContent = item.title;
  };
  box.addEventListener('mouseover', show);
  box.addEventListener('focusin', show);
}

export class SaliencyStrip {
  #box;
  #detail;

  /** box: where the strip goes; detail: the line that reads out the token under the pointer or focus. */
  constructor(box, detail) {
    this.#box = box;
    this.#detail = detail;
    readOut(box, detail, '[data-score]');
  }

  /**
   * groups: [{name ('source' | 'target' | 'context'), tokens: [text], scores: Float32Array |
   * number[]}] in the order shown; what: the prediction explained, as a phrase.
   */
  set({ groups, what }) {
    let largest = 0;
    for (const g of groups) for (const v of g.scores) largest = Math.max(largest, Math.abs(v));
    const strip = el('div', { className: 'saliency-strip', role: 'list' });
    strip.setAttribute('aria-label', `Attribution of ${what}, per input token`);
    for (const g of groups) {
      if (!g.tokens.length) continue;
      const group = strip.appendChild(el('span', { className: 'saliency-group', role: 'presentation' }));
      group.append(el('span', { className: 'saliency-side muted', textContent: `${g.name}:` }));
      g.tokens.forEach((text, i) => {
        const score = g.scores[i];
        const token = el('span', {
          className: `saliency-token ${score >= 0 ? 'positive' : 'negative'}`,
          tabIndex: 0,
          title: `${g.name} token ${i + 1} “${text}”: ${signed(score)}`,
        });
        token.setAttribute('role', 'listitem');
        token.dataset.score = String(score);
        token.style.setProperty('--s', largest > 0 ? String(Math.abs(score) / largest) : '0');
        token.append(el('span', { className: 'saliency-text', textContent: text }),
          el('sup', { className: 'saliency-sign', textContent: score >= 0 ? '+' : '−' }));
        group.append(token);
      });
    }
    this.#box.replaceChildren(strip);
    this.#detail.textContent = '';
  }

  /** A line instead of the strip (no step yet, or the engine's error). */
  message(text, className = 'placeholder') {
    this.#box.replaceChildren(el('p', { className, textContent: text }));
    this.#detail.textContent = '';
  }
}
