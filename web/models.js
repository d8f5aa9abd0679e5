// The models the demo page and the <attn-scope> widget offer: the one manifest.
// Adding a model is one line. Fields: id (used in page URLs and in <attn-scope model="…">),
// file (relative to this manifest), label, example (a sentence it knows), and optionally
// group (an <optgroup> of the picker) and heads (a head-importance sweep precomputed with
// models/evaluation/head_sweep.py, relative to this manifest: the page's Analyses card shows it without
// running anything); an encoder-only model may have ablation (a head-ablation map precomputed
// with attnscope-cli bert-study, models/README.md: the encoder-only panel shows it at once). The first entry is the default of the page. The toy model, the one the npm
// package ships, also has `url`: the same file as a literal `new URL('…', import.meta.url)`, the
// form bundlers (Vite, webpack 5, rolldown) recognise and copy into an app's build with the
// URL rewritten (a computed `new URL(entry.file, …)` they leave alone, and its file would be missing).
import { isTrainedId, trainedLabel } from './app/state/trained.js';

export const models = [
  { id: 'toy-en-de', file: '../models/toy-en-de.safetensors', url: () => new URL('../models/toy-en-de.safetensors', import.meta.url).href, label: 'Toy en→de · 1 layer, 1 head', example: 'i can eat apple' },
  { id: 'multi30k-en-de', file: '../models/multi30k-en-de.safetensors', label: 'Multi30k en→de · 4+4 layers, 4 heads, BPE', example: 'A little girl is playing in the water.',
    heads: '../models/analysis/multi30k-en-de.heads.json' },
  { id: 'multi30k-de-en', file: '../models/multi30k-de-en.safetensors', label: 'Multi30k de→en · 4+4 layers, 4 heads, BPE', example: 'Ein Mann fährt Fahrrad.' },
  { id: 'multi30k-rnn-en-de', file: '../models/multi30k-rnn-en-de.safetensors', label: 'Multi30k en→de RNN · bi-GRU, Bahdanau attention, BPE', example: 'A man is riding a bike.', group: 'RNN encoder-decoder' },
  { id: 'multi30k-rnn-none-en-de', file: '../models/multi30k-rnn-none-en-de.safetensors', label: 'Multi30k en→de RNN · no attention (final state only), BPE', example: 'A man is riding a bike.', group: 'RNN encoder-decoder' },
  { id: 'toy-rnn-bahdanau-additive', file: '../models/toy-rnn-bahdanau-additive.safetensors', label: 'Toy en→de RNN · Bahdanau attention, additive score', example: 'i can eat apple', group: 'RNN encoder-decoder' },
  { id: 'toy-rnn-luong-dot', file: '../models/toy-rnn-luong-dot.safetensors', label: 'Toy en→de RNN · Luong attention, dot score', example: 'i can eat apple', group: 'RNN encoder-decoder' },
  { id: 'toy-rnn-none', file: '../models/toy-rnn-none.safetensors', label: 'Toy en→de RNN · no attention (final state only)', example: 'i can eat apple', group: 'RNN encoder-decoder' },
  { id: 'multi30k-en-mlm', file: '../models/multi30k-en-mlm.safetensors', label: 'Multi30k English masked LM · 4 layers, 4 heads, WordPiece', example: 'a man is riding a [MASK] .',
    group: 'Encoder-only (BERT)', ablation: '../models/analysis/multi30k-en-mlm.ablation.json' },
  { id: 'multi30k-en-gpt', file: '../models/multi30k-en-gpt.safetensors', label: 'Multi30k English caption writer · GPT, 4 layers, 4 heads, BPE', example: 'A man in a blue shirt is',
    group: 'Decoder-only (GPT)' },
  { id: 'toy-en-de-epoch000', file: '../models/snapshots/toy-en-de.epoch000.safetensors', label: 'Toy en→de, before training (epoch 0)', example: 'i can eat apple', group: 'Toy model during training' },
  { id: 'toy-en-de-epoch001', file: '../models/snapshots/toy-en-de.epoch001.safetensors', label: 'Toy en→de, epoch 1', example: 'i can eat apple', group: 'Toy model during training' },
  { id: 'toy-en-de-epoch003', file: '../models/snapshots/toy-en-de.epoch003.safetensors', label: 'Toy en→de, epoch 3', example: 'i can eat apple', group: 'Toy model during training' },
  { id: 'toy-en-de-epoch010', file: '../models/snapshots/toy-en-de.epoch010.safetensors', label: 'Toy en→de, epoch 10', example: 'i can eat apple', group: 'Toy model during training' },
  { id: 'toy-en-de-epoch030', file: '../models/snapshots/toy-en-de.epoch030.safetensors', label: 'Toy en→de, epoch 30', example: 'i can eat apple', group: 'Toy model during training' },
  { id: 'toy-en-de-epoch100', file: '../models/snapshots/toy-en-de.epoch100.safetensors', label: 'Toy en→de, epoch 100', example: 'i can eat apple', group: 'Toy model during training' },
];

