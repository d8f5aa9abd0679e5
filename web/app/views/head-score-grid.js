// The induction scores of every head, as a table: one row per layer, one column per head, each
// cell the head's prefix-matching score (shaded by it, 0 to 1) and its copying score, and below
// them its previous-token score (the first-layer half of the circuit). Built with DOM calls;
// every value is the engine's (src/analysis/induction.h), shown as it came.

/**
 * Fills `container` with the grid of `scores` ({layers, heads, prefixMatching [layer][head],
 * copying [layer][head], previousToken [layer][head]}); `highlight` ({layer, head} or null) marks
 * the head the map below shows.
 */
export function drawHeadScoreGrid(container, scores, highlight = null) {
  const table = document.createElement('table');
  table.className = 'head-score-grid';
  const caption = document.createElement('caption');
  caption.textContent = 'Per head: prefix matching (shade) / copying, and attention to the previous token';
  const head = document.createElement('tr');
  head.append(document.createElement('th'));
  for (let h = 0; h < scores.heads; h++) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = `head ${h + 1}`;
    head.append(th);
  }
  table.append(caption, head);
  for (let l = 0; l < scores.layers; l++) {
    const row = document.createElement('tr');
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = `layer ${l + 1}`;
    row.append(th);
    for (let h = 0; h < scores.heads; h++) {
      const prefix = scores.prefixMatching[l][h];
      const copying = scores.copying[l][h];
      const previous = scores.previousToken[l][h];
      const td = document.createElement('td');
      td.dataset.layer = String(l);
      td.dataset.head = String(h);
      td.dataset.prefixMatching = String(prefix);
      td.dataset.copying = String(copying);
      td.dataset.previousToken = String(previous);
      td.style.setProperty('--score', String(Math.min(1, Math.max(0, prefix))));
      if (highlight && highlight.layer === l && highlight.head === h) td.classList.add('chosen');
      td.title = `layer ${l + 1}, head ${h + 1}: prefix matching ${prefix.toFixed(3)}, copying ${copying.toFixed(3)}, `
        + `previous token ${previous.toFixed(3)}`;
      const prev = document.createElement('span');
      prev.className = 'previous-token';
      prev.textContent = `prev ${previous.toFixed(2)}`;
      td.append(`${prefix.toFixed(2)} / ${copying.toFixed(2)}`, prev);
      row.append(td);
    }
    table.append(row);
  }
  container.replaceChildren(table);
}
