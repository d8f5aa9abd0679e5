// The page's state in its URL (?s=…&model=…&mode=…&step=…&layer=…&head=…&view=…), so any view
// can be linked. Mode options (beam width, length penalty, sampling settings) ride along.
import { defaultModelId, findModel } from '../models.js';

export const VIEWS = ['cross', 'encoder', 'self', 'model', 'beam'];
export const MODES = ['greedy', 'beam', 'sample'];
export const PENALTIES = ['none', 'average', 'gnmt'];

export const DEFAULTS = Object.freeze({
  s: findModel(defaultModelId).example, model: defaultModelId, mode: 'greedy', step: 1, layer: 0, head: 0, view: 'cross',
  kind: 'cross', beam: 4, lp: 'none', alpha: 0.6, temp: 1, topk: 0, topp: 1, seed: 1,
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

/** The state a query string describes (anything missing or invalid takes its default). */
export function parseState(search) {
  const q = new URLSearchParams(search);
  const model = findModel(q.get('model')) ? q.get('model') : DEFAULTS.model;
  const s = q.get('s')?.trim() || (model === DEFAULTS.model ? DEFAULTS.s : findModel(model).example);
  const step = q.get('step') === 'end' ? 'end' : int(q.get('step'), 0, 100_000, DEFAULTS.step);
  const head = q.get('head') === 'mean' ? 'mean' : int(q.get('head'), 0, 1024, DEFAULTS.head);
  return {
    s, model, step, head,
    mode: oneOf(q.get('mode'), MODES, DEFAULTS.mode),
    layer: int(q.get('layer'), 0, 1024, DEFAULTS.layer),
    view: oneOf(q.get('view'), VIEWS, DEFAULTS.view),
    kind: oneOf(q.get('kind'), ['cross', 'encoder', 'self'], DEFAULTS.kind),
    beam: int(q.get('beam'), 1, 64, DEFAULTS.beam),
    lp: oneOf(q.get('lp'), PENALTIES, DEFAULTS.lp),
    alpha: num(q.get('alpha'), 0, 10, DEFAULTS.alpha),
    temp: num(q.get('temp'), 1e-3, 100, DEFAULTS.temp),
    topk: int(q.get('topk'), 0, 100_000, DEFAULTS.topk),
    topp: num(q.get('topp'), 1e-6, 1, DEFAULTS.topp),
    seed: int(q.get('seed'), 0, Number.MAX_SAFE_INTEGER, DEFAULTS.seed),
  };
}

/** The query string of a state: the view's coordinates always, the mode's options when used. */
export function formatState(st) {
  const q = new URLSearchParams();
  q.set('s', st.s);
  q.set('model', st.model);
  q.set('mode', st.mode);
  if (st.mode === 'beam') {
    q.set('beam', st.beam);
    q.set('lp', st.lp);
    if (st.lp === 'gnmt') q.set('alpha', st.alpha);
  }
  if (st.mode === 'sample') {
    q.set('temp', st.temp);
    q.set('topk', st.topk);
    q.set('topp', st.topp);
    q.set('seed', st.seed);
  }
  q.set('step', st.step);
  q.set('view', st.view);
  if (st.view === 'model') q.set('kind', st.kind);
  q.set('layer', st.layer);
  q.set('head', st.head);
  return `?${q}`;
}

/** The engine's decoding options of a state. */
export function decodeOptions(st) {
  if (st.mode === 'beam') {
    return { strategy: 'beam', beamSize: st.beam, nbest: st.beam, lengthPenalty: st.lp, ...(st.lp === 'gnmt' ? { alpha: st.alpha } : {}) };
  }
  if (st.mode === 'sample') return { strategy: 'sample', temperature: st.temp, topK: st.topk, topP: st.topp, seed: st.seed };
  return { strategy: 'greedy' };
}
