// The page's words for the kind of model it shows (web/attnscope.js info.input): a model that
// translates its text ('source': the transformer and RNN encoder-decoders), one that continues it
// ('prompt': a decoder-only model) and one that reads it and fills its [MASK]s ('text': an
// encoder-only model). The one owner of those words: the form's label and button, the output
// card's labels, and every element of index.html marked data-input="KIND…" (the intro, the
// tagline), shown only for the kinds it names. The views need no other change: a decoder-only
// model's one site is read from its table like any other.
import { byId as $ } from '../util/html.js';

/** The words each element shows, per kind of input. */
const WORDS = {
  source: {
    'sentence-label': 'Sentence to translate',
    translate: 'Translate',
    'source-label': 'Source:',
    'translation-label': 'Translation:',
  },
  prompt: {
    'sentence-label': 'Prompt',
    translate: 'Generate',
    'source-label': 'Prompt:',
    'translation-label': 'Continuation:',
  },
  text: {
    'sentence-label': 'Text (put [MASK] where a word should be guessed; a pair: A [SEP] B)',
    translate: 'Read',
    'source-label': 'Text:',
    'translation-label': 'Guesses:',
  },
};
const PLACEHOLDERS = { source: '', prompt: 'The start of a text for the model to continue, e.g. A man in a blue shirt is', text: '' };
const STEPS_LABELS = { source: 'Decoding steps so far: input → output', prompt: 'Generation steps so far: input → output', text: 'Steps: none (the model reads the text at once)' };

/** Whether the model of `info` continues a prompt (web/attnscope.js info.input). */
export const continuesPrompt = (info) => info?.input === 'prompt';

/** The kind of input of the model of `info`: 'source', 'prompt' or 'text' (no model yet: 'source'). */
export const inputKind = (info) => (info?.input in WORDS ? info.input : 'source');

/** Puts every word of the page in the mode of the model of `info` (see the file's comment). */
export function renderInputKind(info) {
  const kind = inputKind(info);
  for (const [id, words] of Object.entries(WORDS[kind])) {
    if ($(id).textContent !== words) $(id).textContent = words;
  }
  $('sentence').placeholder = PLACEHOLDERS[kind];
  $('lines').setAttribute('aria-label', STEPS_LABELS[kind]);
  for (const el of document.querySelectorAll('[data-input]')) el.hidden = !el.dataset.input.split(' ').includes(kind);
  $('app').classList.toggle('prompt-mode', kind === 'prompt');
}
