#!/usr/bin/python3
"""Write the RNN family's training goldens tests/golden/rnn_train/<model>.json (deterministic; run
with /usr/bin/python3).

The RNN counterpart of models/goldens/make_train_goldens.py (same numbers, same digests, same screen, same
optimiser cases), for every model of tests/golden/rnn/ (every cell x score x style, input feeding,
local-p windows, bidirectional and stacked layers, no attention), computed by the PyTorch
reference models/reference/attnscope_ref/rnn.py in float32:

  * the loss: teacher forcing (the decoder reads <s> y_1 .. y_{n-1} and predicts y_1 .. </s>) on a
    batch of 3 toy-grammar pairs of unequal lengths, sentence by sentence (the reference steps one
    hypothesis at a time; a padded batch with masks computes the same sums), with
    F.cross_entropy(logits, gold, label_smoothing=0.1, reduction="sum") summed over the batch, / n;
  * the gradient of every parameter after backward() of that loss;
  * the weights after 3 optimiser steps on the same batch (Adam, Adam + L2, AdamW; clipping and
    LambdaLR(inverse_sqrt) as models/train/train.py).

Plus one model made here, rnn_train/shared_lstm_bahdanau_general.safetensors (shared source/target
embeddings over a joint toy vocabulary, 2+2 layers, bidirectional; the inference goldens have no
shared-embedding RNN), initialised as make_rnn_goldens.py initialises its models.
The models' weights are those of the inference goldens (larger than PyTorch's default, so the
attention is peaky): the gradients then exercise every path, not only the near-uniform start.
Every value is screened against a float64 run (torch's default dtype switched to float64, so the
reference's own zeros/arange are float64 too) within half the C++ test's tolerance.
Schema: tests/golden/README.md ("Training goldens"); the file adds "family": "rnn".
"""

import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref import tokenizer as tk  # noqa: E402
from attnscope_ref.export import export, load_model  # noqa: E402
from attnscope_ref.rnn import RNNSeq2Seq, complete_config  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402
from make_rnn_goldens import TOY, init_weights  # noqa: E402
from make_train_goldens import (GRAD_ABS, GRAD_REL, LABEL_SMOOTHING, PAIRS, check_close, fmt,  # noqa: E402
                                gradients, json_of, optimizer_cases, stored, worst, write_golden)

ROOT = os.path.dirname(MODELS)
GOLDEN = os.path.join(ROOT, "tests", "golden", "rnn")  # the models
OUT = os.path.join(ROOT, "tests", "golden", "rnn_train")  # not under rnn/: its tests read every rnn/*.json
FULL = {"gru_bahdanau_additive", "lstm_luong_dot_feed_local"}  # every element stored; the others as digests


SHARED = "shared_lstm_bahdanau_general"


def shared_model():
    """Writes OUT/SHARED.safetensors: an RNN with shared embeddings over the joint toy vocabulary."""
    lines = []
    with open(TOY, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                lines.extend(line.strip().split(","))
    vocab = tk.build_word_vocab(lines)
    config = {"cell": "lstm", "attention": "bahdanau", "score": "general", "d_embed": 4, "d_encoder": 3,
              "d_hidden": 5, "bidirectional": True, "n_encoder_layers": 2, "n_decoder_layers": 2,
              "shared_embeddings": True, "max_positions": 16}
    torch.manual_seed(7)
    model = RNNSeq2Seq(config, len(vocab), len(vocab))
    init_weights(model, 700)
    spec = {"type": "word", "lowercase": True, "split_punctuation": True}
    export(model, complete_config(config), spec, vocab, vocab, os.path.join(OUT, SHARED + ".safetensors"),
           name=SHARED, description="randomly initialised attnscope RNN test model (models/goldens/make_rnn_train_goldens.py)")


def models():
    """(name, path of its .safetensors) for every model of the inference goldens, and SHARED."""
    out = [(f[:-len(".safetensors")], "rnn/" + f) for f in sorted(os.listdir(GOLDEN)) if f.endswith(".safetensors")]
    return out + [(SHARED, "rnn_train/" + SHARED + ".safetensors")]


def batch_ids(model, tok_src, tok_tgt):
    c = model.config
    bos, eos = c["special_tokens"]["bos"], c["special_tokens"]["eos"]
    src = [tok_src.encode_source(s, c["src_append_eos"], eos)[1] for s, _ in PAIRS]
    tgt = [[bos] + tok_tgt.encode(t)[1] + [eos] for _, t in PAIRS]
    return src, tgt


def loss_of(model, src, tgt):
    total, n = 0.0, 0
    for s, t in zip(src, tgt):
        H, final = model.encode(s)
        state = model.start(final)
        rows = []
        for token in t[:-1]:
            logits, state, _ = model.step(token, state, H, final)
            rows.append(logits)
        gold = torch.tensor(t[1:])
        total = total + F.cross_entropy(torch.stack(rows), gold, label_smoothing=LABEL_SMOOTHING, reduction="sum")
        n += len(t) - 1
    return total / n, n


class Float64:
    def __enter__(self):
        torch.set_default_dtype(torch.float64)

    def __exit__(self, *exc):
        torch.set_default_dtype(torch.float32)


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    shared_model()
    total = 0
    for name, relative in models():
        path = os.path.join(ROOT, "tests", "golden", relative)
        model, config, tok_spec, src_vocab, tgt_vocab = load_model(path)
        unk = config["special_tokens"]["unk"]
        src, tgt = batch_ids(model, Tokenizer(tok_spec, src_vocab, unk), Tokenizer(tok_spec, tgt_vocab, unk))
        initial = {k: v.clone() for k, v in model.state_dict().items()}
        model64, *_ = load_model(path)
        model64 = model64.double()

        loss, n, grads = gradients(model, src, tgt, loss_of)
        with Float64():
            loss64, _, grads64 = gradients(model64, src, tgt, loss_of)
        assert abs(loss - loss64) <= 1e-5 * abs(loss64), (loss, loss64)
        for k in grads:
            check_close(f"{name} grad {k}", grads[k], grads64[k], GRAD_REL, GRAD_ABS)

        parts = [f'  "model": "{relative}"',
                 '  "family": "rnn"',
                 f'  "label_smoothing": {LABEL_SMOOTHING}',
                 f'  "batch": {{"src": {json.dumps(src)}, "tgt": {json.dumps(tgt)}}}',
                 f'  "n_tokens": {n}',
                 f'  "loss": {fmt(loss)}',
                 f'  "gradients": {stored(name in FULL, grads)}']
        parts.append(optimizer_cases(name, model, model64, initial, src, tgt, loss_of, precise=Float64))
        text = json_of(parts)
        write_golden(os.path.join(OUT, f"{name}.json"), text, loss, n)
        total += len(text)
    print(f"total {total / 1024:.0f} KB; worst float32 error / tolerance {worst[0]:.3f}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
