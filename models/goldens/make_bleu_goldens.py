"""Writes tests/golden/bleu.json: 13a tokenisations and corpus BLEU scores computed by
models/evaluation/bleu.py (the sacreBLEU port, itself checked against sacreBLEU's published figures in
tests/python/test_bleu.py), for the C++ BLEU in src/analysis/bleu.cpp to match.

    python3 models/goldens/make_bleu_goldens.py        (standard library only)
"""
import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models" / "evaluation"))
from bleu import corpus_bleu, tokenize_13a  # noqa: E402

LINES = [
    "Ein Mann, der ein blaues Hemd trägt, steht auf einer Leiter.",
    "Zwei Hunde spielen im Schnee...",
    "Sie kostet 1,50 Euro (oder $2.00) - 3-4 Stück!",
    "\"Hallo\" & <tschüss> &amp; &quot;ja&quot; &lt;nein&gt;",
    "a.b,c 1.5 2,5 .5 5. x-y 12-13 a/b {c} [d] ~e^ `f` @g #h %i *j +k :l ;m =n ?o",
    "Große Straße — ein Café, 😀 emoji; 東京.",
    "  leading and trailing   spaces  ",
    "",
    "line with <skipped> marker and hy-\nphen",
    # Python's str.split() (sacrebleu's last step) splits at Unicode white space too: no-break
    # space (Multi30k's "ca. 120\u00a0cm"), en quad, ideographic space, line separator; not at
    # zero-width space.
    "ca. 120\u00a0cm,\u2000zwei\u3000drei\u2028vier\u200bfünf\x85sechs\u202fsieben",
]

CORPORA = [
    (["ein mann steht auf einer leiter .", "zwei hunde spielen im schnee ."],
     ["Ein Mann steht auf einer Leiter.", "Zwei Hunde spielen im Schnee."]),
    (["Ein Mann steht auf einer Leiter.", "Zwei Hunde spielen im Schnee."],
     ["Ein Mann steht auf einer Leiter.", "Zwei Hunde spielen im Schnee."]),
    (["Ein Mann steht.", "Hunde im Schnee."],
     ["Ein Mann steht auf einer Leiter.", "Zwei Hunde spielen im Schnee."]),
    (["", "Zwei Hunde spielen im Schnee und toben herum."],
     ["Ein Mann steht auf einer Leiter.", "Zwei Hunde spielen im Schnee."]),
    (["völlig anders", "nichts passt"], ["Ein Mann steht.", "Zwei Hunde."]),
    (["Ein Mann", "Hund"], ["Ein Mann geht.", "Ein Hund."]),
]


def random_corpus(rng, n):
    words = "ein eine der die das mann frau hund kind spielt läuft steht auf im in einem schnee wasser . , !".split()
    refs = [" ".join(rng.choice(words) for _ in range(rng.randint(3, 14))) for _ in range(n)]
    hyps = []
    for r in refs:
        toks = r.split()
        toks = [t if rng.random() < 0.7 else rng.choice(words) for t in toks]
        del toks[rng.randint(0, len(toks)):][: rng.randint(0, 3)]
        hyps.append(" ".join(toks))
    return hyps, refs


def main():
    rng = random.Random(7)
    corpora = CORPORA + [random_corpus(rng, n) for n in (5, 50, 200)]
    out = {
        "tokenize_13a": [{"line": line, "tokens": tokenize_13a(line)} for line in LINES],
        "corpus_bleu": [],
    }
    for hyps, refs in corpora:
        r = corpus_bleu(hyps, [refs])
        out["corpus_bleu"].append({"hypotheses": hyps, "references": refs, "score": r["score"],
                                   "precisions": r["precisions"], "bp": r["bp"],
                                   "hyp_len": r["hyp_len"], "ref_len": r["ref_len"]})
    path = ROOT / "tests" / "golden" / "bleu.json"
    path.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {path}: {len(out['tokenize_13a'])} tokenisations, {len(out['corpus_bleu'])} corpora")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
