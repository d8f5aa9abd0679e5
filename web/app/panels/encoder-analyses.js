// The "Analyses" card of the encoder-only page: for the form's text, as the model reads it (and
// as "Break the model" left it), the attention rollout through its self-attention, one head's
// value-weighted attention ‖α·f(x)‖, one query's q·kᵀ/√d row before the softmax beside the
// attention row after it, and the pattern class of every head. Every number comes from the
// engine (the worker's encoderAnalyses and encoderFactor: Model.textAnalysis and
// Model.textAttentionLogits); this file lays them out.
import { Heatmap } from '../views/heatmap.js';
import { attentionSpec, rolloutSpec } from '../views/views.js';
import { siteNamed } from '../model/sites.js';
import { PATTERN_RULES } from './analyses.js';

const el = (tag, props = {}, ...children) => {
  const e = Object.assign(document.createElement(tag), props);
  e.append(...children);
  return e;
};

export class EncoderAnalyses {
  #root;
  #engine;
  #pick = {};
  #rollout;
  #vnorm;
  #factor;
  #patterns;
  #current = null; // {url, text, iv, info, analysis}
  #shown = { analysis: null, factor: null };
  #factorKey = '';

  /** root: the card (#enc-analyses); engine: the worker's client. */
  constructor(root, { engine }) {
    this.#root = root;
    this.#engine = engine;
    const body = root.querySelector('#enc-analyses-body');
    const picker = (name, label) => {
      const s = el('select', { id: `ea-${name}` });
      s.addEventListener('change', () => this.#drawPicked().catch((e) => {
        this.#factorKey = '';
        this.#factor.replaceChildren(el('p', { className: 'error', textContent: e.message }));
      }));
      this.#pick[name] = s;
      return el('label', {}, `${label} `, s);
    };
    const section = (title, caption, box) => el('section', { className: 'ea-section' }, el('h3', { textContent: title }),
      el('p', { className: 'caption', textContent: caption }), box);
    this.#factor = el('div', { id: 'ea-factor', className: 'ea-factor' });
    this.#patterns = el('div', { id: 'ea-patterns' });
    const rolloutBox = el('div', { id: 'ea-rollout', className: 'view-body' });
    const vnormBox = el('div', { id: 'ea-vnorm', className: 'view-body' });
    body.replaceChildren(
      section('Attention rollout', 'Abnar & Zuidema (2020): each layer\'s mean-of-heads map, half kept on the token itself for the residual '
        + 'connection, multiplied layer by layer. Rows: positions after the last layer; columns: input pieces.', rolloutBox),
      el('div', { className: 'view-tools ea-picks' }, picker('layer', 'Layer'), picker('head', 'Head'), picker('query', 'Query')),
      section('Value-weighted attention ‖α·f(x)‖', 'Kobayashi et al. (2020): each weight times the norm of what that piece\'s value '
        + 'vector sends through the head. The layer and head picked above.', vnormBox),
      section('One query before and after the softmax', 'The scores q·kᵀ/√d_head of the query picked above over every piece, and the '
        + 'attention row the softmax made of them (or what an intervention replaced it by).', this.#factor),
      section('Pattern class of every head', PATTERN_RULES, this.#patterns),
    );
    this.#rollout = new Heatmap(rolloutBox);
    this.#rollout.root.id = 'ea-rollout-map';
    this.#vnorm = new Heatmap(vnormBox);
    this.#vnorm.root.id = 'ea-vnorm-map';
  }

  /** What is on screen, for tests: {analysis (the engine's textAnalysis), factor ({logits, weights})}. */
  get shown() { return { ...this.#shown }; }

  /** Draws the analyses of `text` on the model at `url` ({url, text, iv, info}); rejects with the engine's error. */
  async show({ url, text, iv, info }) {
    this.#root.hidden = false;
    const analysis = await this.#engine.request('encoderAnalyses', { url, text, interventions: iv });
    this.#current = { url, text, iv, info, analysis };
    this.#shown = { analysis, factor: null };
    this.#factorKey = '';
    const { tokens } = analysis;
    const T = tokens.length;
    this.#rollout.set(rolloutSpec({ source: { pieces: tokens }, rollout: analysis.rollout.data }));
    this.#rollout.root.dataset.shape = `${T}x${T}`;
    const site = siteNamed(info.sites, analysis.site);
    const fill = (select, n, label) => {
      const keep = Math.min(Number(select.value) || 0, n - 1);
      select.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(label(i), String(i))));
      select.value = String(keep);
    };
    fill(this.#pick.layer, site.layers, (i) => `${i + 1} of ${site.layers}`);
    fill(this.#pick.head, site.heads, (i) => `${i + 1} of ${site.heads}`);
    fill(this.#pick.query, T, (i) => `${i}: ${tokens[i]}`);
    this.#drawPatterns(site, analysis.patterns);
    await this.#drawPicked();
    this.#root.dataset.renders = Number(this.#root.dataset.renders ?? 0) + 1; // (tests wait for it)
  }

  hide() {
    this.#root.hidden = true;
    this.#current = null;
    this.#shown = { analysis: null, factor: null };
  }

  #picked() {
    return { layer: Number(this.#pick.layer.value), head: Number(this.#pick.head.value), query: Number(this.#pick.query.value) };
  }

  async #drawPicked() {
    const current = this.#current;
    if (!current) return;
    const { analysis, info } = current;
    const { layer, head, query } = this.#picked();
    const site = siteNamed(info.sites, analysis.site);
    const tokens = analysis.tokens;
    const text = (i) => `“${tokens[i]}” (position ${i})`;
    const weighted = analysis.valueWeighted[site.name];
    if (weighted) {
      this.#vnorm.set(attentionSpec({ site, queries: { labels: tokens, text }, keys: { labels: tokens, text }, highlightRow: query, tensor: weighted },
        layer, head, true));
    }
    const args = { url: current.url, text: current.text, interventions: current.iv, site: site.name, layer, head, query };
    const key = JSON.stringify(args);
    if (key === this.#factorKey) return;
    this.#factorKey = key;
    const factor = await this.#engine.request('encoderFactor', args);
    if (this.#factorKey !== key) return;
    this.#shown.factor = factor;
    this.#drawFactor(tokens, factor, { layer, head, query });
  }

  #drawFactor(tokens, { logits, weights }, { layer, head, query }) {
    const rows = tokens.map((t, i) => {
      const tr = el('tr', {}, el('th', { scope: 'row', textContent: t }), el('td', { textContent: logits[i].toFixed(3) }),
        el('td', { textContent: weights[i].toFixed(3) }));
      tr.dataset.logit = String(logits[i]);
      tr.dataset.weight = String(weights[i]);
      return tr;
    });
    const table = el('table', { className: 'ea-factor-table' },
      el('caption', { textContent: `Layer ${layer + 1}, head ${head + 1}, query ${query} “${tokens[query]}”` }),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col', textContent: 'Key' }), el('th', { scope: 'col', textContent: 'q·kᵀ/√d (before)' }),
        el('th', { scope: 'col', textContent: 'Attention (after)' }))),
      el('tbody', {}, ...rows));
    this.#factor.replaceChildren(table);
  }

  #drawPatterns(site, patterns) {
    const head = el('tr', {}, el('td'));
    for (let h = 0; h < site.heads; h++) head.append(el('th', { scope: 'col', textContent: `head ${h + 1}` }));
    const body = el('tbody');
    for (let l = 0; l < site.layers; l++) {
      const tr = el('tr', {}, el('th', { scope: 'row', textContent: `layer ${l + 1}` }));
      for (let h = 0; h < site.heads; h++) {
        const td = el('td', { textContent: patterns[l * site.heads + h] });
        td.dataset.pattern = patterns[l * site.heads + h];
        tr.append(td);
      }
      body.append(tr);
    }
    this.#patterns.replaceChildren(el('table', { className: 'ea-patterns' }, el('thead', {}, head), body));
  }
}
