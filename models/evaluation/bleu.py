"""Corpus BLEU, computed the way sacreBLEU (2.x) computes it by default. Standard library only.

Default settings, as sacreBLEU's `BLEU()` / `sacrebleu.corpus_bleu(hyps, refs)`:
tokenizer "13a" (mteval-v13a), case-sensitive, n-grams up to 4, smoothing "exp",
effective order off. The signature sacreBLEU prints for them is
`nrefs:N|case:mixed|eff:no|tok:13a|smooth:exp`.

    from bleu import corpus_bleu, format_bleu
    result = corpus_bleu(hypotheses, [references])          # one or more reference streams
    print(format_bleu(result))
    # BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)

What it reproduces from sacreBLEU, detail by detail:
- each segment is `rstrip()`ped, optionally lowercased, then tokenized; n-grams are taken
  over `str.split()` tokens;
- clipped counts against the per-n-gram maximum count over all references of a segment;
- the reference length of a segment is the reference length *closest* to the hypothesis
  length, the shorter one on a tie;
- empty (or None) references are dropped for that segment (variable number of references);
  a segment with no non-empty reference is an error; empty hypotheses are kept;
- brevity penalty exp(1 - r/c) when c < r, 0 when c == 0, else 1;
- no matching n-gram at all (every order) -> score 0 and all precisions 0 (sacreBLEU #141);
- "exp" smoothing: for each order whose match count is 0, the precision is
  100 / (2^k * total) with k counting the zero-match orders so far; a zero total stops the
  loop, leaving that and higher precisions at 0, and log(0) is floored to -9999999999;
- also available (for checking against sacreBLEU's published figures): smoothing "none",
  "floor" (default value 0.1) and "add-k" (default 1), effective order, tokenizer "none",
  lowercase, other maximum n-gram orders.
The "intl", "zh", "char", "ja-mecab" and "spm" tokenizers are not implemented.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Iterable, Sequence

__all__ = [
    "tokenize_13a",
    "tokenize_none",
    "corpus_bleu",
    "compute_bleu",
    "format_bleu",
    "signature",
    "MAX_NGRAM_ORDER",
]

MAX_NGRAM_ORDER = 4
SMOOTH_DEFAULTS = {"none": None, "floor": 0.1, "add-k": 1, "exp": None}
_LOG_ZERO = -9999999999  # sacreBLEU's my_log(0.0)

# mteval-v13a's language-dependent part, in order (the same patterns sacreBLEU's
# TokenizerRegexp applies).
_13A_RULES = [
    # every ASCII punctuation / symbol character except ' - . , (and the digits/letters):
    # { | } ~  [ \ ] ^ _ `  space ! " # $ %  &  ( ) * +  : ; < = > ? @  /
    (re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
    # period and comma unless preceded by a digit
    (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
    # period and comma unless followed by a digit
    (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
    # dash when preceded by a digit
    (re.compile(r"([0-9])(-)"), r"\1 \2 "),
]


def tokenize_13a(line: str) -> str:
    """The mteval-v13a tokenization, as sacreBLEU's Tokenizer13a: returns tokens joined by
    single spaces, no leading or trailing space."""
    # language-independent part
    line = line.replace("<skipped>", "")
    line = line.replace("-\n", "")
    line = line.replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"')
        line = line.replace("&amp;", "&")
        line = line.replace("&lt;", "<")
        line = line.replace("&gt;", ">")
    line = f" {line} "
    for pattern, replacement in _13A_RULES:
        line = pattern.sub(replacement, line)
    return " ".join(line.split())


def tokenize_none(line: str) -> str:
    """sacreBLEU's tokenizer "none": the line unchanged (n-grams still split on whitespace)."""
    return line


_TOKENIZERS = {"13a": tokenize_13a, "none": tokenize_none}


def _ngrams(tokens: Sequence[str], max_order: int) -> Counter:
    counts: Counter = Counter()
    for n in range(1, max_order + 1):
        for i in range(len(tokens) - n + 1):
            counts[tuple(tokens[i:i + n])] += 1
    return counts


def _closest_ref_len(hyp_len: int, ref_lens: Iterable[int]) -> int:
    best_diff, best_len = -1, -1
    for ref_len in ref_lens:
        diff = abs(hyp_len - ref_len)
        if best_diff == -1 or diff < best_diff:
            best_diff, best_len = diff, ref_len
        elif diff == best_diff and ref_len < best_len:
            best_len = ref_len
    return best_len


