// Subword pieces as people read them. A SentencePiece/BPE model writes "▁" at the start of each
// word's first piece ("▁Ein ▁Mann ▁fähr t"). By default the page shows whole words: the marker
// is hidden and a piece that continues a word is drawn against it; a switch shows the pieces as
// the model has them. A word-level model (no marker anywhere) is shown as it is.
export const WORD_START = '▁';

/** Whether these pieces carry the word-start marker (so there is something to explain). */
export const marksWords = (pieces) => pieces.some((p) => p.startsWith(WORD_START));

const special = (p) => /^<.*>$/.test(p);

/** Whether `piece` continues the word before it (no marker, not a special token). */
export const continuesWord = (piece) => !piece.startsWith(WORD_START) && !special(piece);

/** A label as shown: the piece itself, or (words) without the marker, "·" before a continuation. */
export function pieceLabel(piece, showPieces) {
  if (showPieces) return piece;
  if (piece.startsWith(WORD_START)) return piece.slice(WORD_START.length) || WORD_START;
  return special(piece) ? piece : `·${piece}`;
}

/**
 * Fills `el` with the piece: its marker in a span the words display hides (CSS), so the text
 * stays the engine's piece.
 */
export function pieceInto(el, piece) {
  el.replaceChildren();
  if (piece.startsWith(WORD_START)) {
    const m = document.createElement('span');
    m.className = 'wm';
    m.textContent = WORD_START;
    el.append(m, piece.slice(WORD_START.length));
  } else {
    el.textContent = piece;
  }
  if (continuesWord(piece)) el.classList.add('cont');
}
