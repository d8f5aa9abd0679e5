#!/usr/bin/python3
"""Commits where a Multi30k run stands, so that `--resume` goes on from a fresh machine.

    /usr/bin/python3 models/train/save_training_state.py cmp-small
        build/cmp-small.ckpt.pt + build/cmp-small.log
        -> models/training/cmp-small.state.safetensors (F32 weights, step, epoch, log)
           models/training/cmp-small.log             (the same log, to read)

Run it deliberately when a stretch of training ends (like shipping a model, it writes into
models/), then commit both files. models/train/training_state.py says what travels and what does not.
"""
import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "models" / "train"), str(ROOT / "models" / "reference")]
import training_state  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", help="the run's name (build/<name>.ckpt.pt)")
    args = p.parse_args()
    ckpt_path = ROOT / "build" / f"{args.name}.ckpt.pt"
    if not ckpt_path.exists():
        raise SystemExit(f"{ckpt_path.relative_to(ROOT)} does not exist: no run of that name on this machine")
    ckpt = torch.load(ckpt_path, weights_only=False)
    if "config" not in ckpt or "recipe" not in ckpt:
        raise SystemExit(f"{ckpt_path.relative_to(ROOT)} predates models/train/training_state.py (no config or recipe in it)")
    log_text = (ROOT / "build" / f"{args.name}.log").read_text(encoding="utf-8")
    where = {"step": ckpt["step"], "epoch": ckpt["epoch"], "best": ckpt["best"], "best_epoch": ckpt["best_epoch"],
             "rng": training_state.rng_state_to_json(ckpt["rng"]), "recipe": ckpt["recipe"]}
    out = training_state.state_path(args.name)
    out.parent.mkdir(exist_ok=True)
    training_state.save_state(out, ckpt["model"], ckpt["config"], where, log_text)
    (out.parent / f"{args.name}.log").write_text(log_text, encoding="utf-8")
    size = out.stat().st_size / 2**20
    print(f"{out.relative_to(ROOT)} ({size:.1f} MiB): epoch {ckpt['epoch']}, step {ckpt['step']}, "
          f"best val {ckpt['best']:.3f} at epoch {ckpt['best_epoch']}; commit it with models/training/{args.name}.log")


if __name__ == "__main__":
    main()
