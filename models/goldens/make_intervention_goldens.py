#!/usr/bin/env python3
"""Writes tests/golden/interventions.json: the seed article's table ("i can eat apple" under each
intervention) on the frozen toy model, computed by the Python reading of the intervention rules
(models/reference/attnscope_ref/interventions.py), not by the engine under test.

    /usr/bin/python3 models/goldens/make_intervention_goldens.py           # needs PyTorch
    /usr/bin/python3 models/goldens/make_intervention_goldens.py --check   # recompute, compare, write nothing
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
ROOT = os.path.dirname(MODELS)
sys.path.insert(0, os.path.join(MODELS, "reference"))

from attnscope_ref import interventions  # noqa: E402
from attnscope_ref.export import load_model  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402
from golden_compare import differences  # noqa: E402

MODEL = "tests/models/toy-en-de.frozen.safetensors"
SOURCE = "i can eat apple"


def cross(pattern):
    return {"attention": [{"site": "cross", "layer": "*", "head": "*", "pattern": pattern}]}


# The names are the rows of tests/native/intervention_test.cpp (SeedTableOnTheToyModel).
ROWS = [
    ("none", {}),
    ("uniform cross-attention", cross("uniform")),
    ("cross-attention on the beginning", cross("beginning")),
    ("cross-attention on the end", cross("end")),
    ("no attention (cross skipped)", {"skip": ["crossAttention"]}),
    ("only decoder self-attention", {"skip": ["crossAttention", "encoderSelfAttention"]}),
    ("FFN skipped", {"skip": ["ffn"]}),
    ("LayerNorm skipped", {"skip": ["layerNorm"]}),
    ("cross head 0 masked", {"maskHeads": [{"site": "cross", "layer": 0, "head": 0}]}),
    ("LayerNorm only", {"skip": ["crossAttention", "encoderSelfAttention", "decoderSelfAttention", "ffn"]}),
    ("residual only",
     {"skip": ["crossAttention", "encoderSelfAttention", "decoderSelfAttention", "ffn", "layerNorm"]}),
    ("source encoding copied in", {"copySourceEncoding": True}),
]


def main(checking=False):
    model, config, tok_spec, src_vocab, tgt_vocab = load_model(os.path.join(ROOT, MODEL))
    special = config["special_tokens"]
    src_tok = Tokenizer(tok_spec, src_vocab, special["unk"])
    tgt_tok = Tokenizer(tok_spec, tgt_vocab, special["unk"])
    _, src_ids, _ = src_tok.encode_source(SOURCE, config.get("src_append_eos", True), special["eos"])
    rows = []
    for name, spec in ROWS:
        tokens, hit_max_length = interventions.greedy(model, src_ids, spec)
        text = tgt_tok.decode([t for t in tokens if t not in (special["bos"], special["eos"], special["pad"])])
        rows.append({"name": name, "interventions": spec, "tokens": tokens, "translation": text,
                     "hit_max_length": hit_max_length})
        print(f"{name:34s} {text}{'  (hit the length limit)' if hit_max_length else ''}")
    out = {"generator": "models/goldens/make_intervention_goldens.py (models/reference/attnscope_ref/interventions.py)",
           "model": MODEL, "source": SOURCE, "src_ids": src_ids, "strategy": "greedy", "rows": rows}
    path = os.path.join(ROOT, "tests", "golden", "interventions.json")
    if checking:
        with open(path, encoding="utf-8") as f:
            committed = json.load(f)
        failed = differences(out, committed)
        if failed:
            sys.exit(f"{os.path.relpath(path, ROOT)} differs from what the reference computes now: "
                     + "; ".join(failed[:5]))
        print(f"{os.path.relpath(path, ROOT)}: every row reproduced")
        return
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
