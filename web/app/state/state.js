// The page's state in its URL (?s=…&model=…&mode=…&step=…&layer=…&head=…&view=…), so any view
// can be linked. Mode options (beam width, length penalty, sampling settings) ride along, and so
// do the interventions of the "Break the model" panel, one parameter per item:
//   att=SITE.LAYER.HEAD.PATTERN[.W_W_…]   an attention override (LAYER/HEAD: 0-based or *;
//                                          custom weights joined by _, the rows of a custom
//                                          matrix joined by ~), e.g. att=cross.*.*.uniform,
//                                          att=encoder.0.*.custom.1_0_0~0_1_0
//   mask=SITE.LAYER.HEAD                  a masked head, e.g. mask=encoder.0.3
//   skip=NAME                             a skipped sub-layer (the engine's names), e.g. skip=ffn
//   copysrc=1                             copy the source encoding into the decoder
//   lastsrc=1                             the decoder gets the encoder's final state only ("last
//                                          state only", the RNN seed's picture before attention)
// What the reader did to the decoding rides along as well:
//   force=STEP:TOKEN or STEP.HYP:TOKEN  a forced token (STEP 0-based, TOKEN the target piece as
//                                       the model writes it, HYP the beam hypothesis it extended
//                                       when not 0), e.g. force=3:▁mit
//   pin=SITE.LAYER.HEAD                 a head pinned beside the view (0-based, HEAD may be mean)
//   hyp=N                               the followed hypothesis: the n-best list's entry N (0-based)
//   path=ID_ID_…                        or a followed beam path that is not an n-best entry (target ids)
// The analyses ride along too: vnorm=1 (the attention maps show ‖α·f(x)‖), an=TAB (the open
// analysis: rollout, vectors, importance, timeline), epoch=N (the training timeline's snapshot,
// an index into TIMELINE of web/app/panels/analyses.js).
// A model trained in the page is model=trained:RECIPE (web/app/state/trained.js; opening the link
// re-trains it); trained on pairs other than the toy grammar's, the link carries them too:
// pairs=LINES ("source,target" lines), checked against the hash in the model's name.
// The compare view rides along: compare=ID (a model of web/models.js run on the same sentence
// beside the page's model, its steps in sync with the page's; web/app/panels/compare.js).
//
// Attention sites are the engine's (web/app/model/sites.js): the URL holds a site's name as it is, and
// the page checks it against the model's table once the model is known (a view or kind the model
// lacks falls back to its main site, an intervention on a site it lacks is dropped).
import { defaultModelId, findModel, knownTrainingPresets } from '../../models.js';
import { normalizePairs, pairsHash, parseTrainedId } from './trained.js';

/** The views that are not one attention site: every layer × head of a site, the beam tree. */
export const PANES = ['model', 'beam'];
export const MODES = ['greedy', 'beam', 'sample'];
export const PENALTIES = ['none', 'average', 'gnmt', 'power'];
/** Whether a length penalty takes the exponent α (GNMT's, and Hugging Face's score / len^α). */
export const takesAlpha = (lp) => lp === 'gnmt' || lp === 'power';
export const PATTERNS = ['uniform', 'beginning', 'end', 'custom'];
export const ANALYSES = ['rollout', 'vectors', 'importance', 'timeline'];
export const SKIPS = ['encoderSelfAttention', 'decoderSelfAttention', 'crossAttention', 'ffn', 'layerNorm'];

export const DEFAULTS = Object.freeze({
  // view, kind: null until the model's site table says which site the page opens on.
  s: findModel(defaultModelId).example, model: defaultModelId, mode: 'greedy', step: 1, layer: 0, head: 0, view: null,
  kind: null, pairs: null, vnorm: false, pin: null, forced: Object.freeze([]), hyp: null, path: null, an: 'rollout', epoch: 6, compare: null, beam: 4, lp: 'none', alpha: 0.6, temp: 1, topk: 0, topp: 1, seed: 1,
  iv: Object.freeze({ attention: Object.freeze([]), maskHeads: Object.freeze([]), skip: Object.freeze([]) }),
});

