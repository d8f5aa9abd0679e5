#!/usr/bin/env python3
"""Masked-piece accuracy of an MLM file (the BERT family) on a text: the metric train.py's `mlm`
mode reports on val, with the same BERT masking (15% of pieces, 80/10/10) drawn from the same
fixed seed, so val here equals the log's figure. Used once per shipped model on test_2016.

  /usr/bin/python3 models/evaluation/evaluate_mlm.py --model models/multi30k-en-mlm.safetensors \
      --text ../shared/data/multi30k/test_2016_flickr.en.gz
"""
import argparse
import json
import sys
from pathlib import Path

MODELS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(MODELS / "train"), str(MODELS / "reference")]
import torch  # noqa: E402

import train  # noqa: E402  (its masking and evaluation, so the figure is the training log's)
from attnscope_ref import bert  # noqa: E402
from attnscope_ref.wordpiece import WordPiece  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--text", required=True, help="one sentence a line (.gz or plain)")
    ap.add_argument("--batch-tokens", type=int, default=4000)
    args = ap.parse_args()
    torch.set_num_threads(1)
    model, config, spec, vocab = bert.load(args.model)
    tok = WordPiece(spec, vocab)
    index = {p: i for i, p in enumerate(vocab)}
    cls, sep = index["[CLS]"], index["[SEP]"]
    examples = []
    for line in train.read_lines(Path(args.text)):
        ids = [cls] + [index[p] for p in tok.split(line)][: config["max_positions"] - 2] + [sep]
        if len(ids) > 2:
            examples.append((ids, [0] * len(ids)))  # [CLS] A [SEP], segment 0: as train.py's val figure reads it
    loss, acc = train.evaluate_mlm(model, examples, args.batch_tokens, len(vocab), len(bert.SPECIALS))
    print(json.dumps({"model": args.model, "text": args.text, "sentences": len(examples),
                      "loss": round(loss, 4), "masked_piece_accuracy": round(acc, 4)}))


if __name__ == "__main__":
    main()
