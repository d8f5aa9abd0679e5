#!/usr/bin/env python3
"""Write the SentencePiece goldens under tests/golden/sentencepiece/ (run with /usr/bin/python3,
which has Debian's python3-sentencepiece; the engine's reader is checked against it).

Three real unigram models are trained by the SentencePiece library itself on a generated
Multi30k-style corpus (English and German captions from a small grammar, plus the committed first
40 Multi30k validation sentences):

  nfkc.model      nmt_nfkc normalisation (the precompiled charsmap of the library), the default
                  whitespace handling, characters under the coverage threshold become <unk>, two
                  user-defined pieces that NFKC would rewrite (the ligature fi and the circled 2).
  bytes.model     byte_fallback, a small custom normalisation rule table (its own charsmap trie:
                  full-width letters, ligatures, circled digits, a two-character rule), extra
                  whitespace kept (remove_extra_whitespaces=false).
  identity.model  identity normalisation, user-defined symbols, a control symbol, no dummy prefix.

inputs.txt holds the test strings (one per line, escaped as below): generated captions, the
Multi30k sentences, and strings with accents, CJK, emoji, combining marks, NFKC-sensitive
characters, odd white space, control characters, literal piece names, invalid UTF-8 and the empty
string. <model>.expected.txt has one line per input, tab-separated:

  ids          the ids of sp.encode(input), space-separated
  decoded      sp.decode(ids)
  joined       sp.decode_pieces(sp.encode(input, out_type=str))
  unknown...   the pieces that map to the unknown id, in order (their text is the normalised text;
               every other piece is id_to_piece(id))

Escaping: the text is UTF-8 with \\ \t \n \r written as \\\\ \\t \\n \\r, and each byte that is
not part of valid UTF-8 as \\xHH. A decoded or joined field of exactly \\= equals the input; a
joined field of exactly \\~ equals the decoded one.
"""

import argparse
import os
import random
import shutil
import tempfile

import sentencepiece as spm

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "golden", "sentencepiece")
MULTI30K = os.path.join(ROOT, "tests", "data", "multi30k")

# --- a Multi30k-style caption grammar --------------------------------------------------------

EN = {
    "subj": ["A man", "A woman", "A young boy", "A little girl", "Two men", "Three children", "A dog",
             "A brown dog", "An older woman", "A group of people", "A skier", "A cyclist", "A crowd",
             "Two women", "A black and white dog", "A baby", "A construction worker", "A musician",
             "A team of football players", "Several people", "A café owner", "A chef"],
    "attr": ["", "", "in a red shirt", "wearing a blue hat", "with long hair", "in a white dress",
             "wearing sunglasses", "in a green jacket", "with a backpack", "in orange overalls"],
    "verb": ["is running", "is walking", "are playing", "is sitting", "is jumping", "is riding a bike",
             "is standing", "is climbing a rock", "is throwing a ball", "is eating", "are dancing",
             "is reading a newspaper", "is playing the guitar", "is swimming", "is looking"],
    "prep": ["in", "on", "near", "through", "along", "under", "across", "behind"],
    "place": ["the park", "a busy street", "the beach", "a snowy hill", "the grass", "a small boat",
              "the water", "a stage", "the city", "a wooden bridge", "the kitchen", "a crowded market"],
}
DE = {
    "subj": ["Ein Mann", "Eine Frau", "Ein kleiner Junge", "Ein kleines Mädchen", "Zwei Männer",
             "Drei Kinder", "Ein Hund", "Ein brauner Hund", "Eine ältere Frau", "Eine Gruppe von Menschen",
             "Ein Skifahrer", "Ein Radfahrer", "Zwei Frauen", "Ein Bauarbeiter", "Ein Musiker",
             "Mehrere Personen", "Ein Koch"],
    "attr": ["", "", "in einem roten Hemd", "mit einem blauen Hut", "mit langen Haaren",
             "in einem weißen Kleid", "mit Sonnenbrille", "in einer grünen Jacke", "mit einem Rucksack"],
    "verb": ["läuft", "geht", "spielen", "sitzt", "springt", "fährt Fahrrad", "steht", "klettert",
             "wirft einen Ball", "isst", "tanzen", "liest eine Zeitung", "spielt Gitarre", "schwimmt"],
    "prep": ["im", "auf", "neben", "durch", "entlang", "unter", "über", "hinter"],
    "place": ["dem Park", "einer belebten Straße", "dem Strand", "einem verschneiten Hügel", "dem Gras",
              "einem kleinen Boot", "dem Wasser", "einer Bühne", "der Stadt", "einer Holzbrücke",
              "der Küche", "einem vollen Markt"],
}


