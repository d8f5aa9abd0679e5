// The logits of one step as a bar chart of the engine's top alternatives: raw logit and
// probability side by side; each bar is a button that forces its token, and beside each bar not
// taken a "why not?" button asks for the contrastive attribution against it.
import { FONT_FAMILY } from './heatmap-layout.js';
import { svgDocument, titleSVG } from './heatmap-svg.js';
import { esc } from '../util/html.js';


/** A probability for people: 0.9998, 0.0312, 1.6e-6. */
export function formatProb(p) {
  if (p >= 0.0001 || p === 0) return p.toFixed(4);
  return p.toExponential(1);
}
export const formatLogit = (x) => (x >= 0 ? x.toFixed(2) : `−${(-x).toFixed(2)}`);

/** Bar lengths in [0, 1]: the probability itself, or the logit placed between the shown extremes. */
function lengths(top, scale) {
  if (scale !== 'logit') return top.map((a) => a.prob);
  const lo = Math.min(...top.map((a) => a.logit));
  const hi = Math.max(...top.map((a) => a.logit));
  return top.map((a) => (hi > lo ? 0.04 + 0.96 * ((a.logit - lo) / (hi - lo)) : 1));
}

/**
 * Renders `row` (a snapshot row: top alternatives, the chosen token) into `list` (an <ol>).
 * onForce(tokenId) is called when a bar is clicked; onContrast(tokenId), when given, when the
 * "why not?" beside a bar not taken is; label(piece): a token as shown
 * (web/app/util/pieces.js tokenLabel).
 */
export function renderLogits(list, row, { scale = 'prob', onForce, onContrast, disabled = false, label = (p) => p } = {}) {
  list.replaceChildren();
  if (!row) return;
  const widths = lengths(row.top, scale);
  row.top.forEach((a, i) => {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'bar';
    const chosen = a.id === row.outputId;
    if (chosen) b.classList.add('chosen');
    b.setAttribute('aria-pressed', String(chosen));
    b.dataset.id = a.id;
    b.dataset.token = a.token;
    b.dataset.logit = String(a.logit);
    b.dataset.prob = String(a.prob);
    b.disabled = disabled;
    const token = label(a.token);
    b.title = chosen ? `${token}: the token taken at this step` : `Force “${token}” at this step and continue from it`;
    // The name starts with the bar's visible text, in its order (WCAG 2.5.3, label in name).
    b.setAttribute('aria-label', `${token} p ${formatProb(a.prob)} logit ${formatLogit(a.logit)}${chosen ? ' (taken)' : ': activate to force it'}`);
    // (The spaces separate the words for assistive technology; grid and flex items ignore them.)
    b.innerHTML = `<span class="tok"></span> <span class="track"><span class="fill"></span></span> <span class="nums"><span class="p"></span> <span class="l"></span></span>`;
    b.querySelector('.tok').textContent = token;
    b.querySelector('.fill').style.width = `${(widths[i] * 100).toFixed(2)}%`;
    b.querySelector('.p').textContent = `p ${formatProb(a.prob)}`;
    b.querySelector('.l').textContent = `logit ${formatLogit(a.logit)}`;
    b.addEventListener('click', () => { if (!chosen) onForce?.(a.id, a.token); });
    li.append(b);
    if (onContrast && chosen) {
      // The taken bar has nothing to contrast: an invisible twin keeps the bars' lengths comparable.
      const twin = document.createElement('span');
      twin.className = 'why-not twin';
      twin.textContent = 'why not?';
      twin.setAttribute('aria-hidden', 'true');
      li.classList.add('with-why');
      li.append(twin);
    } else if (onContrast) {
      const why = document.createElement('button');
      why.type = 'button';
      why.className = 'why-not';
      why.dataset.id = a.id;
      why.textContent = 'why not?';
      why.title = `Which inputs made the taken token more likely than “${token}” (contrastive attribution)`;
      why.setAttribute('aria-label', `why not ${token}: explain the taken token rather than it`);
      why.addEventListener('click', () => onContrast(a.id));
      li.classList.add('with-why');
      li.append(why);
    }
    list.append(li);
  });
  if (row.chosen) {
    // The token taken is outside the top list (forced, or sampled from the tail).
    const li = document.createElement('li');
    li.className = 'outside';
    li.textContent = `taken: “${label(row.chosen.token)}” (outside the top ${row.top.length}) — logit ${formatLogit(row.chosen.logit)}, log-prob ${formatLogit(row.chosen.logProb)}`;
    list.append(li);
  }
}

/** The same chart as an SVG document, under `title` (wrapped to the chart's width); label as above. */
export function logitsSVG(row, title, scale = 'prob', label = (p) => p) {
  const tokens = row.top.map((a) => label(a.token));
  const tokW = Math.max(60, ...tokens.map((t) => t.length * 7.5)) + 10;
  const barW = 260;
  const h = 24;
  const head = titleSVG(title, tokW + barW + 190);
  const top = head.height + 4;
  const widths = lengths(row.top, scale);
  const parts = [head.body, `<g font-family='${FONT_FAMILY}' font-size="12" fill="#1f2328">`];
  row.top.forEach((a, i) => {
    const y = top + i * h;
    const chosen = a.id === row.outputId;
    parts.push(`<text x="${tokW - 8}" y="${y + h / 2}" text-anchor="end" dominant-baseline="central"${chosen ? ' font-weight="600"' : ''}>${esc(tokens[i])}</text>`);
    parts.push(`<rect x="${tokW}" y="${y + 4}" width="${barW}" height="${h - 8}" fill="#eef0f3"/>`);
    parts.push(`<rect x="${tokW}" y="${y + 4}" width="${(barW * widths[i]).toFixed(2)}" height="${h - 8}" fill="${chosen ? '#d94801' : '#2171b5'}"/>`);
    parts.push(`<text x="${tokW + barW + 10}" y="${y + h / 2}" dominant-baseline="central">p ${formatProb(a.prob)}   logit ${formatLogit(a.logit)}</text>`);
  });
  parts.push('</g>');
  return svgDocument(Math.max(tokW + barW + 190, head.width), top + row.top.length * h + 8, parts.join('\n'));
}

/**
 * The chart as data ({columns, rows, json}: web/app/util/data-export.js): every alternative drawn,
 * as the engine returned it (id, piece, logit, log-probability, probability), with the label the
 * chart shows it by; and the token taken outside them, when there is one.
 */
export function logitsData(row, title, label = (p) => p) {
  const columns = ['rank', 'token', 'piece', 'id', 'logit', 'log-prob', 'probability', 'taken'];
  const alternatives = row.top.map((a, i) => ({ rank: i + 1, token: label(a.token), piece: a.token, id: a.id, logit: a.logit, logProb: a.logProb, prob: a.prob, taken: a.id === row.outputId }));
  const outside = row.chosen ? { rank: null, token: label(row.chosen.token), piece: row.chosen.token, id: row.chosen.id, logit: row.chosen.logit, logProb: row.chosen.logProb, prob: null, taken: true } : null;
  const rows = [...alternatives, ...(outside ? [outside] : [])].map((a) => [a.rank, a.token, a.piece, a.id, a.logit, a.logProb, a.prob, a.taken]);
  return { columns, rows, json: { title, step: row.step + 1, alternatives, ...(outside ? { takenOutside: outside } : {}) } };
}
