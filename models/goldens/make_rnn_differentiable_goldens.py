#!/usr/bin/python3
"""Write the RNN's input-gradient goldens tests/golden/rnn_differentiable/<model>.json
(deterministic; run with /usr/bin/python3).

What src/train/differentiable.h promises of the RNN (src/train/rnn_grad.h), computed by PyTorch
autograd on the reference models/reference/attnscope_ref/rnn.py in float32, for one toy-grammar
pair on a few models of tests/golden/rnn/ (GRU and LSTM; Bahdanau, Luong with input feeding, no
attention; the location, additive and dot scores; local-p; bidirectional; stacked decoder):

  * the input embeddings: the source ids' rows of src_embed, the target ids' rows of tgt_embed
    (the RNN has no embedding scale), each a leaf tensor;
  * the logits [T, V] of the reference's own encode/start/step run from those rows (row t after
    reading target[0..t]);
  * d_logits [T, V], fixed pseudo-random numbers, and the gradients of sum(d_logits * logits)
    with respect to both input embeddings.

Every value is screened against a float64 run within half the C++ test's tolerance (1e-4, absolute
or relative to the largest magnitude). Fields: "model", "source", "target" (ids), "logits",
"d_logits", "d_source" [S, E], "d_target" [T, E].
"""

import argparse
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref.export import load_model  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402
from differentiable_support import nested, screened, write  # noqa: E402
from make_train_goldens import PAIRS  # noqa: E402

ROOT = os.path.dirname(MODELS)
GOLDEN = os.path.join(ROOT, "tests", "golden", "rnn")  # the models
OUT = os.path.join(ROOT, "tests", "golden", "rnn_differentiable")
NAMES = ["gru_luong_location_feed", "lstm_bahdanau_location_local", "lstm_luong_dot_feed_local",
         "gru_bahdanau_additive", "gru_none"]


class Rows(nn.Module):
    """An embedding whose "ids" are positions: row i of the given input embeddings."""

    def __init__(self, rows):
        super().__init__()
        self.rows = rows

    def forward(self, ids):
        return self.rows[ids]


def logits_of(model, x_src, x_tgt):
    """The reference's forward from the input embeddings: its embeddings swapped for the rows."""
    model.src_embed, model.tgt_embed = Rows(x_src), Rows(x_tgt)
    H, final = model.encode(list(range(x_src.shape[0])))
    state, rows = model.start(final), []
    for t in range(x_tgt.shape[0]):
        logits, state, _ = model.step(t, state, H, final)
        rows.append(logits)
    return torch.stack(rows)


def run(path, src, tgt, d_logits, dtype):
    model, *_ = load_model(path)
    model = model.to(dtype)
    assert not model.config["shared_embeddings"]
    x_src = model.src_embed.weight[src].detach().clone().requires_grad_(True)
    x_tgt = model.tgt_embed.weight[tgt].detach().clone().requires_grad_(True)
    logits = logits_of(model, x_src, x_tgt)
    (logits * d_logits.to(dtype)).sum().backward()
    return logits.detach(), x_src.grad, x_tgt.grad


def main():
    torch.set_num_threads(1)
    source, target = PAIRS[1]  # the longest
    for name in NAMES:
        path = os.path.join(GOLDEN, name + ".safetensors")
        _, config, tok_spec, src_vocab, tgt_vocab = load_model(path)
        special = config["special_tokens"]
        src = Tokenizer(tok_spec, src_vocab, special["unk"]).encode_source(source, config["src_append_eos"],
                                                                            special["eos"])[1]
        tgt = [special["bos"]] + Tokenizer(tok_spec, tgt_vocab, special["unk"]).encode(target)[1]
        d_logits = torch.randn(len(tgt), len(tgt_vocab), generator=torch.Generator().manual_seed(11))
        logits, d_source, d_target = screened(lambda dtype: run(path, src, tgt, d_logits, dtype), name,
                                              ("logits", "d_source", "d_target"))
        golden = {"model": "rnn/" + name + ".safetensors", "source": src, "target": tgt, "logits": nested(logits),
                  "d_logits": nested(d_logits), "d_source": nested(d_source), "d_target": nested(d_target)}
        out = write(OUT, name, golden)
        print(f"{out}: S {len(src)}, T {len(tgt)}, max |d_source| {float(d_source.abs().max()):.4g}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
