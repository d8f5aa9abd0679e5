// The "Logit lens" card: while it is open, asks the worker for the logit lens of the path the
// page shows (session.logitLens through the `logitLens` request) whenever that path changes, and
// draws it with views/logit-lens.js. Closed, it asks nothing: a session that records no vectors
// replays its path for the lens. Hidden for a model without a lens (info.logitLensLayers is 0).
import { LogitLensGrid } from '../views/logit-lens.js';
import { labelOf } from '../util/pieces.js';
import { setProp } from '../util/html.js';

/** How many of each layer's most probable tokens hover and focus show. */
export const LENS_TOP_K = 5;

export class LogitLensPanel {
  #root;
  #engine;
  #grid;
  #key = '';
  #last = null; // the latest [snap, info], drawn when the card opens

  constructor(root, { engine }) {
    this.#root = root;
    this.#engine = engine;
    this.#grid = new LogitLensGrid(root.querySelector('.lens-body'), root.querySelector('.lens-detail'));
    root.addEventListener('toggle', () => { if (this.#last) this.render(...this.#last); });
  }

  /** The card for this model: shown only where the model has a lens. */
  setModel(info) {
    setProp(this.#root, 'hidden', !(info?.logitLensLayers > 0));
  }

  /** Draws the lens of `snap`'s path (a request when the path changed). */
  render(snap, info) {
    this.#last = [snap, info];
    this.setModel(info);
    if (this.#root.hidden || !this.#root.open) return;
    const key = `${snap.sid}:${snap.path.ids.join(',')}:${document.body.classList.contains('show-pieces')}`;
    if (key === this.#key) return;
    this.#key = key;
    const steps = snap.path.ids.length;
    if (!steps) {
      this.#grid.message('No step yet: press Next (or →).');
      this.#root.dataset.steps = '0';
      return;
    }
    this.#engine.request('logitLens', { sid: snap.sid, ids: snap.path.ids, k: LENS_TOP_K }).then((lens) => {
      if (key !== this.#key) return;
      this.#grid.set({ lens, label: labelOf(snap) });
      this.#root.dataset.steps = String(lens.steps.length);
    }, (e) => {
      if (key !== this.#key) return;
      this.#grid.message(e.message, 'error');
      this.#root.dataset.steps = 'error';
    });
  }
}
