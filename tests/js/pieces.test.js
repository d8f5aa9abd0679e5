// The one rule for showing tokens (web/app/util/pieces.js), per tokenizer kind: a run of pieces
// reads as the words a person writes, one piece alone loses its marker and stands after "·" when
// it goes on a word, and "show subword pieces" shows every piece as the model has it. The
// expected words are written out here from each convention as its tokenizer documents it.
import { describe, expect, it } from 'vitest';
import { MARKERS, cutsWords, markerHelp, pieceStyle, shownText, shownWords, tokenLabel } from '../../web/app/util/pieces.js';

const hidden = (subwords) => ({ subwords, show: false });
const labels = (pieces, subwords) => pieces.map((p) => tokenLabel(p, hidden(subwords)));

it('knows the convention of every tokenizer the engine has', () => {
  expect(pieceStyle({ type: 'word' })).toBe(null);
  expect(pieceStyle({ type: 'bpe' })).toBe('▁');
  expect(pieceStyle({ type: 'sentencepiece' })).toBe('▁');
  expect(pieceStyle({ type: 'byte_bpe' })).toBe('Ġ');
  expect(pieceStyle({ type: 'wordpiece' })).toBe('##');
  expect(pieceStyle(undefined)).toBe(null);
  expect([cutsWords({ type: 'word' }), cutsWords({ type: 'sentencepiece' }), cutsWords({ type: 'wordpiece' })]).toEqual([false, true, true]);
  expect(Object.keys(MARKERS).sort()).toEqual(['##', '@@', 'Ġ', '▁'].sort());
});

describe.each([
  {
    kind: 'word-level (no pieces)', subwords: false,
    pieces: ['i', 'can', 'eat', 'apple', '</s>'],
    text: 'i can eat apple </s>',
    labels: ['i', 'can', 'eat', 'apple', '</s>'],
  },
  {
    kind: "attnscope's BPE: ▁ starts a word", subwords: '▁',
    pieces: ['▁Ein', '▁Mann', '▁fähr', 't', '▁.', '</s>'],
    text: 'Ein Mann fährt . </s>',
    labels: ['Ein', 'Mann', 'fähr', '·t', '.', '</s>'],
  },
  {
    kind: 'SentencePiece: ▁ starts a word, and may stand alone', subwords: '▁',
    pieces: ['▁A', '▁man', '▁', 'is', '▁', 'rid', 'ing', '▁a', '▁ho', 'rse', '</s>'],
    text: 'A man is riding a horse </s>',
    labels: ['A', 'man', '␣', '·is', '␣', '·rid', '·ing', 'a', 'ho', '·rse', '</s>'],
  },
  {
    kind: 'byte-level BPE: Ġ is the space before a word', subwords: 'Ġ',
    pieces: ['<s>', 'Two', 'Ġdogs', 'Ġare', 'Ġrun', 'ning', ','],
    text: '<s> Two dogs are running,',
    labels: ['<s>', '·Two', 'dogs', 'are', 'run', '·ning', '·,'],
  },
  {
    kind: 'WordPiece: ## goes on the word before', subwords: '##',
    pieces: ['[CLS]', 'the', 'man', 'is', 'play', '##ing', '[MASK]', '.', '[SEP]'],
    text: '[CLS] the man is playing [MASK] . [SEP]',
    labels: ['[CLS]', 'the', 'man', 'is', 'play', '·ing', '[MASK]', '.', '[SEP]'],
  },
  {
    kind: "subword-nmt's BPE: @@ ends a piece the next goes on", subwords: '@@',
    pieces: ['ein', 'Mann', 'fähr@@', 't', 'Fahr@@', 'rad', '</s>'],
    text: 'ein Mann fährt Fahrrad </s>',
    labels: ['ein', 'Mann', 'fähr·', 't', 'Fahr·', 'rad', '</s>'],
  },
])('$kind', ({ subwords, pieces, text, labels: expected }) => {
  it('reads a run of pieces as words, and names one piece without its marker', () => {
    expect(shownText(pieces, hidden(subwords))).toBe(text);
    expect(labels(pieces, subwords)).toEqual(expected);
    // Every piece belongs to exactly one word, in order.
    const words = shownWords(pieces, hidden(subwords));
    expect(words.map((w) => [w.from, w.to]).flat()).toEqual(words.flatMap((w, i) => [i === 0 ? 0 : words[i - 1].to, w.to]));
    expect(words.at(-1).to).toBe(pieces.length);
  });

  it('shows every piece as the model has it when pieces are shown', () => {
    expect(shownText(pieces, { subwords, show: true })).toBe(pieces.join(' '));
    expect(pieces.map((p) => tokenLabel(p, { subwords, show: true }))).toEqual(pieces);
  });

  it('says what its marker means', () => {
    const help = markerHelp(subwords);
    if (subwords) expect(help).toContain(subwords);
    else expect(help).toBe('');
  });
});

it('never joins a piece to a special token, nor a special token to a word', () => {
  expect(shownText(['</s>', 'ing', '▁a'], hidden('▁'))).toBe('</s> ing a');
  expect(shownText(['play', '[SEP]', '##ing'], hidden('##'))).toBe('play [SEP] ing');
  expect(shownText(['a@@', '</s>', 'b'], hidden('@@'))).toBe('a </s> b');
});
