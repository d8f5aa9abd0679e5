#!/usr/bin/python3
"""Write the training goldens tests/golden/train_<model>.json (deterministic; run with /usr/bin/python3).

For each model of the engine's goldens (tests/golden/<model>.safetensors) and a small fixed batch
of sentence pairs of unequal lengths (padded, as models/train/train.py batches them), with the reference
models/reference/attnscope_ref/model.py in float32, dropout 0:

  * the loss: F.cross_entropy(logits, gold, ignore_index=PAD, label_smoothing=0.1, reduction="sum") / n
    (models/train/train.py `loss_on`, then `/ n` as its training loop does), n = non-pad gold tokens;
  * the gradient of every parameter after backward() of that loss;
  * the weights after 3 optimiser steps on the same batch, each step: zero_grad, loss, backward,
    clip_grad_norm_(max_norm), opt.step(), sched.step() with LambdaLR(inverse_sqrt(step, warmup))
    as models/train/train.py; for torch.optim.Adam (weight_decay 0 and weight_decay > 0, i.e. L2 added
    to the gradient) and torch.optim.AdamW (decoupled weight decay).

Which numbers are stored (keeps the files at a few hundred KB in all):
  * tiny_post_sin: every element of every gradient ({"shape", "values"});
  * everything else (its weights after the optimiser steps, and the gradients and weights of the
    other models): a digest of every tensor: its sum, sum of |x|, a signed sum
    (sign of element i = bit 31 of (i * 2654435761) mod 2^32, a fixed pseudo-random ±1 pattern that
    catches permuted or transposed elements) and 4 sampled elements (flat indices spread over the
    tensor, always including the first and last).

Robustness: every number is also computed in float64 from the same float32 initial weights; the
script fails if a float32 golden differs from its float64 value by more than half the
tolerance the C++ test applies (gradients 1e-4 relative or 1e-6 absolute; weights 1e-5), so a
golden never records float32 rounding noise.

k_proj.bias: its gradient is zero in exact arithmetic (adding b_k·q_i to every score of query i
does not change its softmax); PyTorch's float32 value is rounding noise (|g| < 4e-8 here) that Adam
divides by sqrt(v) + eps and so turns into steps of about lr. The gradient goldens record that
noise (the engine's exact 0 is within 1e-6 of it); before the optimiser steps this script sets it
to 0, as the engine's backward pass does, so both take the same (zero-gradient) Adam steps.
Schema: tests/golden/README.md ("Training goldens").
"""

import argparse
import contextlib
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref.export import load_model  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402

ROOT = os.path.dirname(MODELS)
GOLDEN = os.path.join(ROOT, "tests", "golden")
MODELS = ["tiny_post_sin", "small_pre_learned", "deep_post_learned_f16", "deep_pre_sin_bpe"]
FULL = {"tiny_post_sin"}  # every element stored; the others as digests
LABEL_SMOOTHING = 0.1
STEPS = 3
SAMPLES = 4

# Sentence pairs of unequal lengths (so the batch is padded on both sides); toy-grammar words,
# tokenised with each model's own tokenizer and vocabularies (unknown words become <unk>).
PAIRS = [
    ("i can eat apple", "ich konnen apfel essen"),
    ("we want to drink beer", "wir mochten bier trinken"),
    ("i read", "ich lesen"),
]

# Optimiser cases: Adam, Adam with L2 weight decay, AdamW (decoupled weight decay), with different
# betas, warmups and clipping norms. eps is 1e-5 or more, not models/train/train.py's 1e-9: in the first
# steps Adam moves an element by about lr·g/(|g| + eps), so an element whose gradient happens to
# be tiny (e.g. 9e-8, with a float32 rounding error of a few 1e-9) moves by an amount that two
# float32 implementations cannot agree on within 1e-5 unless eps is well above that error (the
# float64 screen fails with eps 1e-9, 1e-8 and 1e-6). Typical gradients here are 1e-3..1e-1, so
# the updates are still Adam's normalised ones.
ADAM_CASES = [
    {"name": "adam", "optimizer": "adam", "lr": 1e-3, "betas": [0.9, 0.98], "eps": 1e-5, "weight_decay": 0.0,
     "warmup": 2, "clip_norm": 1.0},
    {"name": "adam_l2", "optimizer": "adam", "lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-5, "weight_decay": 0.05,
     "warmup": 3, "clip_norm": 0.5},
    {"name": "adamw", "optimizer": "adamw", "lr": 1e-3, "betas": [0.8, 0.99], "eps": 3e-5, "weight_decay": 0.1,
     "warmup": 1, "clip_norm": 5.0},
]

