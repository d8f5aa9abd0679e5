"""BERT's WordPiece tokenizer, written from the published algorithm (Devlin et al. 2019; Google's
tokenization.py: BasicTokenizer then WordpieceTokenizer) with Python's unicodedata. Stdlib only.

The attnscope spec object (the `tokenizer` metadata value, models/FORMAT.md):
    {"type": "wordpiece", "lowercase": bool, "unk": "[UNK]", "max_chars_per_word": 100,
     "never_split": ["[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"]}
The vocabulary is the file's vocabulary (vocab.txt, one piece a line, "##" marks a continuation).

split(text):
 0. the never_split strings are cut out of the text where they occur verbatim (as the special
    tokens of a Hugging Face tokenizer are), so "a [MASK]." keeps its [MASK]; each is one piece;
 1. basic tokenizer on every stretch in between:
    a. drop U+0000, U+FFFD and control characters (Cc, Cf but \\t \\n \\r); whitespace (\\t \\n \\r,
       space and category Zs) becomes a space;
    b. a space on either side of every CJK ideograph (the CJK Unified Ideographs blocks);
    c. split on whitespace (str.split(): after (a) that is space, U+2028, U+2029); if lowercase:
       str.lower(), then NFD and drop every Mn (accents);
    d. every punctuation character (categories P*, and the ASCII non-letter, non-digit symbols
       33-47, 58-64, 91-96, 123-126) becomes a word of its own;
 2. WordPiece on every word: longer than max_chars_per_word characters -> unk; else greedy
    longest-match-first from the left, pieces after the first prefixed "##"; a word with a
    position where no piece matches is unk as a whole.
"""

import unicodedata

from .tokenizer import split_punctuation

DEFAULT_SPEC = {
    "type": "wordpiece",
    "lowercase": True,
    "unk": "[UNK]",
    "max_chars_per_word": 100,
    "never_split": ["[CLS]", "[SEP]", "[MASK]", "[PAD]", "[UNK]"],
}


def is_whitespace(c):
    if c in " \t\n\r":
        return True
    return unicodedata.category(c) == "Zs"


def is_control(c):
    if c in "\t\n\r":
        return False
    return unicodedata.category(c) in ("Cc", "Cf")


def is_punctuation(c):
    o = ord(c)
    if 33 <= o <= 47 or 58 <= o <= 64 or 91 <= o <= 96 or 123 <= o <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def is_cjk(o):
    return (0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x2A6DF or 0x2A700 <= o <= 0x2B73F
            or 0x2B740 <= o <= 0x2B81F or 0x2B820 <= o <= 0x2CEAF or 0xF900 <= o <= 0xFAFF
            or 0x2F800 <= o <= 0x2FA1F)


def clean_text(text):
    out = []
    for c in text:
        o = ord(c)
        if o == 0 or o == 0xFFFD or is_control(c):
            continue
        out.append(" " if is_whitespace(c) else c)
    return "".join(out)


def space_cjk(text):
    return "".join(f" {c} " if is_cjk(ord(c)) else c for c in text)


def strip_accents(word):
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def basic_tokenize(text, lowercase):
    text = space_cjk(clean_text(text))
    words = []
    for w in text.split():
        if lowercase:
            w = strip_accents(w.lower())
        words.extend(split_punctuation(w, is_punctuation))
    return words


def wordpiece(word, vocab, unk, max_chars):
    if len(word) > max_chars:
        return [unk]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        found = None
        while start < end:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                found = piece
                break
            end -= 1
        if found is None:
            return [unk]
        pieces.append(found)
        start = end
    return pieces


def cut_specials(text, specials):
    """[(is_special, stretch)], leftmost match first, the longest special at a tie."""
    out, i, begin = [], 0, 0
    ordered = sorted(specials, key=len, reverse=True)
    while i < len(text):
        hit = next((s for s in ordered if s and text.startswith(s, i)), None)
        if hit is None:
            i += 1
            continue
        if begin < i:
            out.append((False, text[begin:i]))
        out.append((True, hit))
        i += len(hit)
        begin = i
    if begin < len(text):
        out.append((False, text[begin:]))
    return out


class WordPiece:
    def __init__(self, spec, vocab):
        s = dict(DEFAULT_SPEC)
        s.update(spec)
        self.lowercase = bool(s["lowercase"])
        self.unk = s["unk"]
        self.max_chars = int(s["max_chars_per_word"])
        self.never_split = list(s["never_split"])
        self.vocab = set(vocab)

    def split(self, text):
        pieces = []
        for special, stretch in cut_specials(text, self.never_split):
            if special:
                pieces.append(stretch)
                continue
            for w in basic_tokenize(stretch, self.lowercase):
                pieces.extend(wordpiece(w, self.vocab, self.unk, self.max_chars))
        return pieces

    @staticmethod
    def join(pieces):
        out = ""
        for p in pieces:
            if p.startswith("##") and out:
                out += p[2:]
            else:
                out += (" " if out else "") + p
        return out
