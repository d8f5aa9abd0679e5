// The Training panel's "Induction heads" preset (Olsson et al. 2022): a fresh 2-layer
// attention-only language model trained on in-context bigrams (src/train/successor_walks.h), and,
// live while it trains, the loss on the probes' first half and on their repeated half, every head's
// prefix-matching and copying scores (layers × heads) and the attention map of the last layer's
// strongest prefix-matching head on the first probe. The engine trains and scores in the worker
// (web/app/worker/worker-induction.js); this module only draws what it answers.
import { Heatmap } from '../views/heatmap.js';
import { headRows } from '../views/views.js';
import { drawHalfLossCurves } from '../views/half-loss-curves.js';
import { drawHeadScoreGrid } from '../views/head-score-grid.js';

/** The last layer's head with the largest prefix-matching score ({layer, head}). */
export function strongestLastLayerHead(scores) {
  const layer = scores.layers - 1;
  const row = scores.prefixMatching[layer];
  let head = 0;
  for (let h = 1; h < row.length; h++) if (row[h] > row[head]) head = h;
  return { layer, head };
}

export class InductionPanel {
  #engine;
  #root;
  #history = []; // the worker's reports (epoch 0: the untrained model)
  #training = false;
  #map = null;

  /** root: the preset's element inside the Training panel; engine: the worker's client. */
  constructor(root, { engine }) {
    this.#engine = engine;
    this.#root = root;
    this.$('#ih-train').addEventListener('click', () => this.train());
    this.$('#ih-pause').addEventListener('click', () => this.pause());
    this.$('#ih-reset').addEventListener('click', () => this.reset());
    this.#render();
  }

  $(selector) { return this.#root.querySelector(selector); }

  /** Trains the preset until the Epochs knob (continuing a paused run); resolves to the worker's answer. */
  async train() {
    if (this.#training) return null;
    const epochs = Number(this.$('#ih-epochs').value);
    if (!(Number.isInteger(epochs) && epochs >= 1 && epochs <= 100_000)) {
      this.#error('Epochs must be a whole number from 1 to 100000');
      return null;
    }
    this.#error(null);
    this.#training = true;
    this.#buttons();
    const answer = await this.#engine.request('inductionTrain', { epochs }, (report) => {
      if (report.epoch === 0) this.#history = [];
      this.#history.push(report);
      this.#render();
    }).catch((e) => {
      this.#error(e.message);
      return null;
    });
    this.#training = false;
    this.#buttons();
    return answer;
  }

  /** Stops after the epoch running now (Train continues from there). */
  pause() { return this.#engine.request('inductionStop'); }

  /** Forgets the run: the next Train starts from random weights again. */
  async reset() {
    if (this.#training) return;
    await this.#engine.request('inductionStop', { forget: true });
    this.#history = [];
    this.#render();
  }

  /** For tests and the curious: every epoch's report as the worker sent it. */
  snapshot() { return { history: this.#history, training: this.#training }; }

  #error(message) {
    const box = this.$('#ih-error');
    box.hidden = !message;
    box.textContent = message ?? '';
  }

  #buttons() {
    this.#root.dataset.training = String(this.#training);
    this.$('#ih-train').disabled = this.#training;
    this.$('#ih-reset').disabled = this.#training;
    this.$('#ih-pause').disabled = !this.#training;
  }

  #render() {
    const last = this.#history.at(-1);
    const scores = last?.scores && !last.scores.error ? last.scores : null;
    this.#root.dataset.epoch = String(last?.epoch ?? 0);
    // The engine's numbers as they came, for tests and tools.
    this.#root.dataset.seconds = String(last?.seconds ?? 0);
    this.#root.dataset.updates = String(last?.updates ?? 0);
    this.#root.dataset.lossFirstHalf = scores ? String(scores.lossFirstHalf) : '';
    this.#root.dataset.lossRepeatedHalf = scores ? String(scores.lossRepeatedHalf) : '';
    this.$('#ih-epoch').textContent = String(last?.epoch ?? 0);
    this.$('#ih-updates').textContent = String(last?.updates ?? 0);
    this.$('#ih-seconds').textContent = last ? last.seconds.toFixed(1) : '0';
    this.$('#ih-loss-first').textContent = scores ? scores.lossFirstHalf.toFixed(3) : '–';
    this.$('#ih-loss-repeated').textContent = scores ? scores.lossRepeatedHalf.toFixed(3) : '–';
    if (last?.scores?.error) this.#error(last.scores.error);
    drawHalfLossCurves(this.$('#ih-curves'), this.#history.filter((r) => r.scores && !r.scores.error)
      .map((r) => ({ epoch: r.epoch, lossFirstHalf: r.scores.lossFirstHalf, lossRepeatedHalf: r.scores.lossRepeatedHalf })));
    const grid = this.$('#ih-grid');
    if (!scores) {
      const p = document.createElement('p');
      p.className = 'muted';
      p.textContent = 'Train the preset to see every head’s scores.';
      grid.replaceChildren(p);
      this.#drawMap(null, null);
      this.#buttons();
      return;
    }
    const chosen = strongestLastLayerHead(scores);
    drawHeadScoreGrid(grid, scores, chosen);
    this.#drawMap(scores, chosen);
    this.#buttons();
  }

  #drawMap(scores, chosen) {
    const body = this.$('#ih-map');
    this.$('#ih-head').textContent = chosen ? `layer ${chosen.layer + 1}, head ${chosen.head + 1}` : '–';
    if (!scores) {
      this.#map = null;
      body.replaceChildren();
      return;
    }
    if (!this.#map || !body.contains(this.#map.root)) {
      body.replaceChildren();
      this.#map = new Heatmap(body);
      this.#map.root.id = 'ih-heatmap';
    }
    const tokens = scores.tokens; // text from the model: drawn on the canvas and set as text, never HTML
    const epoch = this.#history.at(-1).epoch;
    this.#map.set({
      values: headRows({ tensor: scores.attention }, chosen.layer, chosen.head),
      rowLabels: tokens.map((t, k) => `${k}) ${t}`), colLabels: tokens, highlightRow: -1, maxCell: 24,
      describe: (row, c) => `Epoch ${epoch}: “${tokens[row]}” (position ${row}) attends to “${tokens[c]}” (position ${c})`,
      ariaLabel: `Induction preset after epoch ${epoch}: layer ${chosen.layer + 1}, head ${chosen.head + 1} on the probe`,
    });
  }
}