def caption(rng, g):
    parts = [rng.choice(g["subj"]), rng.choice(g["attr"]), rng.choice(g["verb"])]
    if rng.random() < 0.8:
        parts += [rng.choice(g["prep"]), rng.choice(g["place"])]
    text = " ".join(p for p in parts if p)
    return text + rng.choice([".", ".", ".", "", " .", "!"])


def multi30k():
    out = []
    for lang in ("en", "de"):
        with open(os.path.join(MULTI30K, "val.first40." + lang), encoding="utf-8") as f:
            out += [line.rstrip("\n") for line in f if line.strip()]
    return out


def training_corpus():
    rng = random.Random(7)
    lines = multi30k()
    for _ in range(2500):
        lines.append(caption(rng, EN if rng.random() < 0.5 else DE))
    # A few accented words so that they are pieces rather than unknown characters.
    lines += ["Ein Café in Zürich, naïve Gäste, Crème brûlée und Jalapeño."] * 20
    return lines


# --- test strings ------------------------------------------------------------------------------

ACCENTS = ["café", "cafe\u0301", "Ångström", "naïve", "Zoë", "résumé", "Tiếng Việt", "Jalapeño",
           "Straße", "ÄÖÜ äöü", "Crème brûlée", "Œuvre", "Dvořák", "Łódź", "Ærø", "İstanbul", "ǅemal"]
CJK = ["日本語のテキスト", "中文句子", "한국어 문장", "ｶﾀｶﾅ", "カタカナ", "漢字かな交じり文", "我爱北京天安门",
       "東京タワー", "가나다라"]
EMOJI = ["😀", "👍🏽", "👨\u200d👩\u200d👧", "🇩🇪", "❤️", "🐕 dog", "🎸🎶", "🏳️\u200d🌈", "☃"]
COMBINING = ["e\u0301", "a\u0308\u0323", "Z\u0324\u0354\u0367\u0311\u0313", "o\u0302\u0300", "n\u0303",
             "A\u030a", "\u0301 lone mark", "c\u0327a", "i\u0307"]
NFKC = ["ＡＢＣ ｆｕｌｌ ｗｉｄｔｈ", "ﬁsh ﬂag ﬃ", "①②③ ⑩", "™", "½ ¼", "ℌ ℍ", "Ⅻ ⅷ", "㍿", "x² y₃",
        "µ", "\u212b", "ǅ ǆ", "non\u00a0breaking", "wait…", "en\u2002space", "zero\u200bwidth",
        "soft\u00adhyphen", "\ufeffbom", "ﾊﾝｶｸ", "１２３", "\u3000ideographic\u3000space", "㈱", "℃",
        "ｇｏｏｄ　ｍｏｒｎｉｎｇ", "Ａ", "ﬀ", "¹²³", "…"]
SPACES = ["", " ", "  ", "\t", "\n", " \t \n ", "a  b", "a\tb", "  leading", "trailing  ", "\r\nwindows\r\n",
          "many     spaces     here", " \u3000 ", "\u00a0", "a \u00a0 b", "\u2581", "\u2581\u2581", "\u2581a",
          "a\u2581 b"]
ODD = ["\ufffd", "<unk>", "<s>", "</s>", "<pad>", "<0x41>", "<sep>", "[MASK]", "\x00", "\x01ctrl\x7f",
       "\uffff", "\U0010ffff", "\ue000", "\ud7ff", "a\x00b", "<<sep>>", "<sep><sep>", "@@", "New York",
       "\u0000\u0000", "\x1b[0m", "\u202eRTL", "\u200d", "\u00ad", "'\"`", "---", "...", "!!!", "(a)[b]{c}",
       "http://example.com/a?b=c&d=e", "user@example.com", "3.14159", "1,000,000", "#hashtag", "$100 €50 £3"]
INVALID = [b"\xff", b"\xc3", b"a\xc3b", b"\xe2\x96", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80",
           b"\x80\x80\x80", b"ok\xfe\xffok", b"\xf0\x9f\x98", b"caf\xc3\xa9\xc3", b"\xe2\x96\x81\xff"]


def fragments():
    return ACCENTS + CJK + EMOJI + COMBINING + NFKC + SPACES + ODD


def test_inputs():
    rng = random.Random(11)
    out = []
    for _ in range(950):
        out.append(caption(rng, EN if rng.random() < 0.5 else DE).encode())
    out += [s.encode() for s in multi30k()]
    # Case and spacing variants of captions.
    for _ in range(150):
        c = caption(rng, EN if rng.random() < 0.5 else DE)
        v = rng.randrange(5)
        if v == 0:
            c = c.lower()
        elif v == 1:
            c = c.upper()
        elif v == 2:
            c = "  " + c.replace(" ", "   ") + "  "
        elif v == 3:
            c = c.replace(" ", "\t")
        else:
            c = c.replace("a", "á").replace("o", "ö")
        out.append(c.encode())
    singles = fragments()
    out += [s.encode() for s in singles]
    out += INVALID
    # Fragments inside captions and mixed with each other.
    for _ in range(500):
        c = caption(rng, EN if rng.random() < 0.5 else DE).split(" ")
        for _ in range(rng.randint(1, 3)):
            c.insert(rng.randint(0, len(c)), rng.choice(singles))
        out.append(" ".join(c).encode())
    for _ in range(250):
        parts = [rng.choice(singles).encode() if rng.random() < 0.85 else rng.choice(INVALID)
                 for _ in range(rng.randint(1, 6))]
        out.append(rng.choice([b"", b" ", b"  ", b"\t"]).join(parts))
    return out


