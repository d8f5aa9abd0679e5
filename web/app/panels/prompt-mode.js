// Prompt mode: the form's and the output card's words for a model that continues its text (a
// decoder-only model: info.input === 'prompt', web/attnscope.js) instead of translating it. The
// views need no other change: such a model's one site is read from its table like any other.
import { byId as $ } from '../util/html.js';

/** The words each element shows in prompt mode; the translation words are read from the page once. */
const PROMPT_WORDS = {
  'sentence-label': 'Prompt',
  translate: 'Generate',
  'source-label': 'Prompt:',
  'translation-label': 'Continuation:',
};
const PROMPT_PLACEHOLDER = 'The start of a text for the model to continue, e.g. A man in a blue shirt is';

let translationWords = null; // id -> text, as index.html has them

/** Whether the model of `info` continues a prompt (web/attnscope.js info.input). */
export const continuesPrompt = (info) => info?.input === 'prompt';

/**
 * Puts the form and the output card in prompt mode for a model that continues its text, else
 * back in translation mode (an encoder-only model's page sets its own words after this).
 */
export function renderInputKind(info) {
  const prompt = continuesPrompt(info);
  translationWords ??= Object.fromEntries(Object.keys(PROMPT_WORDS).map((id) => [id, $(id).textContent]));
  for (const [id, words] of Object.entries(prompt ? PROMPT_WORDS : translationWords)) {
    if ($(id).textContent !== words) $(id).textContent = words;
  }
  $('sentence').placeholder = prompt ? PROMPT_PLACEHOLDER : '';
  $('lines').setAttribute('aria-label', prompt ? 'Generation steps so far: input → output' : 'Decoding steps so far: input → output');
  $('app').classList.toggle('prompt-mode', prompt);
}