const int = (v, lo, hi, fallback) => {
  const n = Number(v);
  return v !== null && v !== '' && Number.isInteger(n) && n >= lo && n <= hi ? n : fallback;
};
const num = (v, lo, hi, fallback) => {
  const n = Number(v);
  return v !== null && v !== '' && Number.isFinite(n) && n >= lo && n <= hi ? n : fallback;
};
const oneOf = (v, list, fallback) => (list.includes(v) ? v : fallback);
const index = (v) => (v === '*' ? '*' : int(v, 0, 1024, null));
/** A site's name as the URL may carry it (the model's table decides whether it has it). */
const siteName = (v) => (typeof v === 'string' && /^[A-Za-z][\w-]{0,31}$/.test(v) ? v : null);

/** No interventions: the trained model. */
export const noInterventions = () => ({ attention: [], maskHeads: [], skip: [] });

/** Whether `iv` changes anything. */
export const hasInterventions = (iv) => !!iv
  && (iv.attention.length > 0 || iv.maskHeads.length > 0 || iv.skip.length > 0 || iv.copySourceEncoding === true
    || iv.lastSourceState === true);

// A weight as typed or linked; '' and null are not 0 (Number('') would say so).
const weight = (v) => (v === '' || v === null || typeof v === 'boolean' ? NaN : Number(v));

/**
 * Custom weights in their canonical form: a row (every query) or a matrix of two or more rows
 * (row i for query i); a one-row matrix is that row. Null when not finite numbers. Negative or
 * all-zero weights are kept: the engine refuses them with a message the page shows.
 */
export function normalizeWeights(weights) {
  const list = Array.from(weights ?? []);
  if (!list.length) return null;
  const rows = list.every((r) => Array.isArray(r)) ? list.map((r) => r.map(weight)) : [list.map(weight)];
  if (rows.some((r) => !r.length || !r.every(Number.isFinite))) return null;
  return rows.length === 1 ? rows[0] : rows;
}

/** Whether custom weights are a matrix (rows per query) rather than one row. */
export const isMatrix = (weights) => Array.isArray(weights?.[0]);

/**
 * The canonical form of a set of interventions: valid items only, masks without duplicates,
 * skips in SKIPS order, custom weights only on custom overrides. With the model's site table
 * (`sites`), items on sites it lacks are dropped and masks are in site (table order), layer,
 * head order; without it, masks keep their order.
 */
export function normalizeInterventions(iv, sites = null) {
  const known = (v) => {
    const name = siteName(v);
    return name && (!sites || sites.some((x) => x.name === name)) ? name : null;
  };
  const attention = [];
  for (const a of iv?.attention ?? []) {
    const site = known(a?.site);
    const pattern = oneOf(a?.pattern, PATTERNS, null);
    const layer = index(a?.layer ?? '*');
    const head = index(a?.head ?? '*');
    if (!site || !pattern || layer === null || head === null) continue;
    const rule = { site, layer, head, pattern };
    if (pattern === 'custom') {
      const weights = normalizeWeights(a.weights);
      if (!weights) continue;
      rule.weights = weights;
    }
    attention.push(rule);
  }
  const masks = new Map();
  for (const m of iv?.maskHeads ?? []) {
    const site = known(m?.site);
    const layer = int(m?.layer, 0, 1024, null);
    const head = int(m?.head, 0, 1024, null);
    if (site && layer !== null && head !== null) masks.set(`${site}.${layer}.${head}`, { site, layer, head });
  }
  const order = (m) => sites.findIndex((x) => x.name === m.site);
  const maskHeads = sites ? [...masks.values()].sort((a, b) => order(a) - order(b) || a.layer - b.layer || a.head - b.head) : [...masks.values()];
  const skip = SKIPS.filter((k) => (iv?.skip ?? []).includes(k));
  // Only when on, so the trained model stays {attention: [], maskHeads: [], skip: []}.
  return {
    attention, maskHeads, skip, ...(iv?.copySourceEncoding === true ? { copySourceEncoding: true } : {}),
    ...(iv?.lastSourceState === true ? { lastSourceState: true } : {}),
  };
}

