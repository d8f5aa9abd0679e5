#!/usr/bin/env python3
"""Averages the last K epochs' weights kept in a training checkpoint into a candidate model.

    /usr/bin/python3 models/train/average_epochs.py multi30k-en-de-d3 4
        -> build/multi30k-en-de-d3.avg4.safetensors (F16)
    /usr/bin/python3 models/train/average_epochs.py de-en-small 10 --with de-en-small-s2 10
        -> build/de-en-small.avg10+de-en-small-s2.avg10.safetensors (F16)

`models/train/train.py multi30k --average N` keeps the last N epochs' weights in build/<name>.ckpt.pt
and writes their mean as build/<name>.avg.safetensors each epoch. Which K is best is a question
for val (a long run's first epochs of N may be worse than its last ones): this writes the mean of
the last K <= N without retraining. The config, tokenizer and vocabularies are those of the run's
own candidate (build/<name>.avg.safetensors, the same model), so only the weights differ. Like
train.py it writes under build/ only; judge the result on val with models/evaluation/evaluate.py.

`--with OTHER K2` also takes the last K2 epochs of a second run branched from the same checkpoint
(the same weights up to the branch, then another batch order and dropout seed). Weights of one
basin average well ("model soups"); epochs the two runs share are identical and are counted once.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models" / "reference"))
from attnscope_ref import safetensors_io  # noqa: E402


def last_epochs(name, k):
    """The last k epochs' weights of run `name`, with the epoch numbers they come from."""
    ckpt = torch.load(ROOT / "build" / f"{name}.ckpt.pt", weights_only=False)
    recent = ckpt.get("recent", [])
    if not 1 <= k <= len(recent):
        raise SystemExit(f"build/{name}.ckpt.pt keeps {len(recent)} epochs' weights; K must be 1..{len(recent)}")
    last = ckpt["epoch"]
    return recent[-k:], (last - k + 1, last)


def same_weights(a, b):
    return all(torch.equal(a[key], b[key]) for key in a)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="the run's name (build/<name>.ckpt.pt)")
    p.add_argument("k", type=int, help="how many of the last epochs to average")
    p.add_argument("--with", dest="other", nargs=2, metavar=("OTHER", "K2"),
                   help="also average the last K2 epochs of run OTHER (branched from the same checkpoint)")
    args = p.parse_args()
    chosen, (first, last) = last_epochs(args.name, args.k)
    what = f"epochs {first}-{last} of run {args.name}"
    out_name = f"{args.name}.avg{args.k}"
    if args.other:
        other, k2 = args.other[0], int(args.other[1])
        theirs, (first2, last2) = last_epochs(other, k2)
        fresh = [w for w in theirs if not any(same_weights(w, mine) for mine in chosen)]
        if len(fresh) < len(theirs):
            print(f"{len(theirs) - len(fresh)} of {other}'s epochs are the same weights as {args.name}'s: counted once")
        chosen = chosen + fresh
        what += f" and epochs {first2}-{last2} of run {other} ({len(chosen)} sets of weights)"
        out_name += f"+{other}.avg{k2}"
    mean = {key: sum(w[key] for w in chosen) / len(chosen) for key in chosen[0]}
    tensors, meta = safetensors_io.load(ROOT / "build" / f"{args.name}.avg.safetensors")
    if set(tensors) != set(mean):
        raise SystemExit(f"build/{args.name}.avg.safetensors holds other tensors than the checkpoint")
    for key, t in tensors.items():
        if tuple(t.shape) != tuple(mean[key].shape):
            raise SystemExit(f"{key}: shape {tuple(t.shape)} in the candidate, {tuple(mean[key].shape)} in the checkpoint")
    desc = meta.get("description", "")
    head = desc.split(";")[0] if ";" in desc else desc
    meta["description"] = f"{head}; average of {what} (models/train/average_epochs.py)."
    out = ROOT / "build" / f"{out_name}.safetensors"
    safetensors_io.save(out, mean, meta, dtype="F16")
    print(f"{out.relative_to(ROOT)}: the mean of {what} ({json.loads(meta['config'])['d_model']}-wide model)")


if __name__ == "__main__":
    main()
