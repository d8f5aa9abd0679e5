#!/usr/bin/python3
"""Write the decoder-only training goldens tests/golden/decoder_only_train/<model>.json
(deterministic; run with /usr/bin/python3).

For each decoder-only golden model (tests/golden/decoder_only/<model>.safetensors: pre-norm with
learned positions, tied output and gelu_tanh; post-norm with sinusoidal positions, an untied output
and relu; pre-norm attention-only with gelu) and three prompt/continuation pairs of toy-grammar
words of unequal lengths, each learned as one sequence "<s> source target </s>" (src/train/trainable.h, the decoder-only
example), padded into one batch, with the reference models/reference/attnscope_ref/gpt.py in
float32, dropout 0:

  * the loss: F.cross_entropy(batch_logits(ids[:, :-1]), ids[:, 1:], ignore_index=PAD,
    label_smoothing=0.1, reduction="sum") / n (models/train/train.py `train_lm`'s loss), n = non-pad
    gold tokens;
  * the gradient of every parameter after backward() of that loss;
  * the weights after 3 optimiser steps (Adam, Adam with L2, AdamW; clipping, inverse-sqrt warmup).

The same schema, storage (every element of the first model's gradients, digests elsewhere) and
float64 screen as make_train_goldens.py, whose functions this script runs. Schema:
tests/golden/README.md ("Training goldens"); "batch.src" holds an empty list per example.
"""

import argparse
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "reference")]

import make_train_goldens as common  # noqa: E402
from attnscope_ref import gpt  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
MODELS = os.path.join(ROOT, "tests", "golden", "decoder_only")
OUT = os.path.join(ROOT, "tests", "golden", "decoder_only_train")
NAMES = ["attention_only_gelu", "pre_learned_gelu_tanh", "post_sin_relu_untied"]
FULL = {"attention_only_gelu"}
# Words of the models' vocabulary (an <unk> repeated in every sequence makes its embedding's
# gradient a long sum of cancelling terms, whose float32 rounding nears the tolerance).
PAIRS = [("i can eat", "bread"), ("we want to drink", "beer water"), ("i read", "book")]


def sequences(model, tok):
    """Each pair as <s> source target </s>, and the padded batch [B, T]."""
    s = model.config["special_tokens"]
    ids = [[s["bos"]] + tok.encode(a)[1] + tok.encode(b)[1] + [s["eos"]] for a, b in PAIRS]
    longest = max(map(len, ids))
    assert longest - 1 <= model.config["max_positions"], "a sequence is longer than the model's context"
    return ids, torch.tensor([x + [s["pad"]] * (longest - len(x)) for x in ids])


def loss_of(model, _src, ids):
    pad = model.config["special_tokens"]["pad"]
    logits = model.batch_logits(ids[:, :-1], ids[:, :-1] == pad)
    gold = ids[:, 1:]
    n = int((gold != pad).sum())
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), gold.reshape(-1), ignore_index=pad,
                           label_smoothing=common.LABEL_SMOOTHING, reduction="sum")
    return loss / n, n


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    for name in NAMES:
        path = os.path.join(MODELS, name + ".safetensors")
        model, config, spec, vocab = gpt.load(path)
        ids, batch = sequences(model, Tokenizer(spec, vocab, config["special_tokens"]["unk"]))
        text, loss, n = common.golden_text(name, f"../decoder_only/{name}.safetensors", model,
                                           gpt.load(path)[0].double(), None, batch, ([[] for _ in ids], ids),
                                           name in FULL, loss_of)
        common.write_golden(os.path.join(OUT, f"{name}.json"), text, loss, n)
    print(f"worst float32 error / tolerance {common.worst[0]:.3f}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