# --- escaping ----------------------------------------------------------------------------------

def escape(data):
    if isinstance(data, str):
        data = data.encode()
    out = []
    i = 0
    while i < len(data):
        # The longest valid UTF-8 sequence starting here, else one raw byte.
        for n in (4, 3, 2, 1):
            chunk = data[i:i + n]
            try:
                ch = chunk.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if len(ch) == 1:
                out.append({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}.get(ch, ch))
                i += n
                break
        else:
            out.append("\\x%02x" % data[i])
            i += 1
    return "".join(out)


# --- training ----------------------------------------------------------------------------------

RULES = [  # source code points -> target code points, the trainer's normalization_rule_tsv form
    ("FF21", "41"), ("FF22", "42"), ("FF23", "43"), ("FF41", "61"), ("FF42", "62"), ("FF43", "63"),
    ("FB01", "66 69"), ("FB02", "66 6C"), ("2460", "31"), ("2461", "32"), ("2462", "33"),
    ("65 301", "E9"), ("3000", "20"), ("A0", "20"), ("2122", "54 4D"), ("200B", ""),
]


def train(corpus, prefix, **options):
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, model_type="unigram", num_threads=1, seed_sentencepiece_size=20000,
        minloglevel=2, hard_vocab_limit=False, **options)


def write_expected(model, inputs, path):
    sp = spm.SentencePieceProcessor(model_file=model)
    unk = sp.unk_id()
    lines = []
    for text in inputs:
        ids = sp.encode(text)
        # Pieces come back as bytes for a bytes input; they are normalised text, so valid UTF-8.
        pieces = [p.decode() if isinstance(p, bytes) else p for p in sp.encode(text, out_type=str)]
        assert len(pieces) == len(ids)
        decoded = sp.decode(ids)
        joined = sp.decode_pieces(pieces)
        fields = [" ".join(map(str, ids))]
        decoded, joined = decoded.encode(), joined.encode()
        fields.append("\\=" if decoded == text else escape(decoded))
        fields.append("\\=" if joined == text else "\\~" if joined == decoded else escape(joined))
        for i, p in zip(ids, pieces):
            if i == unk:
                fields.append(escape(p))
            else:
                assert p == sp.id_to_piece(i), (text, p)
        lines.append("\t".join(fields))
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")
    unknown = sum(1 for line in lines if len(line.split("\t")) > 3)
    print(f"{os.path.basename(path)}: {len(lines)} strings, {unknown} with unknown pieces")


def main():
    os.makedirs(OUT, exist_ok=True)
    inputs = test_inputs()
    with open(os.path.join(OUT, "inputs.txt"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(escape(t) for t in inputs) + "\n")
    tmp = tempfile.mkdtemp()
    cwd = os.getcwd()
    # The trainer records its input and output paths in the model: relative ones keep the
    # committed files identical from one run to the next.
    os.chdir(tmp)
    try:
        corpus = "corpus.txt"
        with open(corpus, "w", encoding="utf-8") as f:
            f.write("\n".join(training_corpus()) + "\n")
        rules = "rules.tsv"
        with open(rules, "w", encoding="utf-8") as f:
            f.write("".join(f"{s}\t{t}\n" for s, t in RULES))
        models = {
            # The user-defined pieces are characters the charsmap would rewrite: they stay whole.
            "nfkc": dict(vocab_size=400, character_coverage=0.995, user_defined_symbols=["\ufb01", "\u2461"]),
            "bytes": dict(vocab_size=500, byte_fallback=True, normalization_rule_tsv=rules,
                          remove_extra_whitespaces=False, character_coverage=0.98),
            "identity": dict(vocab_size=350, normalization_rule_name="identity", add_dummy_prefix=False,
                             user_defined_symbols=["<sep>", "[MASK]", "@@", "New York", "ab"],
                             control_symbols=["<ctrl>"], character_coverage=0.9995, unk_surface="<?>"),
        }
        for name, options in models.items():
            train(corpus, name, **options)
            model = os.path.join(OUT, name + ".model")
            shutil.copyfile(name + ".model", model)
            write_expected(model, inputs, os.path.join(OUT, name + ".expected.txt"))
    finally:
        os.chdir(cwd)
        shutil.rmtree(tmp)


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
