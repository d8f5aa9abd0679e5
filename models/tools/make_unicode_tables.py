#!/usr/bin/env python3
"""Write src/text/unicode_tables.inc: the Unicode properties BERT's basic tokenizer, GPT-2's
pre-tokenisation regex and tokenizer.json's normalizers and regexes need, from Python's
unicodedata (the database the WordPiece goldens are made with), so the C++ engine needs no ICU.
Stdlib only; run with any python3 and commit the output. Records the Unicode version.

Tables (sorted, for binary search):
  kCategory: ranges of one general category (its index in CATEGORIES; unassigned code points, Cn,
  are in no range);
  ranges of White_Space characters (the regex's \\s, see white_space below), and of "cased"
  characters (str.lower() or str.upper() changes them: the final-sigma rule of str.lower() asks
  for one);
  kLower: code point -> str.lower() of it, where that differs (up to 2 code points);
  kCombiningClass: ranges of one non-zero canonical combining class;
  kDecomposition: code point -> its one-level decomposition mapping (canonical, or compatibility
  when `compat`), as `length` code points from `offset` in kDecompositionPool (Hangul syllables
  aside: they decompose arithmetically, text/unicode.cpp);
  kComposition: (first, second) -> the primary composite they compose to in NFC (canonical pairs
  whose composite is not excluded from composition).
"""

import argparse
import os
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "src", "text", "unicode_tables.inc")


def ranges(pred):
    out, start = [], None
    for o in range(0x110000):
        ok = pred(o)
        if ok and start is None:
            start = o
        if not ok and start is not None:
            out.append((start, o - 1))
            start = None
    if start is not None:
        out.append((start, 0x10FFFF))
    return out


def cat(o):
    return unicodedata.category(chr(o))


def hangul(o):
    return 0xAC00 <= o <= 0xD7A3


# The White_Space property (PropList.txt), which the `regex` module's \s matches. unicodedata has
# no property lists; str.isspace() is Zs plus the bidirectional classes WS, B and S, which is
# White_Space plus the information separators U+001C..U+001F (bidirectional B and S, not White_Space).
def white_space(o):
    return chr(o).isspace() and not 0x1C <= o <= 0x1F


# The general categories, in the order of unicode::Category (text/unicode.h).
CATEGORIES = ["Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe", "Pi",
              "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co"]


def category_table():
    rows, start, current = [], 0, None
    for o in range(0x110001):
        c = cat(o) if o < 0x110000 else None
        if c == "Cn":
            c = None
        if c != current:
            if current is not None:
                rows.append((start, o - 1, CATEGORIES.index(current)))
            start, current = o, c
    body = ",".join(f"{{0x{a:X},0x{b:X},{k}}}" for a, b, k in rows)
    return f"constexpr CategoryRange kCategory[] = {{{body}}};\n", len(rows)


def combining_table():
    rows, start, current = [], 0, 0
    for o in range(0x110001):
        c = unicodedata.combining(chr(o)) if o < 0x110000 else 0
        if c != current:
            if current:
                rows.append((start, o - 1, current))
            start, current = o, c
    body = ",".join(f"{{0x{a:X},0x{b:X},{k}}}" for a, b, k in rows)
    return f"constexpr ClassRange kCombiningClass[] = {{{body}}};\n"


def decomposition_tables():
    rows, pool = [], []
    pairs = []
    for o in range(0x110000):
        if hangul(o):
            continue
        d = unicodedata.decomposition(chr(o))
        if not d:
            continue
        parts = d.split()
        compat = parts[0].startswith("<")
        if compat:
            parts = parts[1:]
        cps = [int(p, 16) for p in parts]
        rows.append((o, len(pool), len(cps), compat))
        pool.extend(cps)
        # A primary composite: a canonical pair that NFC recomposes (not a singleton, not excluded).
        if not compat and len(cps) == 2 and unicodedata.normalize("NFC", chr(o)) == chr(o):
            pairs.append((cps[0], cps[1], o))
    assert len(pool) < 65536
    pairs.sort()
    text = "constexpr Decomposition kDecomposition[] = {%s};\n" % ",".join(
        "{0x%X,%d,%d,%s}" % (o, off, n, "true" if c else "false") for o, off, n, c in rows)
    text += "constexpr char32_t kDecompositionPool[] = {%s};\n" % ",".join(f"0x{c:X}" for c in pool)
    text += "constexpr Composition kComposition[] = {%s};\n" % ",".join(
        "{0x%X,0x%X,0x%X}" % p for p in pairs)
    return text, len(rows), len(pairs)


def range_table(name, rs):
    body = ",".join(f"{{0x{a:X},0x{b:X}}}" for a, b in rs)
    return f"constexpr CodeRange {name}[] = {{{body}}};\n"


def map_table(name, pairs, width):
    rows = []
    for o, s in pairs:
        cps = [ord(c) for c in s] + [0] * (width - len(s))
        rows.append("{0x%X,{%s},%d}" % (o, ",".join(f"0x{c:X}" for c in cps), len(s)))
    return f"constexpr CodeMapping<{width}> {name}[] = {{{','.join(rows)}}};\n"


def main():
    cased = ranges(lambda o: chr(o).lower() != chr(o) or chr(o).upper() != chr(o))
    lower = [(o, chr(o).lower()) for o in range(0x110000) if chr(o).lower() != chr(o)]
    categories, category_rows = category_table()
    decompositions, decomposition_count, composition_count = decomposition_tables()
    text = (
        "// Generated by models/tools/make_unicode_tables.py from Python's unicodedata "
        f"(Unicode {unicodedata.unidata_version}). Do not edit.\n"
        f"// clang-format off\n"
        f"constexpr const char* kUnicodeVersion = \"{unicodedata.unidata_version}\";\n"
        + categories
        + range_table("kWhiteSpace", ranges(white_space))
        + range_table("kCased", cased)
        + map_table("kLower", lower, 2)
        + combining_table()
        + decompositions
        + "// clang-format on\n"
    )
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{OUT}: {len(text)} bytes, {category_rows} category ranges, {len(lower)} lower-case mappings, "
          f"{decomposition_count} decompositions, "
          f"{composition_count} compositions")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
