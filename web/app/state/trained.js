// The name of a model trained in the page (web/app/panels/training.js): its recipe, so that a URL can
// name it and a page that opens the URL re-trains it (training is deterministic: the same pairs,
// architecture, seed, learning rate and number of epochs give the same weights).
//
//   trained:e8.s1.l1.h1.d64.lr0.001            the toy grammar's 36 pairs (web/data/toy-en-de.csv)
//   trained:e8.s1.l1.h1.d64.lr0.001.p1a2b3c4d  other pairs: the URL carries them (pairs=…) and
//                                               p… is their hash, so two pair sets never share a name
//   trained:e30.s1.l1.h1.d64.lr0.003.PRESET    another architecture: the id of one of the engine's
//                                               training presets (web/attnscope.js trainingPresets),
//                                               named before the pairs' hash; none named: the first
// The page and the worker both use this module: the worker registers a trained model under this
// name (its "url" in the worker's model table) and the page's URL state holds it as `model`.
// Which presets there are is the engine's to say (each model family registers its own): the
// functions that read a preset's id take the engine's list (`presets`); without it (null) only a
// name of the first preset is a model.

export const TRAINED_PREFIX = 'trained:';
/** The shipped copy of the toy grammar the Training panel starts from (the tests' CSV). */
export const DEFAULT_PAIRS_URL = new URL('../../data/toy-en-de.csv', import.meta.url).href;

// A preset's id never looks like the pairs' hash (p and 8 hex digits): the engine's test holds its
// presets to that.
const RECIPE = /^trained:e(\d{1,5})\.s(\d{1,15})\.l(\d)\.h(\d)\.d(\d{1,4})\.lr(\d*\.?\d+(?:e-?\d+)?)(?:\.(?!p[0-9a-f]{8}$)([a-z][a-z0-9-]*))?(?:\.p([0-9a-f]{8}))?$/;

/** The preset of `presets` that `id` names (undefined: the first), or null. */
export function presetOf(presets, id) {
  if (!presets) return null;
  return (id === undefined ? presets[0] : presets.find((p) => p.id === id)) ?? null;
}

/**
 * The trainer options (web/attnscope.js createTrainer) of a recipe {arch (a preset's id; absent:
 * the first), layers, heads, dModel (the width), seed, lr}: the preset's own options and the
 * recipe's sizes, under the preset's names for them.
 */
export function trainerOptions(recipe, presets) {
  const preset = presetOf(presets, recipe.arch);
  if (!preset) throw new Error(`unknown architecture '${String(recipe.arch)}'`);
  const { layers, heads, dModel, seed, lr } = recipe;
  return { ...preset.options, layers, ...(preset.heads ? { heads } : {}), [preset.width]: dModel, seed, lr };
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
 * The name of the model `recipe` makes: {epochs, seed, layers, heads, dModel, lr, arch (a
 * preset's id, absent for the first)} and `pairs` (null: the toy grammar; else the normalized
 * pairs text, hashed into the name).
 */
export function trainedId({ epochs, seed, layers, heads, dModel, lr, arch }, pairs = null) {
  const named = arch === undefined ? '' : `.${arch}`;
  return `${TRAINED_PREFIX}e${epochs}.s${seed}.l${layers}.h${heads}.d${dModel}.lr${lr}${named}${pairs === null ? '' : `.p${pairsHash(pairs)}`}`;
}

/**
 * The recipe a name says ({epochs, seed, layers, heads, dModel, lr, arch (the preset's id; absent:
 * the first preset), hash (null: the toy)}), or null: also for a preset not among `presets` (the
 * engine's), or the first named (it never is).
 */
export function parseTrainedId(id, presets = null) {
  const m = RECIPE.exec(typeof id === 'string' ? id : '');
  if (!m) return null;
  const lr = Number(m[6]);
  if (!(lr > 0 && lr <= 1)) return null;
  const arch = m[7];
  if (arch !== undefined && [null, presets?.[0]].includes(presetOf(presets, arch))) return null;
  return {
    epochs: Number(m[1]), seed: Number(m[2]), layers: Number(m[3]), heads: Number(m[4]), dModel: Number(m[5]), lr,
    ...(arch === undefined ? {} : { arch }), hash: m[8] ?? null,
  };
}

export const isTrainedId = (id, presets = null) => parseTrainedId(id, presets) !== null;

/** A short label for the model picker and messages. */
export function trainedLabel(id, presets = null) {
  const r = parseTrainedId(id, presets);
  if (!r) return id;
  const pairs = r.hash ? 'your pairs' : 'toy grammar';
  const preset = presetOf(presets, r.arch);
  // Without the engine's list (a name of the first preset), the heads the name counts.
  const heads = (preset?.heads ?? true) ? `${r.heads} head${r.heads > 1 ? 's' : ''}, ` : '';
  return `Trained here · ${r.arch ? `${preset.label} · ` : ''}${pairs}, ${r.layers} layer${r.layers > 1 ? 's' : ''}, ${heads}`
    + `d ${r.dModel}, ${r.epochs} epoch${r.epochs === 1 ? '' : 's'}, seed ${r.seed}`;
}
