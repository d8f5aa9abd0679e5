// Fill-mask predictions of an encoder-only model: the text as the model read it with each [MASK]
// marked, and the engine's top pieces for every [MASK] with their probabilities. Takes the
// worker's data ({tokens, masks: [{position, topK: [{token, prob}]}]}); text nodes only.

const el = (tag, props = {}) => Object.assign(document.createElement(tag), props);

/** Fills `box` with the predictions; `maskPiece`: how the model writes [MASK]. */
export function renderMasks(box, { tokens, masks, maskPiece }) {
  box.replaceChildren();
  if (!masks.length) {
    box.append(el('p', { className: 'caption', textContent: `No ${maskPiece} in the text: nothing to fill. Put ${maskPiece} where a word should be predicted.` }));
    return;
  }
  const line = el('p', { className: 'enc-pieces', ariaLabel: 'The text as the model reads it, best piece in each mask' });
  const best = new Map(masks.map((m) => [m.position, m.topK[0]?.token]));
  tokens.forEach((t, i) => {
    const piece = best.has(i) ? el('mark', { textContent: best.get(i), title: `${maskPiece} #${[...best.keys()].indexOf(i) + 1}: the model's best piece` }) : el('span', { textContent: t });
    line.append(piece, ' ');
  });
  const list = el('div', { className: 'enc-masks' });
  masks.forEach((m, k) => {
    const fig = el('figure', { className: 'enc-mask' });
    fig.dataset.position = m.position;
    fig.append(el('figcaption', { textContent: `${maskPiece} #${k + 1} (position ${m.position})` }));
    const ol = el('ol');
    for (const c of m.topK) {
      const li = el('li');
      li.dataset.token = c.token;
      li.dataset.prob = c.prob;
      const bar = el('span', { className: 'enc-prob' });
      bar.append(el('i', { ariaHidden: 'true' }));
      bar.firstChild.style.width = `${(c.prob * 100).toFixed(1)}%`;
      li.append(el('b', { textContent: c.token }), bar, el('span', { className: 'num', textContent: c.prob.toFixed(3) }));
      ol.append(li);
    }
    fig.append(ol);
    list.append(fig);
  });
  box.append(line, list);
}
