#!/usr/bin/env python3
"""Perplexity per piece of a decoder-only file on a text: each line is "<s> pieces </s>", the
loss is the next-piece cross-entropy over every piece after <s> (</s> included), the figure
train.py's `lm` mode reports on val. Used once per shipped model on test_2016.

  /usr/bin/python3 models/evaluation/evaluate_lm.py --model models/multi30k-en-gpt.safetensors \
      --text ../shared/data/multi30k/test_2016_flickr.en.gz
"""
import argparse
import json
import math
import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(MODELS / "train"), str(MODELS / "reference")]
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import train  # noqa: E402  (its line reader, so the text is read as training read it)
from attnscope_ref import gpt  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--text", required=True, help="one sentence a line (.gz or plain)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, config, spec, vocab = gpt.load(args.model)
    tok = Tokenizer(spec, vocab)
    special = config["special_tokens"]
    total, pieces, lines, skipped = 0.0, 0, 0, 0
    for line in train.read_lines(Path(args.text)):
        ids = [special["bos"]] + tok.encode(line)[1] + [special["eos"]]
        if len(ids) < 3 or len(ids) > config["max_positions"]:
            skipped += 1
            continue
        logits = model(ids)["logits"][:-1]
        total += float(F.cross_entropy(logits, torch.tensor(ids[1:]), reduction="sum"))
        pieces += len(ids) - 1
        lines += 1
    loss = total / pieces
    print(json.dumps({"model": args.model, "text": args.text, "sentences": lines, "skipped": skipped,
                      "pieces": pieces, "loss": round(loss, 4), "perplexity_per_piece": round(math.exp(loss), 2)}))


if __name__ == "__main__":
    main()
