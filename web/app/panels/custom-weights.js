// The editor of a custom attention override's weights (web/app/panels/interventions.js uses it): a row
// of number inputs, one per source token, while the weights are one row; and always a textarea
// with the weights as text, one row per line, for a matrix (row i for query i, counted from 0 as
// the engine's messages count them; later queries reuse the last row). Only the typing is
// checked here (is every entry a number?); lengths, signs and all-zero rows are the engine's to
// judge, and the panel shows its message.
import { isMatrix } from '../state/state.js';

const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};

/** The weights as text: one line per row, entries separated by spaces. */
export function formatWeights(weights) {
  return (isMatrix(weights) ? weights : [weights]).map((row) => row.join(' ')).join('\n');
}

/**
 * Text to weights: one row per non-empty line, entries separated by spaces, commas or
 * semicolons (brackets are ignored, so a pasted JSON matrix works). One line gives a row (every
 * query), several a matrix. Returns {weights} or {error} (which line, which entry).
 */
export function parseWeights(text) {
  const lines = String(text).replace(/[[\]]/g, ' ').split(/\r?\n/);
  const rows = [];
  for (let i = 0; i < lines.length; i++) {
    const entries = lines[i].split(/[\s,;]+/).filter(Boolean);
    if (!entries.length) continue;
    const row = entries.map(Number);
    const bad = row.findIndex((w) => !Number.isFinite(w));
    if (bad >= 0) return { error: `row ${rows.length} (line ${i + 1}): “${entries[bad]}” is not a number` };
    rows.push(row);
  }
  if (!rows.length) return { error: 'no weights: type at least one number' };
  return { weights: rows.length === 1 ? rows[0] : rows };
}

/** Which query each row of the matrix is for, said for the site (rows from 0, as the engine says them). */
function rowsHint(site, source) {
  if (!site.perStep) {
    const words = source.slice(0, 3).map((p, i) => `row ${i}: “${p}”`);
    return `Rows from 0: row i is the query at source position i (${words.join(', ')}${source.length > 3 ? ', …' : ''}); later positions reuse the last row.`;
  }
  return 'Rows from 0: row i is decoding step i + 1 (row 0: the first target token); later steps reuse the last row.';
}

/**
 * The editor of override `index` (0-based) with weights `weights` on `site` (the engine's
 * description of it, web/app/model/sites.js), for a sentence of
 * source tokens `source`. onChange(weights) gets every valid edit.
 */
export function customWeightsEditor({ index, site, weights, source, onChange }) {
  const box = el('div', { className: 'custom-weights' });
  if (!isMatrix(weights)) {
    const row = el('div', { className: 'weights' });
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', `Custom weights of override ${index + 1}, one per source token`);
    weights.forEach((w, j) => {
      const input = el('input', { type: 'number', min: '0', step: '0.1', value: String(w), name: `w${j}` });
      input.dataset.key = `att-${index}-w${j}`;
      input.dataset.index = j;
      input.setAttribute('aria-label', `Weight of source token ${j + 1} “${source[j] ?? '?'}”`);
      input.addEventListener('change', () => {
        const v = Number(input.value);
        if (input.value === '' || !Number.isFinite(v) || v < 0) {
          input.value = String(w);
          return;
        }
        onChange(weights.map((x, k) => (k === j ? v : x)));
      });
      row.append(el('label', { className: 'weight' }, el('span', { className: 'tok', textContent: source[j] ?? `#${j + 1}` }), input));
    });
    box.append(row);
  }
  const id = `att-${index}-matrix`;
  const lines = isMatrix(weights) ? weights.length : 1;
  const area = el('textarea', { id, name: 'matrix', rows: Math.min(8, Math.max(2, lines + 1)), spellcheck: false, value: formatWeights(weights) });
  area.dataset.key = id;
  const columns = el('p', { className: 'hint matrix-columns', id: `${id}-columns` },
    `Columns (${source.length}): ${source.join(' · ')}. ${rowsHint(site, source)}`);
  const problem = el('p', { className: 'matrix-error', id: `${id}-error`, hidden: true });
  problem.setAttribute('role', 'alert');
  area.setAttribute('aria-describedby', `${columns.id} ${problem.id}`);
  const apply = el('button', { type: 'button', className: 'small apply', textContent: 'Apply' });
  apply.dataset.key = `${id}-apply`;
  apply.setAttribute('aria-label', `Apply the weights of override ${index + 1}`);
  const commit = () => {
    const parsed = parseWeights(area.value);
    problem.hidden = !parsed.error;
    problem.textContent = parsed.error ?? '';
    if (!parsed.error && formatWeights(parsed.weights) !== formatWeights(weights)) onChange(parsed.weights);
  };
  area.addEventListener('change', commit);
  apply.addEventListener('click', commit);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      commit();
    }
  });
  box.append(
    el('label', { className: 'matrix-label', htmlFor: id },
      `${isMatrix(weights) ? 'As' : 'Or as'} text: one row of weights per line (one line = every query), numbers separated by spaces or commas. `,
      el('span', { className: 'muted', textContent: 'Ctrl+Enter applies.' })),
    el('div', { className: 'matrix-row' }, area, apply),
    columns, problem,
  );
  return box;
}
