// Export of what a view shows as data: CSV (one table, a row per value drawn) and JSON (the same
// values, with the title and the labels that name them). Numbers are written as the engine gave
// them (every digit JavaScript prints for the value), never rounded.
import { download } from './export.js';

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function field(v) {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** `columns` and `rows` (arrays of values) as CSV text. */
export const csvOf = (columns, rows) => [columns, ...rows].map((r) => r.map(field).join(',')).join('\r\n') + '\r\n';

/** Downloads `data` ({columns, rows, json}) as `${base}.csv` or `${base}.json`. */
export function exportData(format, data, base) {
  if (format === 'csv') download(new Blob([csvOf(data.columns, data.rows)], { type: 'text/csv' }), `${base}.csv`);
  else download(new Blob([`${JSON.stringify(data.json, null, 1)}\n`], { type: 'application/json' }), `${base}.json`);
}

/**
 * Heatmaps as data. `maps`: [{name: {…fields that tell the maps apart, e.g. layer, head}, spec}]
 * (a Heatmap's spec: values, rowLabels, colLabels, legendLabel). The table has a row per cell drawn
 * (a row shorter than the labels draws fewer cells); the JSON keeps each map's matrix.
 */
export function mapsData(title, maps, meta = {}) {
  const fields = Object.keys(maps[0]?.name ?? {});
  const valueOf = (spec) => spec.legendLabel ?? 'attention weight';
  const names = new Set(maps.map((m) => valueOf(m.spec)));
  const value = names.size === 1 ? [...names][0] : 'value'; // the column's name: what the maps' values are
  const columns = [...fields, 'row', 'row label', 'column', 'column label', value];
  const rows = [];
  for (const { name, spec } of maps) {
    spec.values.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) rows.push([...fields.map((f) => name[f]), r + 1, spec.rowLabels?.[r], c + 1, spec.colLabels?.[c], row[c]]);
    });
  }
  const json = {
    title, ...meta,
    maps: maps.map(({ name, spec }) => ({ ...name, value: valueOf(spec), rows: spec.rowLabels, columns: spec.colLabels, values: spec.values.map((row) => Array.from(row)) })),
  };
  return { columns, rows, json };
}
