// The beam view of the attention card: the engine's beam tree (web/app/views/beam.js draws it), and
// the hypotheses in the beam, finished, or the n-best list; clicking a node or a hypothesis
// follows its path in the other views.
import { beamLegendHTML, beamTreeData, beamTreeSVG, pathTo } from './beam.js';
import { esc } from '../util/html.js';
import { formatLogit } from './logits.js';
import { labelOf, shownText } from '../util/pieces.js';

export class BeamView {
  #onSelectPath;

  /** onSelectPath(ids): a node or hypothesis was chosen. */
  constructor({ onSelectPath }) {
    this.#onSelectPath = onSelectPath;
  }

  #expanded = new Set(); // parents whose pruned children are drawn
  #sid = null;

  render(body, snap, { showPruned }) {
    if (snap.sid !== this.#sid) {
      this.#sid = snap.sid;
      this.#expanded = new Set();
    }
    const label = labelOf(snap);
    const { svg, focus } = beamTreeSVG(snap.tree, { showPruned, expanded: this.#expanded, path: snap.path.ids, label });
    // A hypothesis with no text (special tokens only) shows its tokens, as the page shows tokens.
    const text = (h) => h.text || shownText(h.tokens, { subwords: snap.subwords });
    const list = (title, hyps, cls) => (hyps.length ? `<h3>${title}</h3><ol class="hyps ${cls}">${hyps.map((h, i) => `<li><button type="button" class="hyp" data-i="${i}" data-list="${cls}"><span class="text">${esc(text(h))}</span> <span class="score">score ${formatLogit(h.score)}${h.normalizedScore !== h.score ? ` · normalized ${formatLogit(h.normalizedScore)}` : ''}</span></button></li>`).join('')}</ol>` : '');
    body.innerHTML = `<div class="beam-legend">${beamLegendHTML()}</div>
    <div class="tree-scroll" tabindex="0" aria-label="Beam tree">${svg}</div>
    <div class="hyp-lists">
      ${snap.done ? list('n-best (best first)', snap.nbest, 'nbest') : list('In the beam now', snap.live, 'live') + list('Finished so far', snap.finished, 'finished')}
    </div>`;
    const lists = { nbest: snap.nbest, live: snap.live, finished: snap.finished };
    body.querySelectorAll('.hyp').forEach((b) => {
      const h = lists[b.dataset.list][Number(b.dataset.i)];
      if (snap.path.ids.join() === h.ids.join()) b.classList.add('selected');
      b.addEventListener('click', () => this.#onSelectPath(h.ids));
    });
    body.querySelectorAll('.pruned-summary').forEach((g) => {
      const open = () => {
        this.#expanded.add(Number(g.dataset.parent));
        this.render(body, snap, { showPruned });
      };
      g.addEventListener('click', open);
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
    });
    // The path being followed in view (a long sentence's tree is much larger than its box).
    const scroller = body.querySelector('.tree-scroll');
    if (focus && scroller) {
      scroller.scrollLeft = Math.max(0, focus.x - scroller.clientWidth * 0.6);
      scroller.scrollTop = Math.max(0, focus.y - scroller.clientHeight / 2);
    }
    body.querySelectorAll('.node').forEach((g) => {
      const pick = () => this.#onSelectPath(pathTo(snap.tree, Number(g.dataset.node)));
      g.addEventListener('click', pick);
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
    });
  }

  /** The tree as data (every candidate, web/app/views/beam.js beamTreeData). */
  data(snap, { title }) {
    return beamTreeData(snap.tree, { path: snap.path.ids, title, label: labelOf(snap) });
  }

  /** The tree as an SVG document. */
  svg(snap, { showPruned, title }) {
    return beamTreeSVG(snap.tree, { showPruned, expanded: this.#expanded, path: snap.path.ids, title, label: labelOf(snap) }).svg;
  }
}
