// The name of a model trained in the page (web/app/panels/training.js): its recipe, so that a URL can
// name it and a page that opens the URL re-trains it (training is deterministic: the same pairs,
// architecture, seed, learning rate and number of epochs give the same weights).
//
//   trained:e8.s1.l1.h1.d64.lr0.001            the toy grammar's 36 pairs (web/data/toy-en-de.csv)
//   trained:e8.s1.l1.h1.d64.lr0.001.p1a2b3c4d  other pairs: the URL carries them (pairs=…) and
//                                               p… is their hash, so two pair sets never share a name
//   trained:e30.s1.l1.h1.d64.lr0.003.rnn-bahdanau   another architecture (ARCHITECTURES), named
//                                               before the pairs' hash; none named: a transformer
// The page and the worker both use this module: the worker registers a trained model under this
// name (its "url" in the worker's model table) and the page's URL state holds it as `model`.

export const TRAINED_PREFIX = 'trained:';
/** The shipped copy of the toy grammar the Training panel starts from (the tests' CSV). */
export const DEFAULT_PAIRS_URL = new URL('../../data/toy-en-de.csv', import.meta.url).href;

const RECIPE = /^trained:e(\d{1,5})\.s(\d{1,15})\.l(\d)\.h(\d)\.d(\d{1,4})\.lr(\d*\.?\d+(?:e-?\d+)?)(?:\.(rnn-[a-z]+))?(?:\.p([0-9a-f]{8}))?$/;

/**
 * What the Training panel trains, by the name a recipe gives it: a label and the trainer options
 * (web/attnscope.js createTrainer) of a recipe {layers, heads, dModel, seed, lr}. The RNNs are the
 * toy RNNs' shape (models/README.md): a bidirectional GRU encoder, d_model as the decoder's hidden
 * size, gradients clipped at 1 as their training script does; they have no heads.
 */
export const ARCHITECTURES = Object.freeze({
  transformer: {
    label: 'Transformer', heads: true,
    options: ({ layers, heads, dModel, seed, lr }) => ({ layers, heads, dModel, seed, lr }),
  },
  'rnn-bahdanau': {
    label: 'RNN, Bahdanau attention', heads: false,
    options: (r) => rnnOptions(r, { attention: 'bahdanau', score: 'additive' }),
  },
  'rnn-luong': {
    label: 'RNN, Luong attention', heads: false,
    options: (r) => rnnOptions(r, { attention: 'luong', score: 'dot' }),
  },
  'rnn-none': {
    label: 'RNN, no attention', heads: false,
    options: (r) => rnnOptions(r, { attention: 'none', score: 'none' }),
  },
});

function rnnOptions({ layers, dModel, seed, lr }, attention) {
  return { family: 'rnn', cell: 'gru', ...attention, layers, dHidden: dModel, bidirectional: true, clipNorm: 1, seed, lr };
}

/** The trainer options of a recipe ({arch, layers, heads, dModel, seed, lr}; arch defaults to 'transformer'). */
export function trainerOptions(recipe) {
  const arch = ARCHITECTURES[recipe.arch ?? 'transformer'];
  if (!arch) throw new Error(`unknown architecture '${String(recipe.arch)}'`);
  return arch.options(recipe);
}

/** "source,target" lines as the engine reads them: trimmed, blank lines dropped, '\n'-joined. */
export function normalizePairs(text) {
  return String(text).split('\n').map((l) => l.trim()).filter(Boolean).join('\n');
}

/** FNV-1a (32 bits) of a string's UTF-16 code units, as 8 hex digits: tells pair sets apart. */
export function pairsHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/**
 * The name of the model `recipe` makes: {epochs, seed, layers, heads, dModel, lr} and `pairs`
 * (null: the toy grammar; else the normalized pairs text, hashed into the name).
 */
export function trainedId({ epochs, seed, layers, heads, dModel, lr, arch = 'transformer' }, pairs = null) {
  const named = arch === 'transformer' ? '' : `.${arch}`;
  return `${TRAINED_PREFIX}e${epochs}.s${seed}.l${layers}.h${heads}.d${dModel}.lr${lr}${named}${pairs === null ? '' : `.p${pairsHash(pairs)}`}`;
}

/** The recipe a name says ({epochs, seed, layers, heads, dModel, lr, hash (null: the toy)}), or null. */
export function parseTrainedId(id) {
  const m = RECIPE.exec(typeof id === 'string' ? id : '');
  if (!m) return null;
  const lr = Number(m[6]);
  if (!(lr > 0 && lr <= 1)) return null;
  const arch = m[7] ?? 'transformer';
  if (!Object.hasOwn(ARCHITECTURES, arch)) return null;
  return {
    epochs: Number(m[1]), seed: Number(m[2]), layers: Number(m[3]), heads: Number(m[4]), dModel: Number(m[5]), lr,
    ...(arch === 'transformer' ? {} : { arch }), hash: m[8] ?? null,
  };
}

export const isTrainedId = (id) => parseTrainedId(id) !== null;

/** A short label for the model picker and messages. */
export function trainedLabel(id) {
  const r = parseTrainedId(id);
  if (!r) return id;
  const pairs = r.hash ? 'your pairs' : 'toy grammar';
  const arch = ARCHITECTURES[r.arch ?? 'transformer'];
  const heads = arch.heads ? `${r.heads} head${r.heads > 1 ? 's' : ''}, ` : '';
  return `Trained here · ${r.arch ? `${arch.label} · ` : ''}${pairs}, ${r.layers} layer${r.layers > 1 ? 's' : ''}, ${heads}`
    + `d ${r.dModel}, ${r.epochs} epoch${r.epochs === 1 ? '' : 's'}, seed ${r.seed}`;
}