function parseInterventions(q) {
  const attention = q.getAll('att').map((text) => {
    const [site, layer, head, pattern, ...rest] = text.split('.');
    const w = rest.join('.');
    const rows = w ? w.split('~').map((r) => r.split('_')) : [];
    return { site, layer, head, pattern, weights: rows.length === 1 ? rows[0] : rows };
  });
  const maskHeads = q.getAll('mask').map((text) => {
    const [site, layer, head] = text.split('.');
    return { site, layer, head };
  });
  return normalizeInterventions({
    attention, maskHeads, skip: q.getAll('skip'), copySourceEncoding: q.get('copysrc') === '1', lastSourceState: q.get('lastsrc') === '1',
  });
}

/** pin=SITE.LAYER.HEAD: the pinned head, or null. */
function parsePin(v) {
  const [site, layer, head] = (v ?? '').split('.');
  const pin = { site: siteName(site), layer: int(layer ?? null, 0, 1024, null), head: head === 'mean' ? 'mean' : int(head ?? null, 0, 1024, null) };
  return pin.site && pin.layer !== null && pin.head !== null ? pin : null;
}

/** force=STEP[.HYP]:TOKEN parameters: forced tokens by step (the last one for a step wins). */
function parseForced(values) {
  const byStep = new Map();
  for (const v of values) {
    const m = /^(\d{1,6})(?:\.(\d{1,4}))?:(.+)$/su.exec(v);
    if (m) byStep.set(Number(m[1]), { step: Number(m[1]), token: m[3], hypothesis: Number(m[2] ?? 0) });
  }
  return [...byStep.values()].sort((a, b) => a.step - b.step);
}

/**
 * The model a query names, and the pairs a model trained on other pairs than the toy grammar's
 * needs (null otherwise). A trained model whose pairs are missing or not the ones its name was
 * made from is no model: the default is shown (and the page says why, see form.js).
 */
function modelOf(q) {
  const id = q.get('model');
  if (!findModel(id)) return { model: DEFAULTS.model, pairs: null };
  const recipe = parseTrainedId(id, knownTrainingPresets());
  if (!recipe?.hash) return { model: id, pairs: null };
  const pairs = normalizePairs(q.get('pairs') ?? '');
  return pairs && pairsHash(pairs) === recipe.hash ? { model: id, pairs } : { model: DEFAULTS.model, pairs: null };
}

/** The state a query string describes (anything missing or invalid takes its default). */
export function parseState(search) {
  const q = new URLSearchParams(search);
  const { model, pairs } = modelOf(q);
  const s = q.get('s')?.trim() || (model === DEFAULTS.model ? DEFAULTS.s : findModel(model).example ?? DEFAULTS.s);
  const step = q.get('step') === 'end' ? 'end' : int(q.get('step'), 0, 100_000, DEFAULTS.step);
  const head = q.get('head') === 'mean' ? 'mean' : int(q.get('head'), 0, 1024, DEFAULTS.head);
  return {
    s, model, pairs, step, head,
    mode: oneOf(q.get('mode'), MODES, DEFAULTS.mode),
    layer: int(q.get('layer'), 0, 1024, DEFAULTS.layer),
    view: PANES.includes(q.get('view')) ? q.get('view') : siteName(q.get('view')) ?? DEFAULTS.view,
    kind: siteName(q.get('kind')) ?? DEFAULTS.kind,
    vnorm: q.get('vnorm') === '1',
    pin: parsePin(q.get('pin')),
    forced: parseForced(q.getAll('force')),
    hyp: int(q.get('hyp'), 0, 1024, null),
    path: q.get('hyp') === null && /^\d+(_\d+)*$/.test(q.get('path') ?? '') ? q.get('path').split('_').map(Number) : null,
    an: oneOf(q.get('an'), ANALYSES, DEFAULTS.an),
    compare: findModel(q.get('compare')) ? q.get('compare') : DEFAULTS.compare,
    epoch: int(q.get('epoch'), 0, 64, DEFAULTS.epoch),
    beam: int(q.get('beam'), 1, 64, DEFAULTS.beam),
    lp: oneOf(q.get('lp'), PENALTIES, DEFAULTS.lp),
    alpha: num(q.get('alpha'), 0, 10, DEFAULTS.alpha),
    temp: num(q.get('temp'), 1e-3, 100, DEFAULTS.temp),
    topk: int(q.get('topk'), 0, 100_000, DEFAULTS.topk),
    topp: num(q.get('topp'), 1e-6, 1, DEFAULTS.topp),
    seed: int(q.get('seed'), 0, Number.MAX_SAFE_INTEGER, DEFAULTS.seed),
    iv: parseInterventions(q),
  };
}

