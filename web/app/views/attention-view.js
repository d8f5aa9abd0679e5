// The attention card of the demo page: a tab per attention site of the model (from its site
// table, web/app/model/sites.js), the model view (every layer × head of a site) and the beam tree; the
// layer and head pickers, the caption, the note on what the interventions did to the map shown,
// and the export of the view as SVG.
import { PATTERN_RULES } from '../panels/analyses.js';
import { BeamView } from './beam-view.js';
import { mapSVG } from './heatmap-svg.js';
import { Heatmap } from './heatmap.js';
import { byId as $ } from '../util/html.js';
import { PATTERN_LABEL, editsOf } from '../panels/interventions.js';
import { piecesShown } from '../util/pieces.js';
import { ModelView } from './model-view.js';
import { classifiedSite, mainSite, siteNamed, tabOrder, vectorsOffered } from '../model/sites.js';
import { PANES, hasInterventions, noInterventions } from '../state/state.js';
import { attentionSpec } from './views.js';
import { mapsData } from '../util/data-export.js';

/** What the rows and columns of a site's map are, by its roles (what its queries and keys are). */
const CAPTIONS = {
  'target>source': 'Rows: decoding steps (the token each produced). Columns: source tokens. Each row shows where the decoder looked in the source while choosing that row’s token; a row sums to 1. The orange row is the current step.',
  'source>source': 'Rows: source tokens (queries). Columns: source tokens (keys). How each source token gathers context from the others in the encoder — computed once, before decoding starts.',
  'target>target': 'Rows: decoding steps. Columns: the target tokens fed to the decoder so far (<s> and earlier outputs). A step can only look back; grey cells are the masked future.',
};
const PANE_CAPTIONS = {
  model: 'Every layer × head at once. Hover a thumbnail for exact values; click one (or focus it and press Enter) to open it.',
  beam: 'Every candidate the search looked at, by step. Scores are cumulative log-probabilities (closer to 0 is better). Click a node or a hypothesis to follow its path in the other views.',
};
/** A decoder-only model's one map: its context is the prompt and what it wrote (snap.input 'prompt'). */
const CONTEXT_CAPTION = 'Rows and columns: the context, the prompt as the model reads it (<s> first only where it reads one), then each token generated. The first step reads the whole prompt at once (its rows); each step after it adds one row. A position can only look back: the grey triangle is the masked future. The orange row is the current step.';
const captionOf = (site, snap) => (snap.input === 'prompt' && site.perStep ? CONTEXT_CAPTION : null)
  ?? CAPTIONS[`${site.queries}>${site.keys}`] ?? `${site.label}. Rows: ${site.queries} tokens (queries). Columns: ${site.keys} tokens (keys).`;
const VNORM_CAPTION = ' Shown: ‖α·f(x)‖ (Kobayashi et al. 2020), each weight times the norm of what that token sends through the head (W_O·v); rows no longer sum to 1.';

/** How a tab names a site: "Cross-attention", "Encoder self", "Decoder self". */
const tabLabel = (site) => site.label.replace(/ self-attention$/, ' self');

/** A head as people read it: 1-based (the API and the URL count from 0). */
export const headName = (h, of) => (h === 'mean' ? 'mean of heads' : `head ${h + 1}${of ? ` of ${of}` : ''}`);

/**
 * The URL state fitted to a model's sites: a view or kind the model lacks becomes its main
 * site, a layer or head it lacks the last layer / the first head of the site shown. A model
 * without attention sites opens on the model view, which says so.
 */
export function fitView(st, sites) {
  const main = mainSite(sites)?.name;
  const view = PANES.includes(st.view) || siteNamed(sites, st.view) ? st.view : main ?? 'model';
  const kind = siteNamed(sites, st.kind) ? st.kind : main;
  const site = siteNamed(sites, view === 'model' ? kind : view);
  const fitted = { ...st, view, kind };
  if (site && view !== 'model') {
    if (st.layer >= site.layers) fitted.layer = site.layers - 1;
    if (st.head !== 'mean' && st.head >= site.heads) fitted.head = 0;
  }
  return fitted;
}

/** The interventions the shown translation was made with (the snapshot's, not the panel's). */
export const shownInterventions = (snap) => snap?.options?.interventions ?? noInterventions();

function setOptions(select, values, labels, current) {
  const want = values.map(String).join(',');
  if (select.dataset.values !== want) {
    select.replaceChildren(...values.map((v, i) => new Option(labels[i], v)));
    select.dataset.values = want;
  }
  select.value = String(current);
}

