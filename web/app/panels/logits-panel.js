// The logits card of the demo page: the current step's top alternatives (web/app/views/logits.js
// draws them), what they follow, and the bars that force a token.
import { byId as $, counted, esc } from '../util/html.js';
import { renderLogits } from '../views/logits.js';
import { labelOf, piecesShown, shownText } from '../util/pieces.js';

/** onForce(tokenId): a bar was clicked; onContrast(tokenId): its "why not?" was. */
export function renderLogitsPanel(snap, { scale, onForce, onContrast }) {
  const row = snap.rows.at(-1);
  $('logits-title').textContent = row ? `Logits of step ${row.step + 1}` : 'Logits';
  const cap = $('logits-caption');
  if (!row) {
    cap.textContent = 'The scores of the next token appear here once a step has run.';
  } else {
    // A decoder-only model's context starts with the prompt as it reads it (snap.input 'prompt':
    // source.pieces, <bos> first only where the model reads one); a translation's with <bos>.
    const opening = snap.input === 'prompt' ? snap.source.pieces : [snap.bos];
    const prefix = shownText([...opening, ...snap.path.tokens.slice(0, row.step)], { subwords: snap.subwords, show: piecesShown() });
    cap.innerHTML = `After “<span class="mono"></span>”, the model's top ${esc(counted(row.top.length, 'candidate'))}. ${row.forced ? '<b>You forced this step.</b> ' : ''}Click another token to force it and continue from there, or “why not?” to see what made the model prefer its choice.`;
    cap.querySelector('.mono').textContent = prefix;
  }
  renderLogits($('bars'), row, { scale, onForce, onContrast, label: labelOf(snap) });
}
