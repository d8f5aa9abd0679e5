#!/usr/bin/env python3
"""Every subject x modal x verb x object sentence of the toy grammar (108), translated by our engine.

    python3 models/evaluation/toy_combinations.py models/toy-rnn-bahdanau-additive.safetensors [more models]

The 36 training pairs (tests/data/toy/eng_de.csv) pair each verb with its two objects; the other
72 sentences ("i eat book", "we can drink bread") are never seen in training, and their expected
German follows the same word-order rules (modal: subject modal object verb; else subject verb
object). Prints, per model, the exact matches on both parts and every wrong output. Standard
library only; decodes with build/native/attnscope-cli (greedy), as models/evaluation/evaluate.py does.
"""

import argparse
import itertools
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBJECTS = {"i": "ich", "we": "wir"}
MODALS = {"": "", "can": "konnen", "want to": "mochten"}
VERBS = {"eat": "essen", "drink": "trinken", "read": "lesen"}
OBJECTS = {"bread": "brot", "apple": "apfel", "water": "wasser", "beer": "bier", "book": "buch", "newspaper": "zeitung"}
TRAINED_WITH = {"eat": ("bread", "apple"), "drink": ("water", "beer"), "read": ("book", "newspaper")}


def sentences():
    """-> [(english, expected german, seen in training)]"""
    out = []
    for s, m, v, o in itertools.product(SUBJECTS, MODALS, VERBS, OBJECTS):
        en = " ".join(w for w in (s, m, v, o) if w)
        de = " ".join((SUBJECTS[s], MODALS[m], OBJECTS[o], VERBS[v]) if m else (SUBJECTS[s], VERBS[v], OBJECTS[o]))
        out.append((en, de, o in TRAINED_WITH[v]))
    return out


def main(models):
    cases = sentences()
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join(en + "\n" for en, _, _ in cases))
    for model in models:
        out = subprocess.run([str(ROOT / "build" / "native" / "attnscope-cli"), "translate", "--model", model,
                              "--input", f.name], capture_output=True, text=True, check=True).stdout.split("\n")
        seen = sum(o == de for o, (_, de, t) in zip(out, cases) if t)
        unseen = sum(o == de for o, (_, de, t) in zip(out, cases) if not t)
        print(f"{model}: training sentences {seen}/36 exact, unseen combinations {unseen}/72 exact")
        for o, (en, de, t) in zip(out, cases):
            if o != de:
                print(f"  {'TRAIN ' if t else ''}{en} -> {o}   (expected {de})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help="attnscope model files to translate with")
    main(parser.parse_args().models)