GRAD_REL, GRAD_ABS, WEIGHT_ABS = 1e-4, 1e-6, 1e-5  # what tests/native/train_golden_test.cpp allows


def inverse_sqrt(step, warmup):  # models/train/train.py
    step = max(step, 1)
    return min(step / warmup, math.sqrt(warmup / step))


def fmt(x):
    v = np.float32(x)
    if not np.isfinite(v):
        raise ValueError("non-finite value in golden data")
    s = str(v)
    assert np.float32(float(s)) == v
    return s


def sign_pattern(n):
    i = np.arange(n, dtype=np.uint64)
    return np.where(((i * np.uint64(2654435761)) & np.uint64(0xFFFFFFFF)) >> np.uint64(31), -1.0, 1.0)


def sample_indices(n):
    if n <= SAMPLES:
        return list(range(n))
    return sorted({round(k * (n - 1) / (SAMPLES - 1)) for k in range(SAMPLES)})


def digest(t32):
    """Digest of one tensor (float32 golden values, computed in float64 from the float32 elements)."""
    a = t32.detach().double().flatten().numpy()
    g = lambda x: float("%.9g" % x)  # noqa: E731  (9 digits: far below the tolerances)
    return {"sum": g(a.sum()), "abs_sum": g(np.abs(a).sum()), "signed_sum": g((a * sign_pattern(a.size)).sum()),
            "samples": [[i, float(fmt(a[i]))] for i in sample_indices(a.size)]}


def stored(full, tensors32):
    """JSON text of a {name: tensor} map, full or digested."""
    items = []
    for k in sorted(tensors32):
        t = tensors32[k]
        if full:
            body = {"shape": list(t.shape), "values": "[" + ",".join(fmt(x) for x in t.detach().flatten().tolist()) + "]"}
            text = '{"shape":%s,"values":%s}' % (json.dumps(body["shape"]), body["values"])
        else:
            d = digest(t)
            text = json.dumps({"shape": list(t.shape), **d}, separators=(",", ":"))
        items.append(f'    {json.dumps(k)}: {text}')
    return "{\n" + ",\n".join(items) + "\n  }"


def batch_tensors(model, tok_src, tok_tgt):
    c = model.config
    pad, bos, eos = (c["special_tokens"][k] for k in ("pad", "bos", "eos"))
    src, tgt = [], []
    for s, t in PAIRS:
        src.append(tok_src.encode_source(s, c["src_append_eos"], eos)[1])
        tgt.append([bos] + tok_tgt.encode(t)[1] + [eos])
    s_len, t_len = max(map(len, src)), max(map(len, tgt))
    return (src, tgt, torch.tensor([x + [pad] * (s_len - len(x)) for x in src]),
            torch.tensor([x + [pad] * (t_len - len(x)) for x in tgt]))


def loss_of(model, src, tgt):
    pad = model.config["special_tokens"]["pad"]
    logits = model(src, tgt[:, :-1])
    gold = tgt[:, 1:]
    n = int((gold != pad).sum())
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), gold.reshape(-1), ignore_index=pad,
                           label_smoothing=LABEL_SMOOTHING, reduction="sum")
    return loss / n, n


def gradients(model, src, tgt, loss_of=loss_of):
    """(loss, n, gradient of every parameter) of one backward pass; `loss_of` is the family's loss
    (models/goldens/make_rnn_train_goldens.py passes the RNN's)."""
    model.train()
    model.zero_grad()
    loss, n = loss_of(model, src, tgt)
    loss.backward()
    return float(loss), n, {k: p.grad.detach().clone() for k, p in model.named_parameters()}


def adam_steps(model, src, tgt, case, loss_of=loss_of):
    params = list(model.parameters())
    cls = torch.optim.AdamW if case["optimizer"] == "adamw" else torch.optim.Adam
    opt = cls(params, lr=case["lr"], betas=tuple(case["betas"]), eps=case["eps"], weight_decay=case["weight_decay"])
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: inverse_sqrt(s, case["warmup"]))
    model.train()
    for _ in range(STEPS):
        opt.zero_grad()
        loss, _ = loss_of(model, src, tgt)
        loss.backward()
        for k, p in model.named_parameters():
            if k.endswith("k_proj.bias"):
                p.grad.zero_()  # exactly zero in exact arithmetic (see the docstring); the engine makes it 0
        torch.nn.utils.clip_grad_norm_(params, case["clip_norm"])
        opt.step()
        sched.step()
    return {k: p.detach().clone() for k, p in model.named_parameters()}


