"""What the input-gradient golden scripts share (make_*differentiable_goldens.py): the float32 run
screened against a float64 one, and the golden JSON file."""

import json
import os

import torch

TOLERANCE = 1e-4  # the C++ tests': absolute, or relative to the largest expected magnitude


def screened(run, name, fields):
    """run(dtype) -> tensors named `fields`; returns the float32 ones after checking each against
    the float64 run within half the tolerance (the reference's own zeros are float64 there too)."""
    values = run(torch.float32)
    torch.set_default_dtype(torch.float64)
    try:
        values64 = run(torch.float64)
    finally:
        torch.set_default_dtype(torch.float32)
    for what, a, b in zip(fields, values, values64):
        bound = 0.5 * TOLERANCE * max(1.0, float(b.abs().max()))
        assert float((a.double() - b).abs().max()) <= bound, (name, what)
    return values


def nested(t):
    """A 2-D tensor as lists of 7-significant-digit floats."""
    return [[float(f"{v:.7g}") for v in row] for row in t.tolist()]


def write(folder, name, golden):
    """Writes folder/<name>.json; returns its path."""
    os.makedirs(folder, exist_ok=True)
    out = os.path.join(folder, name + ".json")
    with open(out, "w", encoding="utf-8") as f:
        json.dump(golden, f)
        f.write("\n")
    return out
