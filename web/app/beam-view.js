// The beam view of the attention card: the engine's beam tree (web/app/beam.js draws it), and
// the hypotheses in the beam, finished, or the n-best list; clicking a node or a hypothesis
// follows its path in the other views.
import { beamLegendHTML, beamTreeSVG, pathTo } from './beam.js';
import { esc } from './html.js';
import { formatLogit } from './logits.js';

export class BeamView {
  #onSelectPath;

  /** onSelectPath(ids): a node or hypothesis was chosen. */
  constructor({ onSelectPath }) {
    this.#onSelectPath = onSelectPath;
  }

  render(body, snap, { showPruned }) {
    const { svg } = beamTreeSVG(snap.tree, { showPruned, path: snap.path.ids });
    const list = (title, hyps, cls) => (hyps.length ? `<h3>${title}</h3><ol class="hyps ${cls}">${hyps.map((h, i) => `<li><button type="button" class="hyp" data-i="${i}" data-list="${cls}"><span class="text">${esc(h.text || h.tokens.join(' '))}</span> <span class="score">score ${formatLogit(h.score)}${h.normalizedScore !== h.score ? ` · normalized ${formatLogit(h.normalizedScore)}` : ''}</span></button></li>`).join('')}</ol>` : '');
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
    body.querySelectorAll('.node').forEach((g) => {
      const pick = () => this.#onSelectPath(pathTo(snap.tree, Number(g.dataset.node)));
      g.addEventListener('click', pick);
      g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
    });
  }

  /** The tree as an SVG document. */
  svg(snap, { showPruned, title }) {
    return beamTreeSVG(snap.tree, { showPruned, path: snap.path.ids, title }).svg;
  }
}
