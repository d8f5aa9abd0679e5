"""Normalisation, word tokenizer and BPE tokenizer exactly as specified in models/FORMAT.md.

Tokenizer spec objects (the `tokenizer` metadata value):
    {"type": "word", "lowercase": bool, "split_punctuation": bool}
    {"type": "bpe",  "lowercase": bool, "merges": ["left right", ...]}
"""

from collections import Counter

SPECIALS = ["<pad>", "<unk>", "<s>", "</s>"]
PAD, UNK, BOS, EOS = 0, 1, 2, 3
SPECIAL_TOKENS = {"pad": PAD, "unk": UNK, "bos": BOS, "eos": EOS}

WORD_BOUNDARY = "\u2581"  # "▁"
WHITESPACE = frozenset(" \t\n\r\v\f")
ASCII_PUNCTUATION = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def lowercase_char(c):
    """FORMAT.md rule: only A-Z and U+00C0..U+00DE except U+00D7 (code point + 0x20)."""
    o = ord(c)
    if 0x41 <= o <= 0x5A or (0xC0 <= o <= 0xDE and o != 0xD7):
        return chr(o + 0x20)
    return c


def normalize_words(text, lowercase):
    """Lowercase (if asked) and split on runs of the six ASCII whitespace characters.

    Deliberately not str.lower() / str.split(): those use the Unicode tables.
    """
    words = []
    cur = []
    for c in text:
        if c in WHITESPACE:
            if cur:
                words.append("".join(cur))
                cur = []
        else:
            cur.append(lowercase_char(c) if lowercase else c)
    if cur:
        words.append("".join(cur))
    return words


def is_ascii_punctuation(c):
    return c in ASCII_PUNCTUATION


def split_punctuation(word, is_punctuation=is_ascii_punctuation):
    """Every punctuation character becomes a token of its own; other runs stay together.

    Punctuation is ASCII's here; BERT's WordPiece (wordpiece.py) passes its wider Unicode test."""
    out = []
    cur = []
    for c in word:
        if is_punctuation(c):
            if cur:
                out.append("".join(cur))
                cur = []
            out.append(c)
        else:
            cur.append(c)
    if cur:
        out.append("".join(cur))
    return out


