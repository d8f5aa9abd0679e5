#!/usr/bin/python3
"""Write the input-gradient goldens of the BERT family's Differentiable,
tests/golden/differentiable/<model>.json (deterministic; run with /usr/bin/python3).

What src/train/differentiable.h promises of BERT (src/train/bert_grad.h), computed by PyTorch
autograd on the reference models/reference/attnscope_ref/bert.py in float32, for a sentence pair
"[CLS] A [SEP] B [SEP]" (so both token types occur) on the committed tiny BERTs of tests/golden/bert/:

  * the input embeddings: the source ids' rows of embed.token.weight (a leaf tensor);
  * the masked-LM logits [S, V] of the reference run from those rows (positions, token types from
    the reference's segments_of, the embedding LayerNorm, the layers, the MLM head);
  * d_logits [S, V], fixed pseudo-random numbers, and the gradient of sum(d_logits * logits) with
    respect to the input embeddings.

Every value is screened against a float64 run within half the C++ test's tolerance (1e-4, absolute
or relative to the largest magnitude). Fields as tests/golden/rnn_differentiable/ (whose test
compares them the same way): "model", "source", "target" (empty), "logits", "d_logits",
"d_source" [S, d], "d_target" (empty).
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "reference")]

from attnscope_ref import bert  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(ROOT, "tests", "golden")
OUT = os.path.join(GOLDEN, "differentiable")
NAMES = ["small_mlm", "tiny_pooler"]
TOLERANCE = 1e-4
SENTENCES = ("i can eat bread .", "we drink beer")


def run(path, ids, d_logits, dtype):
    model, *_ = bert.load(path)
    model = model.to(dtype)
    x = model.embed.token.weight[ids].detach().clone().requires_grad_(True)
    n = len(ids)
    segments = torch.tensor(model.segments_of(ids))
    h = model.embed.norm(x + model.embed.position(torch.arange(n)) + model.embed.segment(segments))[None]
    for layer in model.layers:
        h = layer(h)
    logits = model.mlm_logits(h[0])
    (logits * d_logits.to(dtype)).sum().backward()
    return logits.detach(), x.grad


def nested(t):
    return [[float(f"{v:.7g}") for v in row] for row in t.tolist()]


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    for name in NAMES:
        path = os.path.join(GOLDEN, "bert", name + ".safetensors")
        _, config, _, vocab = bert.load(path)
        special = config["special_tokens"]
        words = [[vocab.index(w) for w in s.split()] for s in SENTENCES]  # whole words of the vocabulary
        cls, sep = vocab.index("[CLS]"), special["eos"]
        ids = [cls] + words[0] + [sep] + words[1] + [sep]
        d_logits = torch.randn(len(ids), len(vocab), generator=torch.Generator().manual_seed(11))
        values = run(path, ids, d_logits, torch.float32)
        torch.set_default_dtype(torch.float64)  # the reference's own zeros are float64 too
        try:
            values64 = run(path, ids, d_logits, torch.float64)
        finally:
            torch.set_default_dtype(torch.float32)
        for what, a, b in zip(("logits", "d_source"), values, values64):
            bound = 0.5 * TOLERANCE * max(1.0, float(b.abs().max()))
            assert float((a.double() - b).abs().max()) <= bound, (name, what)
        logits, d_source = values
        golden = {"model": "bert/" + name + ".safetensors", "source": ids, "target": [], "logits": nested(logits),
                  "d_logits": nested(d_logits), "d_source": nested(d_source), "d_target": []}
        out = os.path.join(OUT, name + ".json")
        with open(out, "w", encoding="utf-8") as f:
            json.dump(golden, f)
            f.write("\n")
        print(f"{out}: S {len(ids)}, max |d_source| {float(d_source.abs().max()):.4g}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
