// Where attention goes, per layer (Clark et al. 2019's question), raw beside norm-weighted
// (Kobayashi et al. 2020): for [CLS], [SEP], punctuation, the previous and the next token, the
// engine's shares (model.headStudy().shares.raw / .norm) as bars, one table row per layer. The
// numbers are the engine's; bar lengths are those numbers as percentages of the cell.

export const SHARE_KINDS = [
  { key: 'cls', label: '[CLS]' },
  { key: 'sep', label: '[SEP]' },
  { key: 'punct', label: 'punctuation' },
  { key: 'prev', label: 'previous token' },
  { key: 'next', label: 'next token' },
];
const WEIGHTINGS = [
  { key: 'raw', label: 'raw α' },
  { key: 'norm', label: '‖α·f(x)‖' },
];

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);

/** Fills `box` with the figure of `shares` ({raw: [{cls, sep, punct, prev, next}] per layer, norm: same}). */
export function renderShares(box, shares) {
  const table = el('table', { className: 'enc-shares' });
  table.append(el('caption', { textContent: 'Share of attention per layer (mean over heads and query positions): raw weights α beside norm-weighted α·‖f(x)‖' }));
  const head = el('tr');
  head.append(el('th', { scope: 'col', textContent: 'layer' }));
  for (const k of SHARE_KINDS) head.append(el('th', { scope: 'col', textContent: k.label }));
  table.append(el('thead'));
  table.tHead.append(head);
  const body = el('tbody');
  shares.raw.forEach((_, l) => {
    const tr = el('tr');
    tr.dataset.layer = l;
    tr.append(el('th', { scope: 'row', textContent: `layer ${l + 1}` }));
    for (const k of SHARE_KINDS) {
      const td = el('td');
      for (const w of WEIGHTINGS) {
        const v = shares[w.key][l][k.key];
        const row = el('div', { className: `sh-bar ${w.key}`, title: `layer ${l + 1}, ${k.label}, ${w.label}: ${v.toFixed(4)}` });
        row.dataset.kind = k.key;
        row.dataset.weighting = w.key;
        row.dataset.value = v;
        const track = el('span', { className: 'sh-track' });
        const fill = el('i', { ariaHidden: 'true' });
        fill.style.width = `${Math.max(0, Math.min(100, v * 100)).toFixed(1)}%`;
        track.append(fill);
        row.append(el('span', { className: 'sh-w', textContent: w.label }), track, el('span', { className: 'num', textContent: v.toFixed(3) }));
        td.append(row);
      }
      tr.append(td);
    }
    body.append(tr);
  });
  table.append(body);
  box.replaceChildren(table);
}
