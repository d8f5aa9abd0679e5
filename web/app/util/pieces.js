// Tokens as people read them: the one rule every view that shows a token follows (the output
// card, the logits, the maps and their tooltips, the beam tree, the compare panes, the exports and
// the <attn-scope> widget).
//
// A BPE model cuts words into pieces and writes "▁" at the start of each word's first piece
// ("▁Ein ▁Mann ▁fähr t"). With pieces hidden (the page's default, and the widget's), a run of
// tokens reads as the words a person writes ("Ein Mann fährt"); where a view labels a single
// token, the marker is dropped and a piece that continues a word stands after "·" ("Mann",
// "·t"), so that it is not read as a word of its own. With pieces shown, every token is the
// model's piece, "▁" its one marker. A word-level model has no pieces: its tokens are words,
// shown as they are either way. Special tokens (<s>, </s>, <unk>) are never cut or marked.
export const WORD_START = '▁';

/** Whether a model (its info.tokenizer) cuts words into pieces that WORD_START marks. */
export const cutsWords = (tokenizer) => tokenizer?.type === 'bpe';

const special = (p) => /^<.*>$/.test(p);
const startsWord = (p) => p.startsWith(WORD_START);
const continues = (p) => !startsWord(p) && !special(p);

/**
 * One token as shown. subwords: the model cuts words (cutsWords; a snapshot's `subwords`);
 * show: the page's "show subword pieces" switch.
 */
export function tokenLabel(piece, { subwords, show = false }) {
  if (!subwords || show) return piece;
  if (startsWord(piece)) return piece.slice(WORD_START.length) || WORD_START;
  return special(piece) ? piece : `·${piece}`;
}

/**
 * A run of tokens as shown: [{text, from, to}] (tokens [from, to) make each item). Pieces hidden:
 * one item per word, its pieces joined without the marker; otherwise one item per token.
 */
export function shownWords(pieces, { subwords, show = false }) {
  if (!subwords || show) return pieces.map((p, i) => ({ text: p, from: i, to: i + 1 }));
  const words = [];
  pieces.forEach((p, i) => {
    const last = words.at(-1);
    if (last && continues(p) && !special(pieces[i - 1])) {
      last.text += p;
      last.to = i + 1;
    } else {
      words.push({ text: startsWord(p) ? p.slice(WORD_START.length) || WORD_START : p, from: i, to: i + 1 });
    }
  });
  return words;
}

/** A run of tokens as one line of text (shownWords joined by spaces). */
export const shownText = (pieces, options) => shownWords(pieces, options).map((w) => w.text).join(' ');

/** Whether the page's "show subword pieces" switch is on (main.js keeps it as a class of <body>). */
export const piecesShown = () => globalThis.document?.body?.classList.contains('show-pieces') ?? false;

/** A snapshot's tokens as the page shows them now: piece -> label (tokenLabel). */
export function labelOf(snap, show = piecesShown()) {
  const options = { subwords: snap.subwords, show };
  return (piece) => tokenLabel(piece, options);
}
