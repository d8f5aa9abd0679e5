"""Writes tests/golden/bleu_by_length.json: BLEU per bin of source length computed by
models/evaluation/bleu_by_length.py (pure Python over bleu.py, the sacreBLEU port), for
src/analysis/bleu_by_length.cpp to match (tests/native/bleu_by_length_test.cpp, and the JS API in
tests/js/bleu-by-length.test.js).

    python3 models/goldens/make_bleu_by_length_goldens.py        (standard library only)

The Multi30k cases read the first 40 val pairs and fixed translations of them
(tests/data/multi30k/val.first40.hyp.de: what multi30k-en-de once wrote greedily; here they are
only text to score).
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models" / "evaluation"))
from bleu_by_length import bleu_by_length, read_lines  # noqa: E402

DATA = ROOT / "tests" / "data" / "multi30k"
DEST = ROOT / "tests" / "golden" / "bleu_by_length.json"


def multi30k_case(name, edges):
    return {"name": name, "data": "tests/data/multi30k/val.first40.{en,hyp.de,de}", "edges": edges,
            "result": bleu_by_length(read_lines(DATA / "val.first40.en"), read_lines(DATA / "val.first40.hyp.de"),
                                     read_lines(DATA / "val.first40.de"), edges)}


def inline_case(name, sources, hypotheses, references, edges):
    return {"name": name, "sources": sources, "hypotheses": hypotheses, "references": references, "edges": edges,
            "result": bleu_by_length(sources, hypotheses, references, edges)}


def cases():
    return [
        multi30k_case("multi30k, default bins (17-20 is empty)", [8, 12, 16, 20]),
        multi30k_case("multi30k, three bins", [10, 14]),
        multi30k_case("multi30k, one edge", [9]),
        # Words are split at Unicode white space as Python's str.split() splits them: the no-break
        # space and the ideographic space separate words, the zero-width space does not.
        inline_case("unicode white space, edges at 2 and 5",
                    ["ein\u00a0Hund", "a", "zwei\u3000drei vier", "one\u200btwo three", "  a  b  c  d e f "],
                    ["a dog runs in the park .", "one man sits on a bench .", "two three four dogs play in the snow .",
                     "one two three women walk down a street", "a b c d e f g"],
                    ["a dog runs through the park .", "one man sits on the bench .", "two three four dogs play in snow .",
                     "one two three women walk along a street .", "a b c d e f g"],
                    [2, 5]),
        inline_case("an empty translation, and bins past every sentence",
                    ["a man sleeps .", "two dogs run in the snow ."],
                    ["", "zwei Hunde laufen im Schnee."],
                    ["Ein Mann schläft.", "Zwei Hunde rennen im Schnee."],
                    [4, 30, 40]),
    ]


def main():
    written = cases()
    DEST.write_text(json.dumps({"cases": written}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {DEST.relative_to(ROOT)}: {len(written)} cases")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
