// What the output card says of a broken result names what the model writes: a translator's
// translation, a decoder-only model's continuation (web/app/panels/output-panel.js outcomeNote).
import { expect, it } from 'vitest';
import { outcomeNote } from '../../web/app/panels/output-panel.js';

/** A finished snapshot whose model ended at once (its first token was </s>). */
const endedAtOnce = (input) => ({
  input, done: true, hitMaxLength: false, eos: '</s>', subwords: false, path: { tokens: ['</s>'], text: '' },
});

it('says a translation is empty for a translator, a continuation for a model that continues a prompt', () => {
  expect(outcomeNote(endedAtOnce('source'))).toBe('The model ended at once: the first token it chose was “</s>” (end of sentence), so the translation is empty.');
  expect(outcomeNote(endedAtOnce('prompt'))).toBe('The model ended at once: the first token it chose was “</s>” (end of sentence), so the continuation is empty.');
});