def compute_bleu(correct: Sequence[float], total: Sequence[float], sys_len: int, ref_len: int,
                 smooth_method: str = "exp", smooth_value: float | None = None,
                 effective_order: bool = False,
                 max_ngram_order: int = MAX_NGRAM_ORDER) -> dict:
    """BLEU from sufficient statistics (sacreBLEU's BLEU.compute_bleu; note that sacreBLEU's
    static method defaults to smooth_method="none", this one to the metric's default "exp").

    Returns a dict: score (0..100), precisions (percent, one per order), bp, ratio,
    hyp_len, ref_len, counts, totals.
    """
    if smooth_method not in SMOOTH_DEFAULTS:
        raise ValueError(f"unknown smooth_method {smooth_method!r}; "
                         f"one of {', '.join(SMOOTH_DEFAULTS)}")
    if len(correct) != max_ngram_order or len(total) != max_ngram_order:
        raise ValueError(f"need {max_ngram_order} match counts and {max_ngram_order} totals")
    if smooth_value is None:
        smooth_value = SMOOTH_DEFAULTS[smooth_method]
    correct = list(correct)
    total = list(total)
    counts, totals = list(correct), list(total)  # as reported (before add-k)

    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    else:
        bp = 1.0

    precisions = [0.0] * max_ngram_order
    result = {
        "score": 0.0,
        "precisions": precisions,
        "bp": bp,
        "ratio": sys_len / ref_len if ref_len else 0.0,
        "hyp_len": sys_len,
        "ref_len": ref_len,
        "counts": counts,
        "totals": totals,
    }
    if not any(correct):  # no match of any order: 0, whatever the smoothing
        return result

    smooth_mteval = 1.0
    eff_order = max_ngram_order
    for n in range(1, max_ngram_order + 1):
        if smooth_method == "add-k" and n > 1:
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth_mteval *= 2
                precisions[n - 1] = 100.0 / (smooth_mteval * total[n - 1])
            elif smooth_method == "floor":
                precisions[n - 1] = 100.0 * smooth_value / total[n - 1]
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]

    log_sum = sum(math.log(p) if p != 0.0 else _LOG_ZERO for p in precisions[:eff_order])
    result["score"] = bp * math.exp(log_sum / eff_order)
    return result