export const defaultModelId = models[0].id;

/**
 * The manifest entry of `id`, or undefined. A model trained in the page (`trained:…`, see
 * web/app/state/trained.js) has an entry made from its name: no file, its name is its URL in the
 * worker. So has a model file named by its absolute http(s) URL (a link's model=URL, made by the
 * widget's "explore" link for its own model file): on the page's own origin, or on another once
 * the reader has said so (allowModelFile), so that a link alone never makes the page download
 * from a site of its choosing.
 */
export function findModel(id) {
  if (isTrainedId(id, trainingPresets)) return { id, label: trainedLabel(id, trainingPresets), example: null, trained: true };
  if (openedFiles.has(id)) return { id, label: `${openedFiles.get(id)} (opened file)`, example: null, local: true };
  return models.find((m) => m.id === id) ?? modelFileEntry(id);
}

// The engine's training presets (web/attnscope.js trainingPresets), once the page has them from
// its worker: a trained model's name may name one (web/app/state/trained.js), and only then is
// such a name a model here.
let trainingPresets = null;

/** The page has the engine's training presets. */
export function noteTrainingPresets(presets) {
  trainingPresets = presets;
}

/** The engine's training presets, or null before the page has them. */
export const knownTrainingPresets = () => trainingPresets;

/**
 * A model file the reader opened from their computer (the page's file picker or a drop) has no
 * URL: its id is `file:NAME`, honest in a page URL but not reloadable (the page asks for the file
 * again). It is a model only once opened in this page: the engine's worker holds its bytes.
 */
export const LOCAL_FILE_PREFIX = 'file:';
const openedFiles = new Map(); // id -> file name

/** The id of a model file opened under `name`. */
export const localFileId = (name) => `${LOCAL_FILE_PREFIX}${name}`;
/** Whether `id` names a model file opened from the reader's computer (opened in this page or not). */
export const isLocalFileId = (id) => typeof id === 'string' && id.startsWith(LOCAL_FILE_PREFIX);

/** The reader opened the model file `name` (its bytes are in the engine's worker); returns its id. */
export function noteOpenedFile(name) {
  const id = localFileId(name);
  openedFiles.set(id, name);
  return id;
}

const allowedFiles = new Set(); // model file URLs of other origins the reader agreed to load

/** The reader agreed to load the model file at `url` (an absolute http(s) URL of another origin). */
export function allowModelFile(url) {
  allowedFiles.add(url);
}

/** An absolute http(s) URL as written (the same string as its parsed form), or null. */
export function httpUrl(id) {
  if (typeof id !== 'string' || !/^https?:\/\//i.test(id)) return null;
  try {
    const url = new URL(id);
    return url.href === id ? url : null;
  } catch {
    return null;
  }
}

function modelFileEntry(id) {
  const url = httpUrl(id);
  if (!url || (url.origin !== globalThis.location?.origin && !allowedFiles.has(url.href))) return undefined;
  let name = url.pathname.split('/').pop() || url.host;
  try { name = decodeURIComponent(name); } catch { /* shown as written */ }
  return { id, label: `${name} (model file, ${url.host})`, example: null, fileUrl: url.href };
}

/** Why `id` names no model: the ids there are (for the page's notice and the widget's error). */
export function unknownModelMessage(id) {
  return `there is no model “${id}”: the models are ${models.map((m) => m.id).join(', ')}`;
}

/** The absolute URL of a manifest entry's file. */
export function modelUrl(entry) {
  if (entry.trained || entry.local) return entry.id;
  if (entry.fileUrl) return entry.fileUrl;
  return entry.url?.() ?? new URL(entry.file, import.meta.url).href;
}

/** The absolute URL of a manifest entry's precomputed head-importance sweep, or null. */
export function headsUrl(entry) {
  return entry?.heads ? new URL(entry.heads, import.meta.url).href : null;
}

/** The absolute URL of a manifest entry's precomputed head-ablation map, or null. */
export function ablationUrl(entry) {
  return entry?.ablation ? new URL(entry.ablation, import.meta.url).href : null;
}