def merge_pair(symbols, pair):
    """Every non-overlapping occurrence of `pair`, left to right, replaced by its concatenation."""
    out = []
    i = 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == pair[0] and symbols[i + 1] == pair[1]:
            out.append(pair[0] + pair[1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def bpe_word(word, ranks):
    """Apply merges (rank dict {(left, right): rank}) to one normalised word."""
    symbols = [WORD_BOUNDARY] + list(word)
    while len(symbols) > 1:
        best = None
        best_rank = None
        for pair in zip(symbols, symbols[1:]):
            r = ranks.get(pair)
            if r is not None and (best_rank is None or r < best_rank):
                best, best_rank = pair, r
        if best is None:
            break
        symbols = merge_pair(symbols, best)
    return symbols


def parse_merges(merges):
    ranks = {}
    for i, m in enumerate(merges):
        parts = m.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise ValueError(f"bad merge {m!r}")
        ranks.setdefault((parts[0], parts[1]), i)
    return ranks


class Tokenizer:
    def __init__(self, spec, vocab, unk_id=UNK):
        self.spec = dict(spec)
        self.type = spec["type"]
        if self.type not in ("word", "bpe"):
            raise ValueError(f"unknown tokenizer type {self.type!r}")
        self.lowercase = bool(spec.get("lowercase", False))
        self.split_punct = bool(spec.get("split_punctuation", False)) if self.type == "word" else False
        self.ranks = parse_merges(spec.get("merges", [])) if self.type == "bpe" else None
        self.vocab = list(vocab)
        self.ids = {}
        for i, tok in enumerate(self.vocab):
            if tok in self.ids:
                raise ValueError(f"duplicate vocabulary entry {tok!r}")
            self.ids[tok] = i
        self.unk_id = unk_id
        self._cache = {}

    def pieces(self, text):
        """Normalised pieces (before vocabulary lookup)."""
        out = []
        for w in normalize_words(text, self.lowercase):
            if self.type == "word":
                out.extend(split_punctuation(w) if self.split_punct else [w])
            else:
                p = self._cache.get(w)
                if p is None:
                    p = self._cache[w] = bpe_word(w, self.ranks)
                out.extend(p)
        return out

    def encode(self, text):
        """-> (pieces, ids, unknown_words); unknown pieces keep their text in `pieces`."""
        pieces = self.pieces(text)
        ids = []
        unknown = []
        for p in pieces:
            i = self.ids.get(p)
            if i is None:
                i = self.unk_id
                unknown.append(p)
            ids.append(i)
        return pieces, ids, unknown

    def encode_source(self, text, append_eos, eos_id=EOS):
        """encode() plus the optional trailing </s> (config `src_append_eos`)."""
        pieces, ids, unknown = self.encode(text)
        if append_eos:
            pieces = pieces + [self.vocab[eos_id]]
            ids = ids + [eos_id]
        return pieces, ids, unknown

    def decode(self, ids_or_pieces):
        """Ids are mapped to their vocabulary strings (specials such as <unk> appear literally);
        word: join with single spaces; bpe: concatenate, '▁' -> ' ', drop one leading space."""
        toks = [self.vocab[t] if isinstance(t, int) else t for t in ids_or_pieces]
        if self.type == "word":
            return " ".join(toks)
        s = "".join(toks).replace(WORD_BOUNDARY, " ")
        return s[1:] if s.startswith(" ") else s


# ----------------------------------------------------------------------------- training helpers

def train_bpe(lines, n_merges, lowercase=False):
    """Classic count-based BPE. Word frequencies after normalisation; each word starts as
    ["▁", c1, c2, ...]; repeatedly merge the most frequent adjacent pair (ties: the
    lexicographically smallest (left, right)), replacing non-overlapping occurrences left to right.
    Returns merges as "left right" strings in priority order."""
    freq = Counter()
    for line in lines:
        freq.update(normalize_words(line, lowercase))
    words = [[WORD_BOUNDARY] + list(w) for w in sorted(freq)]
    counts = [freq[w] for w in sorted(freq)]
    pair_counts = Counter()
    where = {}
    for idx, syms in enumerate(words):
        for pair in zip(syms, syms[1:]):
            pair_counts[pair] += counts[idx]
            where.setdefault(pair, set()).add(idx)
    merges = []
    while len(merges) < n_merges and pair_counts:
        top = max(pair_counts.values())
        if top < 1:
            break
        best = min(p for p, c in pair_counts.items() if c == top)
        merges.append(best[0] + " " + best[1])
        for idx in sorted(where.pop(best, ())):
            syms = words[idx]
            c = counts[idx]
            for pair in zip(syms, syms[1:]):
                pair_counts[pair] -= c
                if pair_counts[pair] <= 0:
                    del pair_counts[pair]
            out = merge_pair(syms, best)
            words[idx] = out
            for pair in zip(out, out[1:]):
                pair_counts[pair] += c
                where.setdefault(pair, set()).add(idx)
    return merges


def build_bpe_vocab(lines, merges, lowercase=False):
    """specials + every single character seen (sorted, incl. '▁') + every merge result (merge order)."""
    chars = set()
    for line in lines:
        for w in normalize_words(line, lowercase):
            chars.update(w)
    chars.add(WORD_BOUNDARY)
    vocab = list(SPECIALS) + sorted(chars)
    seen = set(vocab)
    for m in merges:
        left, right = m.split(" ")
        tok = left + right
        if tok not in seen:
            seen.add(tok)
            vocab.append(tok)
    return vocab


def build_word_vocab(lines, lowercase=True, split_punct=True, extra=()):
    """specials + sorted set of the words (after normalisation/punctuation splitting) + extra."""
    words = set(extra)
    for line in lines:
        for w in normalize_words(line, lowercase):
            words.update(split_punctuation(w) if split_punct else [w])
    words -= set(SPECIALS)
    return list(SPECIALS) + sorted(words)


def build_vocab(spec, lines, extra=()):
    """Vocabulary for a tokenizer spec: word -> build_word_vocab, bpe -> build_bpe_vocab."""
    if spec["type"] == "word":
        return build_word_vocab(lines, spec.get("lowercase", False), spec.get("split_punctuation", False), extra)
    vocab = build_bpe_vocab(lines, spec["merges"], spec.get("lowercase", False))
    return vocab + [t for t in extra if t not in set(vocab)]
