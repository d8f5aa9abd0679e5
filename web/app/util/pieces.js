// Tokens as people read them: the one rule every view that shows a token follows (the output
// card, the logits, the maps and their tooltips, the beam tree, the compare panes, the exports and
// the <attn-scope> widget).
//
// A model that cuts words into pieces marks where words start or go on, each tokenizer its own
// way (MARKERS, by the model's info.tokenizer.type):
//   - attnscope's BPE ('bpe') and SentencePiece ('sentencepiece'): "▁" starts a word
//     ("▁Ein ▁Mann ▁fähr t"; SentencePiece may cut the marker off alone: "▁ rid ing");
//   - byte-level BPE ('byte_bpe', GPT-2): "Ġ" is the space before a word ("Two Ġdogs Ġare");
//   - WordPiece ('wordpiece', BERT): "##" starts a piece that goes on the word before ("play ##ing");
//   - subword-nmt's BPE: "@@" ends a piece that the next one goes on ("fähr@@ t").
// With pieces hidden (the page's default, and the widget's), a run of tokens reads as the words a
// person writes ("Ein Mann fährt"); where a view labels a single token, the marker is dropped and
// a piece that goes on a word stands after "·" ("Mann", "·t"; "fähr·" before its next piece), so
// that it is not read as a word of its own, and a word-start marker cut off alone reads "␣", the
// space it stands for. With pieces shown, every token is the model's piece, marker and all. A
// word-level model ('word') has no pieces: its tokens are words, shown as they are either way. Special tokens (<s>, </s>, <unk>, [CLS], [SEP], [MASK]) are never cut or marked.

/**
 * Where each convention's marker stands: START (it begins a word; a piece without it goes on the
 * word before), NEXT (it begins a piece that goes on the word before) or END (it ends a piece
 * that the next one goes on).
 */
const START = 0;
const NEXT = 1;
const END = 2;
export const MARKERS = { '▁': START, 'Ġ': START, '##': NEXT, '@@': END };
/** The convention of each tokenizer that cuts words (info.tokenizer.type). */
const STYLE = { bpe: '▁', sentencepiece: '▁', byte_bpe: 'Ġ', wordpiece: '##' };

/** A model's convention (a key of MARKERS) from its info.tokenizer; null for a model that does not cut words. */
export const pieceStyle = (tokenizer) => STYLE[tokenizer?.type] ?? null;

/** Whether a model (its info.tokenizer) cuts words into pieces. */
export const cutsWords = (tokenizer) => pieceStyle(tokenizer) !== null;

/** How a word-start marker cut off alone (SentencePiece's "▁" before "is") reads: the space it stands for. */
const SPACE = '␣';
const special = (p) => /^<.*>$|^\[[A-Z]+\]$/.test(p);

/**
 * Piece `p` (not special) read with marker `m`: [its text without the marker, whether it goes on
 * the word before, whether the next piece goes on it]. A word-start marker alone is an empty
 * word start.
 */
function read(p, m) {
  const at = MARKERS[m];
  if (at === START) return p.startsWith(m) ? [p.slice(m.length)] : [p, true];
  if (p === m || !(at === NEXT ? p.startsWith(m) : p.endsWith(m))) return [p];
  return at === NEXT ? [p.slice(m.length), true] : [p.slice(0, -m.length), false, true];
}

/**
 * One token as shown. subwords: the model's convention (pieceStyle; a snapshot's `subwords`),
 * false for a word-level model; show: the page's "show subword pieces" switch.
 */
export function tokenLabel(piece, { subwords, show = false }) {
  if (!(subwords in MARKERS) || show || special(piece)) return piece;
  if (piece === subwords) return SPACE;
  const [text, on, open] = read(piece, subwords);
  return `${on ? '·' : ''}${text}${open ? '·' : ''}`;
}

/**
 * A run of tokens as shown: [{text, from, to}] (tokens [from, to) make each item). Pieces hidden:
 * one item per word, its pieces joined without their markers; otherwise one item per token.
 */
export function shownWords(pieces, { subwords, show = false }) {
  if (!(subwords in MARKERS) || show) return pieces.map((p, i) => ({ text: p, from: i, to: i + 1 }));
  const words = [];
  let open = false; // the next piece may go on the last word: it ended open, or takes pieces that go on it
  pieces.forEach((p, i) => {
    const [text, on, ends] = special(p) ? [p] : read(p, subwords);
    const last = words.at(-1);
    if (open && !special(p) && (on || last.open)) {
      last.text += text;
      last.to = i + 1;
    } else {
      words.push({ text, from: i, to: i + 1 });
    }
    words.at(-1).open = ends;
    open = !special(p);
  });
  // A word-start marker the model cut off alone, with no piece after it: a space.
  return words.map(({ text, from, to }) => ({ text: text || SPACE, from, to }));
}

/** A run of tokens as one line of text (shownWords joined by spaces). */
export const shownText = (pieces, options) => shownWords(pieces, options).map((w) => w.text).join(' ');

/** What the page's "show subword pieces" line says of the markers of `subwords` (a key of MARKERS). */
export function markerHelp(subwords) {
  if (!(subwords in MARKERS)) return '';
  const at = MARKERS[subwords];
  return `The model cuts words into pieces: ${at === START ? `${subwords} starts a word, a piece without it continues the word before (shown as ·piece`
    : at === NEXT ? `${subwords} starts a piece that continues the word before (shown as ·piece` : `${subwords} ends a piece that the next one continues (shown as piece·`} where a view names one token).`;
}

/** Whether the page's "show subword pieces" switch is on (main.js keeps it as a class of <body>). */
export const piecesShown = () => globalThis.document?.body?.classList.contains('show-pieces') ?? false;

/** A snapshot's tokens as the page shows them now: piece -> label (tokenLabel). */
export function labelOf(snap, show = piecesShown()) {
  const options = { subwords: snap.subwords, show };
  return (piece) => tokenLabel(piece, options);
}