/**
 * The main map is on its canvas (Heatmap.set draws at once): 'attnscope:heatmap-drawn'; then
 * 'attnscope:heatmap-frame' when the next animation frame starts (the frame that will show it),
 * and 'attnscope:heatmap-painted' in a task queued from there (that frame's style, layout and
 * paint are done). tests/bench/page_latency.mjs times a press of Next to these. Only the latest
 * of each is kept (a long session would pile them up).
 */
function markDrawn() {
  const mark = (name) => {
    performance.clearMarks(name);
    performance.mark(name);
  };
  mark('attnscope:heatmap-drawn');
  requestAnimationFrame(() => {
    mark('attnscope:heatmap-frame');
    setTimeout(() => mark('attnscope:heatmap-painted'));
  });
}

export class AttentionView {
  #store;
  #onGoto;
  #onNeedTree;
  #onFirstHeatmap;
  #tabsKey = '';
  #main = null; // the Heatmap of a site's map
  #pinned = null; // the Heatmap of the pinned head, beside it
  #model;
  #beam;

  /**
   * store: the page store; onGoto(step); onSelectPath(ids); onNeedTree() (the beam view has no
   * tree for this position yet); onFirstHeatmap() (once a map is drawn).
   */
  constructor({ store, onGoto, onSelectPath, onNeedTree, onFirstHeatmap }) {
    this.#store = store;
    this.#onGoto = onGoto;
    this.#onNeedTree = onNeedTree;
    this.#onFirstHeatmap = onFirstHeatmap;
    this.#model = new ModelView({ open: (site, layer, head) => store.setState({ view: site, layer, head }), onDrawn: onFirstHeatmap });
    this.#beam = new BeamView({ onSelectPath });
    $('layer').addEventListener('change', () => store.setState({ layer: Number($('layer').value) }));
    $('head').addEventListener('change', () => store.setState({ head: $('head').value === 'mean' ? 'mean' : Number($('head').value) }));
    $('kind').addEventListener('change', () => store.setState({ kind: $('kind').value }));
    $('pruned').addEventListener('change', () => this.render());
    $('pin').addEventListener('click', () => {
      const { st } = store.get();
      const here = { site: st.view, layer: st.layer, head: st.head };
      const same = st.pin && st.pin.site === here.site && st.pin.layer === here.layer && st.pin.head === here.head;
      store.setState({ pin: same ? null : here });
    });
    for (const tab of document.querySelectorAll('#attention [role=tab]')) this.#wireTab(tab);
  }

  #wireTab(tab) {
    tab.addEventListener('click', () => this.#store.setState({ view: tab.dataset.view }));
  }

  /** A tab per site (main site first), before the model view's; the model view's site picker. */
  #renderTabs(sites) {
    const key = JSON.stringify(sites.map((s) => [s.name, s.label]));
    if (key === this.#tabsKey) return;
    this.#tabsKey = key;
    const list = document.querySelector('#attention [role=tablist]');
    for (const old of list.querySelectorAll('[data-site]')) old.remove();
    const before = list.querySelector('#tab-model');
    for (const site of tabOrder(sites)) {
      const tab = Object.assign(document.createElement('button'), { type: 'button', id: `tab-${site.name}`, textContent: tabLabel(site) });
      tab.setAttribute('role', 'tab');
      tab.dataset.view = site.name;
      tab.dataset.site = site.name;
      this.#wireTab(tab);
      list.insertBefore(tab, before);
    }
    $('kind').replaceChildren(...tabOrder(sites).map((s) => new Option(tabLabel(s).replace(/-attention$/, '').toLowerCase(), s.name)));
  }

