// The beam tree as SVG: every candidate the search looked at (engine's beamTree()), laid out
// by step, with its score; live, finished, pruned and cut candidates styled apart; the path
// the other views follow drawn in orange. Clicking a node selects its path.
import { FONT_FAMILY } from './heatmap-layout.js';
import { svgDocument } from './heatmap-svg.js';
import { counted, esc } from '../util/html.js';


export const STATUS_STYLE = {
  live: { fill: '#ddf4ff', stroke: '#0969da', text: '#0a3069', dash: '' },
  finished: { fill: '#dafbe1', stroke: '#1a7f37', text: '#044f1e', dash: '' },
  pruned: { fill: '#f6f8fa', stroke: '#6e7781', text: '#57606a', dash: '4 3' },
  cut: { fill: '#fff1e5', stroke: '#bc4c00', text: '#762c00', dash: '' },
};
const LABEL = { live: 'in the beam', finished: 'finished (ended by </s>)', pruned: 'pruned (fell out of the beam)', cut: 'cut at the length limit' };

const fmtScore = (s) => (s >= 0 ? s.toFixed(2) : `−${(-s).toFixed(2)}`);

/** The ids from the root to `node` (the root <s> excluded). */
export function pathTo(nodes, id) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const ids = [];
  for (let n = byId.get(id); n && n.parent >= 0; n = byId.get(n.parent)) ids.unshift(n.tokenId);
  return ids;
}

/** The node ids along `path` (target ids) from the root. */
function nodesOnPath(nodes, path) {
  const on = new Set();
  const root = nodes.find((n) => n.parent < 0);
  if (!root) return on;
  on.add(root.id);
  let cur = root;
  for (const id of path) {
    const next = nodes.find((n) => n.parent === cur.id && n.tokenId === id);
    if (!next) break;
    on.add(next.id);
    cur = next;
  }
  return on;
}

// Live, finished and cut candidates first (best score first), then what fell out of the beam.
const ORDER = { live: 0, finished: 0, cut: 0, pruned: 1 };

/**
 * {svg, width, height, focus} of the tree. Options: showPruned (every pruned candidate drawn);
 * else a parent's pruned children are collapsed into "+N pruned" on it, except the parents in
 * `expanded` (node ids); path (ids to highlight); title; label(piece): a token as shown
 * (web/app/util/pieces.js). `focus`: {x, y} of the deepest node on the path (where the view
 * scrolls to).
 */
