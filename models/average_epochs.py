#!/usr/bin/env python3
"""Averages the last K epochs' weights kept in a training checkpoint into a candidate model.

    /usr/bin/python3 models/average_epochs.py multi30k-en-de-d3 4
        -> build/multi30k-en-de-d3.avg4.safetensors (F16)

`models/train.py multi30k --average N` keeps the last N epochs' weights in build/<name>.ckpt.pt
and writes their mean as build/<name>.avg.safetensors each epoch. Which K is best is a question
for val (a long run's first epochs of N may be worse than its last ones): this writes the mean of
the last K <= N without retraining. The config, tokenizer and vocabularies are those of the run's
own candidate (build/<name>.avg.safetensors, the same model), so only the weights differ. Like
train.py it writes under build/ only; judge the result on val with models/evaluate.py.
"""
import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "models"))
from attnscope_ref import safetensors_io  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="the run's name (build/<name>.ckpt.pt)")
    p.add_argument("k", type=int, help="how many of the last epochs to average")
    args = p.parse_args()
    ckpt = torch.load(ROOT / "build" / f"{args.name}.ckpt.pt", weights_only=False)
    recent = ckpt.get("recent", [])
    if not 1 <= args.k <= len(recent):
        raise SystemExit(f"the checkpoint keeps {len(recent)} epochs' weights; K must be 1..{len(recent)}")
    last = ckpt["epoch"]
    chosen = recent[-args.k:]
    mean = {k: sum(r[k] for r in chosen) / len(chosen) for k in chosen[0]}
    tensors, meta = safetensors_io.load(ROOT / "build" / f"{args.name}.avg.safetensors")
    if set(tensors) != set(mean):
        raise SystemExit(f"build/{args.name}.avg.safetensors holds other tensors than the checkpoint")
    for k, t in tensors.items():
        if tuple(t.shape) != tuple(mean[k].shape):
            raise SystemExit(f"{k}: shape {tuple(t.shape)} in the candidate, {tuple(mean[k].shape)} in the checkpoint")
    first = last - args.k + 1
    desc = meta.get("description", "")
    head = desc.split(";")[0] if ";" in desc else desc
    meta["description"] = f"{head}; average of epochs {first}-{last} of run {args.name} (models/average_epochs.py)."
    out = ROOT / "build" / f"{args.name}.avg{args.k}.safetensors"
    safetensors_io.save(out, mean, meta, dtype="F16")
    print(f"{out.relative_to(ROOT)}: the mean of epochs {first}-{last} ({json.loads(meta['config'])['d_model']}-wide model)")


if __name__ == "__main__":
    main()