/** The query string of a state: the view's coordinates always, the mode's options when used. */
export function formatState(st) {
  const q = new URLSearchParams();
  q.set('s', st.s);
  q.set('model', st.model);
  if (st.pairs && parseTrainedId(st.model, knownTrainingPresets())?.hash) q.set('pairs', st.pairs);
  q.set('mode', st.mode);
  if (st.mode === 'beam') {
    q.set('beam', st.beam);
    q.set('lp', st.lp);
    if (takesAlpha(st.lp)) q.set('alpha', st.alpha);
  }
  if (st.mode === 'sample') {
    q.set('temp', st.temp);
    q.set('topk', st.topk);
    q.set('topp', st.topp);
    q.set('seed', st.seed);
  }
  q.set('step', st.step);
  if (st.view) q.set('view', st.view);
  if (st.view === 'model' && st.kind) q.set('kind', st.kind);
  q.set('layer', st.layer);
  q.set('head', st.head);
  if (st.vnorm) q.set('vnorm', '1');
  if (st.pin) q.set('pin', `${st.pin.site}.${st.pin.layer}.${st.pin.head}`);
  for (const f of st.forced ?? []) q.append('force', `${f.step}${f.hypothesis ? `.${f.hypothesis}` : ''}:${f.token}`);
  if (st.hyp !== null && st.hyp !== undefined) q.set('hyp', st.hyp);
  else if (st.path?.length) q.set('path', st.path.join('_'));
  if (st.an && st.an !== DEFAULTS.an) q.set('an', st.an);
  if (st.an === 'timeline' && st.epoch !== DEFAULTS.epoch) q.set('epoch', st.epoch);
  if (st.compare) q.set('compare', st.compare);
  const iv = normalizeInterventions(st.iv);
  const weights = (w) => (isMatrix(w) ? w.map((r) => r.join('_')).join('~') : w.join('_'));
  for (const a of iv.attention) q.append('att', [a.site, a.layer, a.head, a.pattern, ...(a.weights ? [weights(a.weights)] : [])].join('.'));
  for (const m of iv.maskHeads) q.append('mask', `${m.site}.${m.layer}.${m.head}`);
  for (const k of iv.skip) q.append('skip', k);
  if (iv.copySourceEncoding) q.set('copysrc', '1');
  if (iv.lastSourceState) q.set('lastsrc', '1');
  return `?${q}`;
}

/** The engine's decoding options of a state, its interventions included (when there are any). */
export function decodeOptions(st) {
  const options = strategyOptions(st);
  if (hasInterventions(st.iv)) options.interventions = normalizeInterventions(st.iv);
  // ‖α·f(x)‖ and the Q·Kᵀ rows need the value and query/key vectors: kept only when asked for.
  if (st.vectors) options.capture = { vectors: true };
  return options;
}

/** The decoding options of a state without its interventions (the unmodified model). */
export function strategyOptions(st) {
  if (st.mode === 'beam') {
    return { strategy: 'beam', beamSize: st.beam, nbest: st.beam, lengthPenalty: st.lp, ...(takesAlpha(st.lp) ? { alpha: st.alpha } : {}) };
  }
  if (st.mode === 'sample') return { strategy: 'sample', temperature: st.temp, topK: st.topk, topP: st.topp, seed: st.seed };
  return { strategy: 'greedy' };
}