def corpus_bleu(hypotheses: Sequence[str], references: Sequence[Sequence[str | None]],
                tokenize: str = "13a", lowercase: bool = False, smooth_method: str = "exp",
                smooth_value: float | None = None, effective_order: bool = False,
                max_ngram_order: int = MAX_NGRAM_ORDER) -> dict:
    """Corpus BLEU like `sacrebleu.corpus_bleu(hypotheses, references)`.

    hypotheses: one string per segment. references: a list of reference *streams*, each a
    list aligned with `hypotheses` (so `[refs]` for a single reference). A reference may be
    "" or None for segments that have fewer references.

    Returns the dict of `compute_bleu` (score, precisions, bp, ratio, hyp_len, ref_len,
    counts, totals) plus nrefs and the settings (tokenize, lowercase, smooth_method,
    effective_order, max_ngram_order).
    """
    if isinstance(hypotheses, str) or isinstance(references, str):
        raise TypeError("hypotheses must be a list of strings and references a list of "
                        "reference streams (lists of strings)")
    if tokenize not in _TOKENIZERS:
        raise ValueError(f"unknown tokenizer {tokenize!r}; one of {', '.join(_TOKENIZERS)}")
    if max_ngram_order < 1:
        raise ValueError("max_ngram_order must be at least 1")
    if len(references) == 0:
        raise ValueError("no reference streams given")
    for k, stream in enumerate(references):
        if isinstance(stream, str):
            raise TypeError("references must be a list of reference streams, e.g. [refs], "
                            "not a list of strings")
        if len(stream) != len(hypotheses):
            raise ValueError(f"reference stream {k} has {len(stream)} segments, "
                             f"the hypotheses {len(hypotheses)}")
    if len(hypotheses) == 0:
        raise ValueError("no segments to score")

    tok = _TOKENIZERS[tokenize]

    def preprocess(sentence: str) -> list[str]:
        if lowercase:
            sentence = sentence.lower()
        return tok(sentence.rstrip()).split()

    sys_len = ref_len = 0
    correct = [0] * max_ngram_order
    total = [0] * max_ngram_order
    nrefs_seen = set()
    for i, hyp in enumerate(hypotheses):
        if hyp is None:
            raise ValueError(f"hypothesis {i} is None")
        refs = [stream[i] for stream in references]
        refs = [r for r in refs if r is not None and r != ""]
        if not refs:
            raise ValueError(f"segment {i} has no non-empty reference")
        nrefs_seen.add(len(refs))

        ref_ngrams: Counter = Counter()
        ref_lens = []
        for ref in refs:
            tokens = preprocess(ref)
            ref_lens.append(len(tokens))
            for ngram, count in _ngrams(tokens, max_ngram_order).items():
                if count > ref_ngrams[ngram]:
                    ref_ngrams[ngram] = count

        hyp_tokens = preprocess(hyp)
        sys_len += len(hyp_tokens)
        ref_len += _closest_ref_len(len(hyp_tokens), ref_lens)
        for ngram, count in _ngrams(hyp_tokens, max_ngram_order).items():
            n = len(ngram) - 1
            total[n] += count
            if ngram in ref_ngrams:
                correct[n] += min(count, ref_ngrams[ngram])

    result = compute_bleu(correct, total, sys_len, ref_len, smooth_method=smooth_method,
                          smooth_value=smooth_value, effective_order=effective_order,
                          max_ngram_order=max_ngram_order)
    result.update({
        "nrefs": nrefs_seen.pop() if len(nrefs_seen) == 1 else "var",
        "tokenize": tokenize,
        "lowercase": lowercase,
        "smooth_method": smooth_method,
        "smooth_value": smooth_value,
        "effective_order": effective_order,
        "max_ngram_order": max_ngram_order,
    })
    return result


def format_bleu(result: dict, width: int = 2) -> str:
    """sacreBLEU's text line: 'BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944
    hyp_len = 17 ref_len = 18)'."""
    precisions = "/".join(f"{p:.1f}" for p in result["precisions"])
    return (f"BLEU = {result['score']:.{width}f} {precisions} (BP = {result['bp']:.3f} "
            f"ratio = {result['ratio']:.3f} hyp_len = {result['hyp_len']:d} "
            f"ref_len = {result['ref_len']:d})")


def signature(result: dict) -> str:
    """The settings in sacreBLEU's signature style (without sacreBLEU's version field, since
    this is not sacreBLEU): e.g. 'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp'."""
    smooth = result.get("smooth_method", "exp")
    default = SMOOTH_DEFAULTS.get(smooth)
    if default is not None:
        value = result.get("smooth_value")
        smooth += f"[{(default if value is None else value):.2f}]"
    return "|".join([
        f"nrefs:{result.get('nrefs', 1)}",
        f"case:{'lc' if result.get('lowercase') else 'mixed'}",
        f"eff:{'yes' if result.get('effective_order') else 'no'}",
        f"tok:{result.get('tokenize', '13a')}",
        f"smooth:{smooth}",
    ])


def _main(argv: list[str] | None = None) -> int:
    """python3 models/evaluation/bleu.py REF [REF ...] < HYPS : prints the BLEU line."""
    import argparse
    import gzip
    import sys

    parser = argparse.ArgumentParser(
        description="Corpus BLEU as sacreBLEU's defaults compute it (13a, mixed case, exp).")
    parser.add_argument("refs", nargs="+", help="reference file(s), one segment a line (.gz ok)")
    parser.add_argument("-i", "--input", help="hypotheses file (default: standard input)")
    args = parser.parse_args(argv)

    def read(path: str | None) -> list[str]:
        data = sys.stdin.buffer.read() if path is None else open(path, "rb").read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        lines = data.decode("utf-8").split("\n")  # '\n' only, as sacreBLEU reads files
        if lines and lines[-1] == "":
            lines.pop()
        return lines

    try:
        result = corpus_bleu(read(args.input), [read(r) for r in args.refs])
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"bleu.py: error: {e}", file=sys.stderr)
        return 1
    print(format_bleu(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