  render() {
    const { st, snap } = this.#store.get();
    if (!snap) return;
    this.#renderTabs(snap.sites);
    const view = st.view;
    for (const tab of document.querySelectorAll('#attention [role=tab]')) {
      const on = tab.dataset.view === view;
      tab.setAttribute('aria-selected', String(on));
      tab.tabIndex = on ? 0 : -1;
    }
    $('view-panel').setAttribute('aria-labelledby', `tab-${view}`);
    const site = siteNamed(snap.sites, view);
    $('layer-field').hidden = $('head-field').hidden = $('pin').hidden = !site;
    $('kind-field').hidden = view !== 'model' || !snap.sites.length;
    $('pruned-field').hidden = view !== 'beam';
    // ‖α·f(x)‖ needs the site's values: hidden where the engine records none (an RNN's score).
    $('vnorm-field').hidden = !vectorsOffered(site, snap.input);
    $('vnorm').value = st.vnorm ? '1' : '0';
    const vnorm = vectorsOffered(site, snap.input) && st.vnorm && snap.vectors;
    $('view-caption').textContent = (site ? captionOf(site, snap) : PANE_CAPTIONS[view]) + (vnorm ? VNORM_CAPTION : '');
    const kind = siteNamed(snap.sites, st.kind);
    $('pattern-help').hidden = !(view === 'model' && kind && kind === classifiedSite(snap.sites, snap.input) && snap.patterns);
    const classified = snap.input === 'prompt' ? 'head on the prompt (the rows of the first step)' : 'encoder head on this sentence';
    $('pattern-help').textContent = `Badges: the pattern class of each ${classified} (Kovaleva et al. 2019). ${PATTERN_RULES}`;
    this.#renderNote(site);
    const body = $('view-body');
    body.dataset.view = view;
    if (site) {
      this.#renderPickers(site);
      if (!this.#main || !body.contains(this.#main.root)) {
        body.replaceChildren();
        // The view's map, and beside it a pinned head (two heads compared at full size).
        const figure = (cls) => {
          const f = document.createElement('figure');
          f.className = `cmp ${cls}`;
          f.append(document.createElement('figcaption'));
          body.append(f);
          return f;
        };
        const now = figure('cmp-now');
        const pinned = figure('cmp-pin');
        this.#main = new Heatmap(now, { onSelect: (r) => this.#select(r) });
        this.#main.root.id = 'heatmap';
        this.#pinned = new Heatmap(pinned);
        this.#pinned.root.id = 'pinned-heatmap';
      }
      this.#renderPin(snap, st, site, vnorm);
      const empty = site.perStep && !snap.rows.length;
      body.querySelector('.placeholder')?.remove();
      this.#main.root.hidden = empty;
      if (empty) {
        body.insertAdjacentHTML('afterbegin', '<p class="placeholder">No step yet: press Next (or →).</p>');
        return;
      }
      this.#main.set(attentionSpec(snap.attention(site.name, { vnorm, show: piecesShown() }), st.layer, st.head, vnorm));
      markDrawn();
      this.#onFirstHeatmap();
    } else if (view === 'model' && !kind) {
      this.#main = null;
      body.innerHTML = '<p class="placeholder no-sites">This model has no attention: its decoder never looks back at the source token by token, so there is no map to draw. The output, the logits and the beam search still show how it translates.</p>';
    } else if (view === 'model') {
      this.#main = null;
      $('kind').value = kind.name;
      this.#model.render(body, snap, kind, { layer: st.layer, head: st.head, interventions: shownInterventions(snap) });
    } else if (!snap.tree) {
      this.#main = null;
      body.innerHTML = '<p class="placeholder">Getting the beam tree…</p>';
      this.#onNeedTree();
    } else {
      this.#main = null;
      this.#beam.render(body, snap, { showPruned: $('pruned').checked });
    }
  }