export function beamTreeSVG(tree, { showPruned = false, expanded = new Set(), path = [], title, label = (p) => p } = {}) {
  const nodes = tree.map((n) => ({ ...n, token: label(n.token) }));
  const drawn = (n) => showPruned || n.status !== 'pruned' || expanded.has(n.parent);
  const shown = nodes.filter(drawn);
  const collapsed = new Map(); // parent id -> its pruned children not drawn
  for (const n of nodes) {
    if (drawn(n)) continue;
    if (!collapsed.has(n.parent)) collapsed.set(n.parent, []);
    collapsed.get(n.parent).push(n);
  }
  const kids = new Map();
  for (const n of shown) {
    if (n.parent < 0) continue;
    if (!kids.has(n.parent)) kids.set(n.parent, []);
    kids.get(n.parent).push(n);
  }
  for (const list of kids.values()) list.sort((a, b) => (ORDER[a.status] ?? 0) - (ORDER[b.status] ?? 0) || b.score - a.score);
  const root = shown.find((n) => n.parent < 0);
  if (!root) return { svg: svgDocument(200, 40, ''), width: 200, height: 40, focus: null };
  const nodeW = Math.max(72, ...shown.map((n) => n.token.length * 7.2 + 16));
  // Room for a "+N pruned" line in the boxes when some are collapsed.
  const nodeH = collapsed.size ? 48 : 34;
  const colW = nodeW + 26;
  const rowH = nodeH + 8;
  const top = title ? 30 : 4;
  // Leaves take the next free row; a parent sits level with its best child.
  const y = new Map();
  let slot = 0;
  const place = (n) => {
    const ch = kids.get(n.id) ?? [];
    if (!ch.length) y.set(n.id, slot++);
    else {
      ch.forEach(place);
      y.set(n.id, y.get(ch[0].id));
    }
  };
  place(root);
  const on = nodesOnPath(nodes, path);
  const X = (n) => 4 + (n.step + 1) * colW;
  const Y = (n) => top + y.get(n.id) * rowH;
  const edges = [];
  const boxes = [];
  const byId = new Map(shown.map((n) => [n.id, n]));
  for (const n of shown) {
    if (!y.has(n.id)) continue;
    if (n.parent >= 0 && y.has(n.parent)) {
      const p = byId.get(n.parent);
      const hot = on.has(n.id) && on.has(p.id);
      edges.push(`<path d="M${X(p) + nodeW} ${Y(p) + nodeH / 2} C${X(p) + nodeW + 14} ${Y(p) + nodeH / 2} ${X(n) - 14} ${Y(n) + nodeH / 2} ${X(n)} ${Y(n) + nodeH / 2}" fill="none" stroke="${hot ? '#d94801' : '#afb8c1'}" stroke-width="${hot ? 2.5 : 1.2}"/>`);
    }
    const st = STATUS_STYLE[n.status] ?? STATUS_STYLE.live;
    const hot = on.has(n.id);
    const label = n.parent < 0 ? n.token : `${n.token}${n.status === 'finished' ? ' ✓' : ''}`;
    // The node's name starts with its visible text (WCAG 2.5.3, label in name), then says the rest.
    boxes.push(`<g class="node" data-node="${n.id}" data-status="${n.status}" tabindex="0" role="button" aria-label="${esc(`${label} ${n.parent < 0 ? 'start' : `${fmtScore(n.score)} (score)`}, step ${n.step + 1}, ${LABEL[n.status] ?? n.status}`)}" style="cursor:pointer">
<title>${esc(`${n.token} — step ${n.step + 1}, log-prob ${n.logProb}, score ${n.score} (${LABEL[n.status] ?? n.status})`)}</title>
<rect x="${X(n)}" y="${Y(n)}" width="${nodeW}" height="${nodeH}" rx="5" fill="${st.fill}" stroke="${hot ? '#d94801' : st.stroke}" stroke-width="${hot ? 2.5 : 1.2}"${st.dash ? ` stroke-dasharray="${st.dash}"` : ''}/>
<text x="${X(n) + nodeW / 2}" y="${Y(n) + 13}" text-anchor="middle" font-weight="600" fill="${st.text}"${n.status === 'pruned' ? ' text-decoration="line-through"' : ''}>${esc(label)}</text>
<text x="${X(n) + nodeW / 2}" y="${Y(n) + 27}" text-anchor="middle" font-size="10.5" fill="${st.text}">${n.parent < 0 ? 'start' : fmtScore(n.score)}</text>
</g>`);
    const hidden = collapsed.get(n.id);
    if (hidden) {
      // The collapsed candidates stay in the document (not drawn), behind their summary.
      boxes.push(`<g class="pruned-summary" data-parent="${n.id}" data-count="${hidden.length}" tabindex="0" role="button" aria-label="${counted(hidden.length, 'pruned candidate')} after ${esc(n.token)}: show ${hidden.length === 1 ? 'it' : 'them'}" style="cursor:pointer">
<title>${hidden.length === 1 ? 'Show the candidate' : `Show the ${hidden.length} candidates`} that fell out of the beam after this one</title>
<rect x="${X(n) + 6}" y="${Y(n) + 32}" width="${nodeW - 12}" height="13" rx="6" fill="#f6f8fa" stroke="#8c959f" stroke-dasharray="3 2"/>
<text x="${X(n) + nodeW / 2}" y="${Y(n) + 42}" text-anchor="middle" font-size="10" fill="#57606a">+${hidden.length} pruned</text>
</g>`);
      for (const h of hidden) boxes.push(`<g class="node" data-node="${h.id}" data-status="pruned" display="none"></g>`);
    }
  }
  const maxStep = Math.max(...shown.map((n) => n.step));
  const width = 4 + (maxStep + 2) * colW;
  const height = top + slot * rowH + 4;
  const head = title ? `<text x="4" y="18" font-size="15" font-weight="600">${esc(title)}</text>` : '';
  const body = `<g font-family='${FONT_FAMILY}' font-size="12" fill="#1f2328">${head}${edges.join('\n')}\n${boxes.join('\n')}</g>`;
  const deepest = shown.filter((n) => on.has(n.id) && y.has(n.id)).sort((a, b) => b.step - a.step)[0];
  return { svg: svgDocument(width, height, body), width, height, focus: deepest ? { x: X(deepest) + nodeW / 2, y: Y(deepest) + nodeH / 2 } : null };
}

/** The legend of node styles, as HTML. */
export function beamLegendHTML() {
  return Object.entries(STATUS_STYLE).map(([k, s]) => `<span class="key"><i style="background:${s.fill};border:1.5px ${s.dash ? 'dashed' : 'solid'} ${s.stroke}"></i>${esc(LABEL[k])}</span>`).join('')
    + '<span class="key"><i style="background:#fff;border:2.5px solid #d94801"></i>the path shown in the other views</span>';
}

/**
 * The tree as data ({columns, rows, json}: web/app/util/data-export.js): every candidate the search
 * looked at (drawn or collapsed into "+N pruned"), as the engine returned it, with the label the
 * tree shows its token by and whether it is on the followed path.
 */
export function beamTreeData(tree, { path = [], title, label = (p) => p } = {}) {
  const on = nodesOnPath(tree, path);
  const nodes = tree.map((n) => ({ id: n.id, parent: n.parent < 0 ? null : n.parent, step: n.step + 1, token: label(n.token), piece: n.token, tokenId: n.tokenId,
    logProb: n.logProb, score: n.score, status: n.status, onPath: on.has(n.id) }));
  const columns = ['node', 'parent', 'step', 'token', 'piece', 'token id', 'log-prob', 'score', 'status', 'on path'];
  return { columns, rows: nodes.map((n) => [n.id, n.parent, n.step, n.token, n.piece, n.tokenId, n.logProb, n.score, n.status, n.onPath]), json: { title, nodes } };
}
