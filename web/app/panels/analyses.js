// The "Analyses" card of the demo page: attention rollout, the vectors (positional encoding,
// embedding PCA, source × target cosine, one query's Q·Kᵀ row before and after the softmax),
// the head-importance sweep (run here, or precomputed for the model: web/models.js `heads`) and
// the toy model's training timeline. Every number comes from the engine (web/app/worker/worker.js
// calls web/attnscope.js, or models/head_sweep.py ran the CLI); this file only lays them out.
import { Heatmap } from '../views/heatmap.js';
import { ImportanceTab } from './importance-tab.js';
import { largest, rolloutSpec } from '../views/views.js';
import { shortLabel, siteNamed, vectorsOffered } from '../model/sites.js';
import { findModel, modelUrl, models } from '../../models.js';
import { esc } from '../util/html.js';
import { labelOf, piecesShown } from '../util/pieces.js';


/** The toy model's snapshots in training order, the trained model last. */
export const TIMELINE = [
  ...models.filter((m) => /^toy-en-de-epoch\d+$/.test(m.id)).map((m) => {
    const epoch = Number(m.id.match(/epoch(\d+)$/)[1]);
    return { id: m.id, epoch, label: epoch === 0 ? 'epoch 0 (random init)' : `epoch ${epoch}` };
  }),
  { id: 'toy-en-de', epoch: null, label: 'trained (final)' },
];

const PATTERN_RULES = 'Rules (src/analysis/attention_maps.h), first match wins: a flat map (mean of each row’s largest weight below 2/K) is heterogeneous; '
  + 'diagonal if band(1) ≥ 0.5 (mean weight within one position of the diagonal); vertical if column ≥ 0.5 (the largest mean weight one key receives); '
  + 'vertical+diagonal if band(1) ≥ 0.3 and column ≥ 0.3; block if band(3) ≥ 0.6; else heterogeneous.';
export { PATTERN_RULES };

export class AnalysesPanel {
  #el;
  #o;
  #snap = null;
  #st = null;
  #maps = {};
  #vectors = new Map(); // url -> promise of the 'vectors' answer
  #cosineKey = '';
  #factorKey = '';
  #importance;
  #timelineKey = '';
  #rolloutShown = null; // the rollout the map shows (a session's: it does not change with the step)