  /** A row clicked on a per-step map: go to that step (a context map's prompt rows are all the first step's). */
  #select(r) {
    const { st, snap } = this.#store.get();
    // A context map's rows: the prompt's P pieces (the first step), then one a step.
    const k = snap.input === 'prompt' ? Math.max(0, r - snap.source.pieces.length + 1) : r;
    if (siteNamed(snap.sites, st.view)?.perStep && k >= 0 && k < snap.rows.length - 1) this.#onGoto(k + 1);
  }

  #renderPickers(site) {
    const { st } = this.#store.get();
    const L = site.layers;
    const H = site.heads;
    setOptions($('layer'), [...Array(L).keys()], [...Array(L).keys()].map((l) => `${l + 1} of ${L}`), st.layer);
    const heads = [...Array(H).keys()];
    setOptions($('head'), [...heads, 'mean'], [...heads.map((h) => `${h + 1} of ${H}`), 'mean of heads'], st.head);
  }

  /** Under a map of a modified model: what was done to it. */
  #renderNote(site) {
    const { st, snap } = this.#store.get();
    const note = $('view-note');
    const iv = shownInterventions(snap);
    const parts = [];
    if (site && hasInterventions(iv)) {
      const e = editsOf(iv, site, st.layer, st.head);
      const what = st.head === 'mean' ? `in layer ${st.layer + 1}` : `layer ${st.layer + 1}, head ${st.head + 1}`;
      if (e.pattern) parts.push(st.head === 'mean' ? `Overridden: heads of layer ${st.layer + 1} attend by a pattern (“${PATTERN_LABEL[e.pattern]}”), not by their own weights.` : `Overridden: these weights are the “${PATTERN_LABEL[e.pattern]}” pattern, not the head's own.`);
      if (e.masked) parts.push(`Masked (${what}): the head still attends, as shown, but its output is zeroed.`);
      if (e.skipped) parts.push(`Skipped: the ${site.label.toLowerCase()} still runs, as shown, but adds nothing to the model.`);
      if (e.lastState) parts.push('Last state only: this attention still runs, as shown, but the decoder gets the encoder\'s final state instead of its context.');
      if (e.copied) parts.push('Source encoding copied in: this attention still runs, as shown, but the sub-layer outputs the mean of the encoder output instead.');
    }
    note.hidden = parts.length === 0;
    note.textContent = parts.join(' ');
  }

  /** The pinned head beside the view's map (captions on both), or nothing. */
  #renderPin(snap, st, site, vnorm) {
    const body = $('view-body');
    const pinSite = st.pin && siteNamed(snap.sites, st.pin.site);
    const pin = pinSite && st.pin.layer < pinSite.layers && (st.pin.head === 'mean' || st.pin.head < pinSite.heads) ? st.pin : null;
    const empty = (s) => s.perStep && !snap.rows.length;
    const title = (s, layer, head) => `${s.label} · layer ${layer + 1} of ${s.layers} · ${headName(head, s.heads)}`;
    const pinnedHere = pin && pin.site === site.name && pin.layer === st.layer && pin.head === st.head;
    $('pin').textContent = pinnedHere ? 'Unpin this head' : pin ? 'Pin this head instead' : 'Pin this head';
    $('pin').setAttribute('aria-pressed', String(!!pinnedHere));
    body.classList.toggle('comparing', !!pin && !pinnedHere);
    const [nowCap, pinCap] = body.querySelectorAll('.cmp > figcaption');
    const pinFigure = this.#pinned.root.parentElement;
    pinFigure.hidden = !pin || pinnedHere || empty(pinSite);
    nowCap.hidden = pinFigure.hidden;
    if (pinFigure.hidden) return;
    nowCap.textContent = `Now: ${title(site, st.layer, st.head)}`;
    pinCap.textContent = `Pinned: ${title(pinSite, pin.layer, pin.head)}`;
    const pinVnorm = vnorm && pinSite.name === site.name;
    this.#pinned.set(attentionSpec(snap.attention(pinSite.name, { vnorm: pinVnorm, show: piecesShown() }), pin.layer, pin.head, pinVnorm));
  }

  /**
   * The view as data ({columns, rows, json}: web/app/util/data-export.js), and the name of what it
   * shows (for the file name): a site's map (and the pinned head beside it), every layer × head of
   * the model view, or the beam tree.
   */
  data(sentence) {
    const { st, snap } = this.#store.get();
    const site = siteNamed(snap.sites, st.view);
    if (site) {
      if (!this.#main?.spec || this.#main.root.hidden) throw new Error('this view shows no map yet: press Next first');
      const head = (h) => (h === 'mean' ? 'mean' : h + 1);
      const maps = [{ name: { site: site.name, layer: st.layer + 1, head: head(st.head) }, spec: this.#main.spec }];
      if (this.#pinned?.spec && !this.#pinned.root.parentElement.hidden) {
        maps.push({ name: { site: st.pin.site, layer: st.pin.layer + 1, head: head(st.pin.head) }, spec: this.#pinned.spec });
      }
      return {
        data: mapsData(`${site.label} · layer ${st.layer + 1} of ${site.layers} · ${headName(st.head, site.heads)} · ${sentence}`, maps),
        name: this.#fileName(site, st),
      };
    }
    if (st.view === 'beam') {
      if (!snap.tree) throw new Error('the beam tree is still on its way from the engine: try again in a moment');
      return { data: this.#beam.data(snap, { title: `Beam search · ${sentence}` }), name: 'beam' };
    }
    const kind = siteNamed(snap.sites, st.kind);
    if (!kind) throw new Error('this model has no attention: there is no map to export');
    return { data: this.#model.data(snap, kind, `${kind.label}, every layer × head · ${sentence}`), name: `model-${kind.name}` };
  }

  /** A map's file name: its site, layer and head counted from 1 (cross-L2-H4, cross-L2-mean). */
  #fileName(site, st) {
    return `${site.name}-L${st.layer + 1}-${st.head === 'mean' ? 'mean' : `H${st.head + 1}`}`;
  }

  /** The view as an SVG document, and the name of what it shows (for the file name). */
  svg(sentence) {
    const { st, snap } = this.#store.get();
    const site = siteNamed(snap.sites, st.view);
    if (site) {
      return {
        svg: mapSVG(this.#main, `${site.label} · layer ${st.layer + 1} of ${site.layers} · ${headName(st.head, site.heads)} · ${sentence}`),
        name: this.#fileName(site, st),
      };
    }
    if (st.view === 'beam') {
      if (!snap.tree) throw new Error('the beam tree is still on its way from the engine: try again in a moment');
      return { svg: this.#beam.svg(snap, { showPruned: $('pruned').checked, title: `Beam search · ${sentence}` }), name: 'beam' };
    }
    const kind = siteNamed(snap.sites, st.kind);
    return { svg: this.#model.svg(snap, kind, sentence), name: `model-${kind.name}` };
  }
}
