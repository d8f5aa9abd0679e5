#!/usr/bin/python3
"""Checks models/train/training_state.py (a run's committed state): part of `npm test`'s PyTorch block.

- the lr schedule against values worked out by hand (Vaswani et al.'s inverse square root, and
  the linear ramp after a resume with a fresh Adam);
- save -> load gives back the F32 weights bit for bit, the step/epoch/best and the shuffler;
- a state trained with another model config or recipe, or a file that is no state, is refused
  with a message that names what differs.
"""
import argparse
import json
import math
import random
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "models" / "train"), str(ROOT / "models" / "reference")]
import training_state  # noqa: E402
from attnscope_ref import safetensors_io  # noqa: E402
from attnscope_ref.model import Transformer  # noqa: E402

argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def close(a, b):
    return math.isfinite(a) and abs(a - b) <= 1e-12 * max(1.0, abs(b))


def expect_error(fn, *needles):
    try:
        fn()
    except ValueError as e:
        return all(n in str(e) for n in needles)
    return False


# The schedule: warm-up 2000 steps, peak at 2000, then sqrt(2000/step).
check(close(training_state.lr_factor(0, 2000), 1 / 2000), "lr factor before the first step is 1/warmup")
check(close(training_state.lr_factor(1000, 2000), 0.5), "half-way through the warm-up: 0.5")
check(close(training_state.lr_factor(2000, 2000), 1.0), "the peak at the end of the warm-up")
check(close(training_state.lr_factor(8000, 2000), 0.5), "four times the warm-up: 1/sqrt(4)")
# A fresh Adam at step 3000 (rewarm 200): the first step gets 1/200 of the schedule, step 3199 all of it.
check(close(training_state.lr_factor(3000, 2000, 3000, 200), math.sqrt(2000 / 3000) / 200), "ramp: first step after a resume")
check(close(training_state.lr_factor(3099, 2000, 3000, 200), math.sqrt(2000 / 3099) * 0.5), "ramp: half-way")
check(close(training_state.lr_factor(3199, 2000, 3000, 200), math.sqrt(2000 / 3199)), "ramp: done after rewarm steps")
check(close(training_state.lr_factor(5000, 2000, 3000, 200), math.sqrt(2000 / 5000)), "after the ramp: the schedule")

config = {"d_model": 16, "n_heads": 2, "d_ff": 32, "n_encoder_layers": 1, "n_decoder_layers": 1, "activation": "relu",
          "norm": "pre", "positions": "sinusoidal", "max_positions": 16, "embedding_scale": 4.0,
          "shared_embeddings": True, "tied_output": True}
recipe = {"src": "en", "tgt": "de", "merges": 8000, "lr": 5e-3, "warmup": 2000, "batch_tokens": 4000,
          "dropout": 0.3, "label_smoothing": 0.1}
torch.manual_seed(0)
model = Transformer(config, 30, 30, dropout=0.0)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for _ in range(2):  # weights that are not the initialisation
    src, tgt = torch.randint(4, 30, (3, 5)), torch.randint(4, 30, (3, 6))
    logits = model(src, tgt[:, :-1])
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, 30), tgt[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
shuffler = random.Random(7)
shuffler.random()
where = {"step": 4321, "epoch": 17, "best": 2.125, "best_epoch": 16,
         "rng": training_state.rng_state_to_json(shuffler.getstate()), "recipe": recipe}

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "run.state.safetensors"
    training_state.save_state(path, model.state_dict(), config, where, "epoch 17 ... val 2.125\n")
    torch.manual_seed(1)
    fresh = Transformer(config, 30, 30, dropout=0.0)
    got = training_state.load_state(path, fresh, config, recipe)
    saved, loaded = model.state_dict(), fresh.state_dict()
    check(set(saved) == set(loaded) and all(torch.equal(saved[k], loaded[k]) for k in saved),
          f"{len(saved)} weight tensors come back bit for bit (F32)")
    check((got["step"], got["epoch"], got["best"], got["best_epoch"]) == (4321, 17, 2.125, 16),
          "step, epoch and best val come back")
    check(got["log"] == "epoch 17 ... val 2.125\n", "the run's log comes back")
    resumed = random.Random()
    resumed.setstate(training_state.rng_state_from_json(got["rng"]))
    check([resumed.random() for _ in range(3)] == [shuffler.random() for _ in range(3)],
          "the batch shuffler goes on with the same draws")

    other = dict(config, d_ff=64)
    check(expect_error(lambda: training_state.load_state(path, Transformer(other, 30, 30), other, recipe),
                       "model config", "d_ff", "saved 32", "asked 64"),
          "another model config is refused, naming d_ff")
    check(expect_error(lambda: training_state.load_state(path, fresh, config, dict(recipe, lr=1e-3)),
                       "recipe", "lr"),
          "another recipe is refused, naming lr")
    model_file = Path(tmp) / "model.safetensors"
    safetensors_io.save(model_file, model.state_dict(), {"config": json.dumps(config)})
    check(expect_error(lambda: training_state.load_state(model_file, fresh, config, recipe), "not a training state"),
          "a model file that is no training state is refused")
    check(expect_error(lambda: training_state.save_state(path, model.state_dict(), config,
                                                         {k: v for k, v in where.items() if k != "rng"}, ""), "rng"),
          "a state without the shuffler's state is not written")

if failures:
    raise SystemExit(f"check_training_state: {len(failures)} check(s) failed")
print("check_training_state: all checks passed")
