// The one piece of arithmetic on the page side, kept apart on purpose: the "mean of heads"
// view averages the attention rows the engine returned for each head of a layer. Every other
// number on screen is displayed exactly as the engine returned it.

/** The element-wise mean of equally long rows (one per head). */
export function meanOfHeads(rows) {
  const n = rows.length;
  const out = new Array(rows[0]?.length ?? 0).fill(0);
  for (const row of rows) for (let i = 0; i < out.length; i++) out[i] += row[i];
  for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}
