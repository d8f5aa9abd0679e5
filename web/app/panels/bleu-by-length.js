// The "BLEU by sentence length" card: the shipped Multi30k translators side by side — the
// transformer, the RNN with Bahdanau attention and its twin without attention — over bins of
// source length, from models/analysis/bleu-by-length.json (precomputed by the engine's CLI:
// models/evaluation/bleu_by_length_models.py). Fetched when the card first comes into view.
import { drawBleuLengthChart } from '../views/bleu-length-chart.js';

const DATA = new URL('../../../models/analysis/bleu-by-length.json', import.meta.url);

export class BleuByLengthPanel {
  #el;
  #loading = null;

  /** `el`: the card (#bleu-length); its `.bl-body` receives the chart. */
  constructor(el) {
    this.#el = el;
    if (typeof IntersectionObserver === 'function') {
      const seen = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) { seen.disconnect(); this.load(); }
      }, { rootMargin: '200px' });
      seen.observe(el);
    } else {
      this.load();
    }
  }

  /** Fetches the figures once and draws them; the card's data-state says where it stands. */
  load() {
    this.#loading ??= (async () => {
      const body = this.#el.querySelector('.bl-body');
      this.#el.dataset.state = 'loading';
      try {
        const response = await fetch(DATA);
        if (!response.ok) throw new Error(`${DATA.pathname}: HTTP ${response.status}`);
        drawBleuLengthChart(body, await response.json());
        this.#el.dataset.state = 'ready';
      } catch (e) {
        body.innerHTML = '<p class="error"></p>';
        body.firstChild.textContent = `The figures could not be loaded: ${e.message}`;
        this.#el.dataset.state = 'error';
      }
    })();
    return this.#loading;
  }
}