  /** opts: engine, state() (the page state), set(changes) (updates state + URL), needVectors(). */
  constructor(el, opts) {
    this.#el = el;
    this.#o = opts;
    const $ = (sel) => el.querySelector(sel);
    this.$ = $;
    for (const tab of el.querySelectorAll('[role=tab]')) {
      tab.addEventListener('click', () => { this.#o.set({ an: tab.dataset.an }); this.render(); });
    }
    for (const id of ['#fq-kind', '#fq-layer', '#fq-head', '#fq-query']) $(id).addEventListener('change', () => { this.#factorKey = ''; this.#renderFactor(); });
    $('#vec-side-all').addEventListener('change', () => this.#renderScatter(true));
    this.#importance = new ImportanceTab($('#an-importance'), opts);
    const slider = $('#tl-slider');
    slider.max = TIMELINE.length - 1;
    $('#tl-ticks').innerHTML = TIMELINE.map((t, i) => `<option value="${i}" label="${esc(t.epoch ?? 'final')}"></option>`).join('');
    slider.addEventListener('input', () => { this.#o.set({ epoch: Number(slider.value) }); this.#renderTimeline(); });
  }

  /** Redraws the open analysis for a new snapshot or state. */
  render(snap = this.#snap) {
    this.#snap = snap;
    this.#st = this.#o.state();
    if (!snap) return;
    this.#importance.prefetch(this.#st.model);
    const an = this.#st.an;
    for (const tab of this.#el.querySelectorAll('[role=tab]')) {
      const on = tab.dataset.an === an;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    for (const p of this.#el.querySelectorAll('.an-pane')) p.hidden = p.dataset.an !== an;
    this.$('#an-panel').setAttribute('aria-labelledby', `an-tab-${an}`);
    if (an === 'rollout') this.#renderRollout();
    else if (an === 'vectors') this.#renderVectors();
    else if (an === 'importance') this.#importance.render(this.#st);
    else this.#renderTimeline();
  }

  #map(name, container, opts = {}) {
    if (!this.#maps[name] || !container.contains(this.#maps[name].root)) {
      container.replaceChildren();
      this.#maps[name] = new Heatmap(container, opts);
      this.#maps[name].root.id = `${name}-map`;
    }
    return this.#maps[name];
  }

  #error(where, e) {
    where.innerHTML = `<p class="error"></p>`;
    where.firstChild.textContent = e.message;
  }

  // ---------------------------------------------------------------------------- rollout
  #renderRollout() {
    // The rollout multiplies the encoder's self-attention maps: a model without one (an RNN's
    // recurrent encoder) has nothing to roll out, and the engine sent none.
    const body = this.$('#rollout-body');
    if (!this.#snap.rollout) {
      this.#maps.rollout = null;
      // A prompt is read by the first step: its map (and its rollout) exists once that step is taken.
      if (this.#snap.input === 'prompt') body.innerHTML = '<p class="placeholder">The prompt is read by the first step: press Next (or →) to roll out its self-attention.</p>';
      else body.innerHTML = '<p class="placeholder not-applicable">Not for this model: it has no self-attention over the source (its encoder does not attend), so there is nothing to roll out.</p>';
      return;
    }
    // The rollout is fixed by the session's source: drawn again only for another session (a press
    // of Next would otherwise rebuild its map and table, the largest part of the step's time).
    const shown = this.#maps.rollout && body.contains(this.#maps.rollout.root);
    if (shown && this.#rolloutShown === this.#snap.rollout) return;
    this.#map('rollout', body).set(rolloutSpec(this.#snap));
    this.#rolloutShown = this.#snap.rollout;
  }

  // ---------------------------------------------------------------------------- vectors
  #vectorsOf(url) {
    if (!this.#vectors.has(url)) {
      const p = this.#o.engine.request('vectors', { url });
      p.catch(() => this.#vectors.delete(url));
      this.#vectors.set(url, p);
    }
    return this.#vectors.get(url);
  }

  async #renderVectors() {
    const snap = this.#snap;
    const pane = this.$('#an-vectors');
    try {
      const v = await this.#vectorsOf(snap.url);
      if (this.#snap !== snap) return;
      const [P, D] = v.positional.shape;
      this.$('#pos-section').hidden = P === 0; // a model without a positional encoding table (an RNN)
      const rows = Array.from({ length: P }, (_, p) => v.positional.data.subarray(p * D, (p + 1) * D));
      const extent = Math.max(largest(rows), -Math.min(...v.positional.data));
      const every = Math.max(1, Math.ceil(D / 32));
      const rowEvery = Math.max(1, Math.ceil(P / 24));
      this.#map('positional', this.$('#pos-body')).set({
        values: rows, rowLabels: rows.map((_, p) => (p % rowEvery ? '' : `pos ${p}`)), colLabels: Array.from({ length: D }, (_, d) => (d % every ? '' : String(d))),
        highlightRow: -1, maxCell: 16, scale: { min: -extent, max: extent, diverging: true }, legendLabel: 'value of the encoding',
        describe: (r, c) => `position ${r}, dimension ${c}`,
        ariaLabel: `Positional encoding: ${P} positions × ${D} dimensions`,
      });
      this.$('#pos-body').dataset.shape = `${P}x${D}`;
      this.vectorsData = v;
      this.#renderScatter();
    } catch (e) {
      this.#error(this.$('#pos-body'), e);
    }
    // Cosine of the sentence's source and target embeddings.
    const key = `${snap.sid}:${snap.path.ids.join(',')}`;
    if (key !== this.#cosineKey) {
      this.#cosineKey = key;
      if (!snap.path.ids.length) {
        this.$('#cos-body').innerHTML = '<p class="placeholder">No target token yet: press Next (or →).</p>';
        this.#maps.cosine = null;
      } else {
        try {
          const c = await this.#o.engine.request('cosine', { sid: snap.sid, ids: snap.path.ids });
          if (this.#snap !== snap) return;
          const [S, T] = c.shape;
          const label = labelOf(snap);
          const rows = snap.source.pieces.map(label);
          const cols = snap.path.tokens.map(label);
          this.#map('cosine', this.$('#cos-body')).set({
            values: Array.from({ length: S }, (_, i) => c.data.subarray(i * T, (i + 1) * T)),
            rowLabels: rows, colLabels: cols, highlightRow: -1,
            scale: { min: -1, max: 1, diverging: true }, legendLabel: 'cosine similarity',
            describe: (r, col) => `cos(source “${rows[r]}”, target “${cols[col]}”)`,
            ariaLabel: `Cosine similarity of ${S} source and ${T} target token embeddings`,
          });
        } catch (e) {
          this.#error(this.$('#cos-body'), e);
        }
      }
    }
    this.#renderFactor();
    pane.dataset.ready = 'true';
  }

  #renderScatter(force = false) {
    const v = this.vectorsData;
    const snap = this.#snap;
    if (!v || !snap) return;
    const key = `${snap.url}:${snap.source.ids.join(',')}:${snap.path.ids.join(',')}:${this.$('#vec-side-all').checked}`;
    if (!force && this.$('#pca-body').dataset.key === key) return;
    this.$('#pca-body').dataset.key = key;
    const labelAll = this.$('#vec-side-all').checked;
    const panel = (pca, vocab, used, title, colour) => {
      const [n] = pca.shape;
      const W = 380;
      const H = 300;
      const pad = 26;
      let x0 = Infinity; let x1 = -Infinity; let y0 = Infinity; let y1 = -Infinity;
      for (let i = 0; i < n; i++) {
        x0 = Math.min(x0, pca.data[2 * i]); x1 = Math.max(x1, pca.data[2 * i]);
        y0 = Math.min(y0, pca.data[2 * i + 1]); y1 = Math.max(y1, pca.data[2 * i + 1]);
      }
      const sx = (x) => pad + ((x - x0) / ((x1 - x0) || 1)) * (W - 2 * pad);
      const sy = (y) => H - pad - ((y - y0) / ((y1 - y0) || 1)) * (H - 2 * pad);
      const few = n <= 200;
      const dots = [];
      const labels = [];
      // Labels are nudged down (then up) past ones already placed, this sentence's tokens first.
      const placed = [];
      const place = (x, y, w) => {
        for (const dy of [0, 11, -11, 22, -22, 33]) {
          const box = [x, y + dy - 9, x + w, y + dy + 2];
          if (!placed.some((b) => box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3])) {
            placed.push(box);
            return dy;
          }
        }
        return 0;
      };
      const order = [...Array(n).keys()].sort((a, b) => Number(used.has(b)) - Number(used.has(a)));
      for (const i of order) {
        const x = sx(pca.data[2 * i]).toFixed(1);
        const y = sy(pca.data[2 * i + 1]).toFixed(1);
        const on = used.has(i);
        dots.push(`<circle class="pt${on ? ' used' : ''}" cx="${x}" cy="${y}" r="${on ? 4.5 : few ? 3.5 : 1.6}" fill="${on ? '#d94801' : colour}" data-token="${esc(vocab[i])}"><title>${esc(vocab[i])}: (${pca.data[2 * i]}, ${pca.data[2 * i + 1]})</title></circle>`);
        // Labels right of their point, or left of it near the right edge.
        const left = Number(x) > W - 70;
        if (few || labelAll || on) {
          const w = String(vocab[i]).length * 6.5 + 2;
          const lx = Number(x) + (left ? -6 - w : 6);
          const dy = place(lx, Number(y) + 4, w);
          labels.push(`<text x="${Number(x) + (left ? -6 : 6)}" y="${Number(y) + 4 + dy}"${left ? ' text-anchor="end"' : ''}${on ? ' font-weight="600" fill="#a63603" stroke="#fff" stroke-width="3" paint-order="stroke"' : ''}>${esc(vocab[i])}</text>`);
        }
      }
      return `<figure class="scatter"><figcaption>${title} <span class="muted">(${n} tokens)</span></figcaption>
        <svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${esc(title)}: ${n} token embeddings on their first two principal components" data-points="${n}" font-size="11" font-family="system-ui, sans-serif" fill="#1f2328">
        <rect x="0.5" y="0.5" width="${W - 1}" height="${H - 1}" fill="#fff" stroke="#d0d7de"/>
        <text x="${W - 6}" y="${H - 8}" text-anchor="end" fill="#57606a">PC 1 →</text><text x="8" y="14" fill="#57606a">↑ PC 2</text>
        ${dots.join('')}${labels.join('')}</svg></figure>`;
    };
    this.$('#pca-body').innerHTML = panel(v.pcaSource, v.sourceVocab, new Set(snap.source.ids), 'Source embeddings', '#2171b5')
      + panel(v.pcaTarget, v.targetVocab, new Set(snap.path.ids), 'Target embeddings', '#6a51a3');
  }

  async #renderFactor() {
    const snap = this.#snap;
    const $ = this.$;
    const picker = $('#fq-kind');
    // Only the sites whose queries and keys the engine records (not an RNN's score).
    const sites = snap.sites.filter((x) => vectorsOffered(x, snap.input));
    const body = $('#factor-body');
    $('#fq-tools').hidden = !sites.length;
    if (!sites.length) {
      if (snap.input === 'prompt') body.innerHTML = '<p class="placeholder not-applicable">Not for this model: its first step reads the whole prompt, and this view draws one query a step.</p>';
      else body.innerHTML = '<p class="placeholder not-applicable">Not for this model: its attention has no query and key vectors (no per-head projections to take q·kᵀ of).</p>';
      return;
    }
    const names = sites.map((x) => x.name).join(',');
    if (picker.dataset.sites !== names) {
      const keep = picker.value;
      picker.replaceChildren(...sites.map((x) => new Option(shortLabel(x).toLowerCase(), x.name)));
      picker.dataset.sites = names;
      if (siteNamed(sites, keep)) picker.value = keep;
    }
    const site = siteNamed(sites, picker.value);
    const kind = site.name;
    const L = site.layers;
    const fill = (select, n, label) => {
      const want = `${n}`;
      if (select.dataset.n !== want) {
        const keep = Number(select.value) || 0;
        select.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(label(i), i)));
        select.dataset.n = want;
        select.value = String(Math.min(keep, n - 1));
      }
    };
    fill($('#fq-layer'), L, (i) => `${i + 1} of ${L}`);
    fill($('#fq-head'), site.heads, (i) => `${i + 1} of ${site.heads}`);
    const q = $('#fq-query');
    const srcKey = `${piecesShown()}\u0002${snap.source.pieces.join('\u0001')}`; // relabelled when the pieces switch flips
    if (q.dataset.key !== srcKey) {
      const keep = Number(q.value) || 0;
      const label = labelOf(snap);
      q.replaceChildren(...snap.source.pieces.map((p, i) => new Option(`${i}: ${label(p)}`, i)));
      q.dataset.key = srcKey;
      q.value = String(Math.min(keep, snap.source.pieces.length - 1));
    }
    $('#fq-query-field').hidden = site.perStep;
    const row = snap.rows.at(-1);
    $('#fq-step').hidden = !site.perStep;
    const shown = labelOf(snap);
    $('#fq-step').textContent = row ? `query: step ${row.step + 1} (input “${shown(row.input)}”, producing “${shown(row.output)}”)` : '';
    if (site.perStep && !row) {
      body.innerHTML = '<p class="placeholder">No step yet: press Next (or →).</p>';
      return;
    }
    if (!snap.vectors) {
      body.innerHTML = '<p class="placeholder">Getting the query and key vectors…</p>';
      this.#o.needVectors();
      return;
    }
    const args = { sid: snap.sid, site: kind, layer: Number($('#fq-layer').value), head: Number($('#fq-head').value),
      query: Number(q.value), step: row?.step ?? 0, hypothesis: row?.expansion ?? 0 };
    const key = JSON.stringify({ ...args, pieces: piecesShown() });
    if (key === this.#factorKey) return;
    this.#factorKey = key;
    try {
      const { logits, weights } = await this.#o.engine.request('factor', args);
      if (this.#factorKey !== key) return;
      // Keys over the target: a prompt's context (its pieces as read, then the tokens generated
      // before this step), or what a translation's decoder was fed (<s>, then its outputs).
      const target = snap.input === 'prompt' ? [...snap.source.pieces, ...snap.path.tokens.slice(0, row.step)]
        : snap.rows.slice(0, row.step + 1).map((r) => r.input);
      const keys = (site.keys === 'target' ? target : snap.source.pieces).map(labelOf(snap));
      const m = Math.max(...Array.from(logits, Math.abs)) || 1;
      const bars = (values, cls, span) => Array.from(values, (v, i) => {
        const w = (Math.abs(v) / span) * 50;
        const style = cls === 'before' ? (v >= 0 ? `left:50%;width:${w}%` : `left:${50 - w}%;width:${w}%`) : `left:0;width:${v * 100}%`;
        return `<div class="fbar ${cls}" data-key="${i}" data-value="${v}" title="“${esc(keys[i])}”: ${v}">
          <span class="tok">${esc(keys[i])}</span><span class="track${cls === 'before' ? ' zero' : ''}"><i class="${v < 0 ? 'neg' : ''}" style="${style}"></i></span><span class="num">${v.toFixed(3)}</span></div>`;
      }).join('');
      body.innerHTML = `<div class="factor-cols">
        <div><h4>Before softmax: q·kᵀ/√d<sub>head</sub></h4><div class="frow" id="factor-before">${bars(logits, 'before', m)}</div></div>
        <div><h4>After softmax: the attention row</h4><div class="frow" id="factor-after">${bars(weights, 'after', 1)}</div></div></div>`;
    } catch (e) {
      this.#factorKey = '';
      this.#error(body, e);
    }
  }

  // ---------------------------------------------------------------------------- timeline
  async #renderTimeline() {
    const st = this.#o.state();
    const $ = this.$;
    const i = Math.min(st.epoch, TIMELINE.length - 1);
    const entry = TIMELINE[i];
    $('#tl-slider').value = String(i);
    $('#tl-label').textContent = `${entry.label} · ${i + 1} of ${TIMELINE.length}`;
    // Only the toy model has training snapshots: with another model, say that this is the toy's
    // timeline, and run it on a sentence the toy knows (not on one it has never seen).
    const toy = findModel('toy-en-de');
    const ownModel = TIMELINE.some((t) => t.id === st.model);
    const text = ownModel ? st.s : toy.example;
    const note = $('#tl-note');
    note.hidden = ownModel;
    note.textContent = ownModel ? '' : `This is the timeline of the toy model (${toy.label}), the only model with training snapshots here, `
      + `not of ${findModel(st.model)?.label ?? st.model}: it runs on “${text}”, a sentence the toy knows.`;
    const key = `${entry.id}:${text}`;
    if (key === this.#timelineKey) return;
    this.#timelineKey = key;
    const pane = $('#an-timeline');
    pane.dataset.ready = 'false';
    try {
      const r = await this.#o.engine.request('timeline', { url: modelUrl(findModel(entry.id)), text });
      if (this.#timelineKey !== key) return;
      const { heads } = r.site;
      const source = r.source.pieces;
      const src = source.length;
      $('#tl-output').textContent = r.text || r.tokens.join(' ');
      $('#tl-output').dataset.tokens = r.tokens.join(' ');
      this.#map('timeline', $('#tl-body')).set({
        values: r.attention.map((d) => d.subarray(0, src)), // layer 1, head 1 (the toy model has one of each)
        rowLabels: r.tokens.map((t, k) => `${k + 1}) ${t}`), colLabels: source, highlightRow: -1, maxCell: 36,
        describe: (row, c) => `${entry.label}: step ${row + 1}, producing “${r.tokens[row]}”, attends to “${source[c]}”`,
        ariaLabel: `${r.site.label} of the toy model at ${entry.label}, layer 1, head 1${heads > 1 ? ` of ${heads}` : ''}`,
      });
      pane.dataset.ready = 'true';
      pane.dataset.model = entry.id;
    } catch (e) {
      this.#timelineKey = '';
      this.#error($('#tl-body'), e);
    }
  }
}