SCREEN = 2  # a float32 golden must lie within tolerance / SCREEN of the float64 value
worst = [0.0]


def check_close(what, t32, t64, rel, ab):
    err = (t32.double() - t64).abs()
    bound = rel * t64.abs() + ab
    worst[0] = max(worst[0], float((err / bound).max()))
    if not bool((err <= bound / SCREEN).all()):
        i = int(torch.argmax(err / bound))
        raise RuntimeError(f"{what}: float32 differs from float64 by {float(err.flatten()[i]):.3g} at {i} "
                           f"(value {float(t64.flatten()[i]):.6g}); golden would record rounding noise")


def golden_text(name, model_field, model, model64, src, tgt, batch, full, loss_of=loss_of):
    """The golden of one model (float32 `model` and its float64 copy `model64`, the same initial
    weights) on the padded batch src, tgt (tensors, as `loss_of` takes them; `batch`: their id
    lists for the file), screened against float64. -> (JSON text, loss, n)."""
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    loss, n, grads = gradients(model, src, tgt, loss_of)
    loss64, _, grads64 = gradients(model64, src, tgt, loss_of)
    assert abs(loss - loss64) <= 1e-5 * abs(loss64), (loss, loss64)
    for k in grads:
        check_close(f"{name} grad {k}", grads[k], grads64[k], GRAD_REL, GRAD_ABS)

    parts = [f'  "model": "{model_field}"',
             f'  "label_smoothing": {LABEL_SMOOTHING}',
             f'  "batch": {{"src": {json.dumps(batch[0])}, "tgt": {json.dumps(batch[1])}}}',
             f'  "n_tokens": {n}',
             f'  "loss": {fmt(loss)}',
             f'  "gradients": {stored(full, grads)}']
    parts.append(optimizer_cases(name, model, model64, initial, src, tgt, loss_of))
    return json_of(parts), loss, n


def optimizer_cases(name, model, model64, initial, src, tgt, loss_of, precise=contextlib.nullcontext):
    """The "optimizer_cases" part of a golden: every ADAM_CASES run from the `initial` weights,
    float32 `model` screened against float64 `model64` (run under the `precise` context)."""
    cases = []
    for case in ADAM_CASES:
        model.load_state_dict(initial)
        model64.load_state_dict({k: v.double() for k, v in initial.items()})
        w = adam_steps(model, src, tgt, case, loss_of)
        with precise():
            w64 = adam_steps(model64, src, tgt, case, loss_of)
        for k in w:
            check_close(f"{name} {case['name']} {k}", w[k], w64[k], 0.0, WEIGHT_ABS)
        cases.append('{"options": %s, "steps": %d, "weights": %s}' % (
            json.dumps(case, separators=(",", ":")), STEPS, stored(False, w)))
    return '  "optimizer_cases": [\n  ' + ",\n  ".join(cases) + "\n  ]"


def json_of(parts):
    """A golden's JSON text from its parts (each a '  "key": value' line), checked to parse."""
    text = "{\n" + ",\n".join(parts) + "\n}\n"
    json.loads(text)
    return text


def write_golden(out, text, loss, n):
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{out}: loss {loss:.6f} over {n} tokens, {len(text) / 1024:.0f} KB")


def main():
    torch.set_num_threads(1)
    total = 0
    for name in MODELS:
        path = os.path.join(GOLDEN, name + ".safetensors")
        model, config, tok_spec, src_vocab, tgt_vocab = load_model(path)
        unk = config["special_tokens"]["unk"]
        tok_src, tok_tgt = Tokenizer(tok_spec, src_vocab, unk), Tokenizer(tok_spec, tgt_vocab, unk)
        src_ids, tgt_ids, src, tgt = batch_tensors(model, tok_src, tok_tgt)
        model64, *_ = load_model(path)
        text, loss, n = golden_text(name, f"{name}.safetensors", model, model64.double(), src, tgt,
                                    (src_ids, tgt_ids), name in FULL)
        write_golden(os.path.join(GOLDEN, f"train_{name}.json"), text, loss, n)
        total += len(text)
    print(f"total {total / 1024:.0f} KB; worst float32 error / tolerance {worst[0]:.3f}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
