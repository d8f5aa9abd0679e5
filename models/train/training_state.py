"""A Multi30k run's training state, committed so that the run goes on from a fresh machine.

build/<name>.ckpt.pt (optimiser state, the last epochs' weights: ~10x the model) lives only on
the machine that trained; the next stretch of training may run on a new machine, where it is
gone. So when a stretch ends, `models/train/save_training_state.py <name>` writes the run's weights in F32 and where it
stood (step, epoch, best val loss, the batch shuffler's state, the full log) to
models/training/<name>.state.safetensors, and `models/train/train.py multi30k --resume` picks that file
up when build/<name>.ckpt.pt does not exist.

What does not travel: Adam's moments (they would triple the file) and the epochs kept for
averaging. Resuming from a state therefore starts a fresh Adam, whose first steps are large (its
bias-corrected update is about lr in every coordinate), so the learning rate of the schedule is
ramped up again over `rewarm` steps (`lr_factor`). The schedule itself keeps its place (the
global step), so the run continues its inverse-square-root decay where it stopped.
"""

import json
import math
from pathlib import Path

import torch

from attnscope_ref import safetensors_io

FORMAT = "attnscope-training-state/1"
FOLDER = Path(__file__).resolve().parents[1] / "training"  # models/training: the committed states


def inverse_sqrt(step, warmup):
    """Vaswani et al.'s schedule as a factor of the peak lr: linear warm-up, then 1/sqrt(step)."""
    step = max(step, 1)
    return min(step / warmup, math.sqrt(warmup / step))


def linear_decay(step, warmup, total):
    """BERT's schedule (Devlin et al. 2019, A.2) as a factor of the peak lr: linear warm-up, then
    linear decay to 0 at step `total`."""
    step = max(step, 1)
    return max(0.0, min(step / warmup, (total - step) / max(total - warmup, 1)))


REWARM = 200  # steps; train.py's --rewarm default


def lr_factor(step, warmup, fresh_optimiser_step=None, rewarm=REWARM):
    """The factor of the peak lr for the optimiser step that follows `step` finished steps.

    `fresh_optimiser_step`: the global step at which a fresh Adam took over (a resume from a
    committed state), or None; the lr then ramps linearly from 1/rewarm of the schedule's."""
    factor = inverse_sqrt(step, warmup)
    if fresh_optimiser_step is not None:
        factor *= min(1.0, (step - fresh_optimiser_step + 1) / rewarm)
    return factor


def state_path(name):
    return FOLDER / f"{name}.state.safetensors"


def save_state(path, weights, config, where, log_text):
    """Writes `weights` (name -> tensor, F32), the model `config` and `where` (a dict: step,
    epoch, best, best_epoch, rng, recipe) with the run's log as metadata."""
    for key in ("step", "epoch", "best", "best_epoch", "rng", "recipe"):
        if key not in where:
            raise ValueError(f"training state lacks {key!r}")
    metadata = {"format": FORMAT, "config": json.dumps(config, sort_keys=True),
                "where": json.dumps(where), "log": log_text}
    safetensors_io.save(path, weights, metadata, dtype="F32")


def load_state(path, model, config, recipe):
    """Loads a committed state into `model` (built from `config`) and returns its `where` dict.

    Raises ValueError, naming the difference, when the file is no training state or was trained
    with another model config or recipe (a state only goes on with the flags that made it)."""
    tensors, metadata = safetensors_io.load(path)
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{path}: not a training state (format {metadata.get('format')!r}, expected {FORMAT!r})")
    where = json.loads(metadata["where"])
    require_same_run(path, json.loads(metadata["config"]), where["recipe"], config, recipe)
    expected = model.state_dict()
    if set(tensors) != set(expected):
        raise ValueError(f"{path}: its tensors {sorted(set(tensors) ^ set(expected))} do not match the model's")
    model.load_state_dict({k: v.to(torch.float32) for k, v in tensors.items()})
    where["log"] = metadata.get("log", "")
    return where


def require_same_run(path, saved_config, saved_recipe, config, recipe):
    """Raises ValueError naming each key where the saved model config or recipe differs from the
    asked one: a run (a committed state or a build/ checkpoint) only goes on with the flags that made it."""
    for label, saved, asked in (("model config", saved_config, config), ("recipe", saved_recipe, recipe)):
        saved, asked = json.loads(json.dumps(saved, sort_keys=True)), json.loads(json.dumps(asked, sort_keys=True))
        differ = sorted(k for k in set(saved) | set(asked) if saved.get(k) != asked.get(k))
        if differ:
            detail = ", ".join(f"{k}: saved {saved.get(k)!r}, asked {asked.get(k)!r}" for k in differ)
            raise ValueError(f"{path} was trained with another {label} ({detail})")


def rng_state_to_json(state):
    """random.Random.getstate()'s tuple as JSON-friendly lists (and back: `rng_state_from_json`)."""
    version, internal, gauss = state
    return [version, list(internal), gauss]


def rng_state_from_json(obj):
    version, internal, gauss = obj
    return (version, tuple(internal), gauss)
