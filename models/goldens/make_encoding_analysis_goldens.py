#!/usr/bin/env python3
"""Write the goldens of the analyses of one encoding (src/analysis/encoding_analysis.h) of an
encoder-only model, with and without a head switched off, to tests/golden/bert/encoding_analysis.json
(deterministic; run with /usr/bin/python3). Written from the analyses' definitions on the PyTorch
reference (models/reference/attnscope_ref/bert.py), not from the C++:

  rollout    Abnar & Zuidema (2020): A_l the mean over heads of layer l's [T, T] map,
             Â_l = 0.5·A_l + 0.5·I with every row renormalised to 1, R = Â_L ··· Â_1.
  weighted   ‖α·f(x)‖ (Kobayashi et al. 2020): α_ij ‖f_h(x_j)‖, f_h(x_j) head h's value vector of
             piece j after the output projection (no bias), [L, H, T, T], not renormalised.
  logits     q·kᵀ/√d_head of every head and query before the softmax, [L, H, T, T].
  patterns   Kovaleva et al. (2019)'s class of every head (make_bert_study_goldens.pattern),
             [layer * H + head].
  fill       the softmax of the MLM logits at every [MASK]: the top 3 ids and probabilities.

A switched-off head ("maskHeads" in the interventions) has its output zeroed before the output
projection; it still attends. Models: tests/golden/bert/study_mlm.safetensors (make_bert_study_goldens.py).
"""

import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference"), os.path.join(MODELS, "convert")]

from attnscope_ref import bert  # noqa: E402
from attnscope_ref.wordpiece import DEFAULT_SPEC, WordPiece  # noqa: E402
from make_bert_goldens import OUT, model_vocab  # noqa: E402
from make_bert_study_goldens import pattern  # noqa: E402
from make_goldens import write_json  # noqa: E402

MODEL = "study_mlm.safetensors"
TEXTS = ["i want to eat [MASK] .", "we can drink [MASK] [SEP] i read book"]
# Each case: the heads switched off ([layer, head]), as the engine's maskHeads name them.
MASKS = [[], [[0, 1]], [[1, 0], [1, 1]]]


def rollout(attention):
    L, _, T, _ = attention.shape
    r = torch.eye(T)
    for l in range(L):
        a = 0.5 * attention[l].mean(dim=0) + 0.5 * torch.eye(T)
        a = a / a.sum(dim=-1, keepdim=True)
        r = a @ r
    return r


def case(model, vocab, tok, text, masked):
    pieces = ["[CLS]"] + tok.split(text) + ["[SEP]"]
    index = {p: i for i, p in enumerate(vocab)}
    ids = [index.get(p, index["[UNK]"]) for p in pieces]
    L, H = model.config["n_layers"], model.config["n_heads"]
    head_mask = torch.ones(L, H)
    for l, h in masked:
        head_mask[l, h] = 0
    with torch.no_grad():
        out = model(ids, head_mask=head_mask)
    T = len(ids)
    attention = out["attention"]  # [L, H, T, T]
    weighted, logits = [], []
    for rec in out["layers"]:
        f = rec["transformed_values"].view(H, T, -1).norm(dim=-1)  # [H, T]
        weighted.append(rec["attn"] * f[:, None, :])
        dh = rec["q"].shape[1] // H
        q = rec["q"].view(T, H, dh).transpose(0, 1)
        k = rec["k"].view(T, H, dh).transpose(0, 1)
        logits.append(q @ k.transpose(-1, -2) / dh ** 0.5)
    probs = torch.softmax(out["logits"], dim=-1)
    fill = []
    for pos, i in enumerate(ids):
        if i == index["[MASK]"]:
            top = torch.topk(probs[pos], 3)
            fill.append({"position": pos, "ids": top.indices.tolist(), "probs": top.values.tolist()})
    return {
        "text": text, "masked": masked, "pieces": pieces,
        "rollout": rollout(attention).tolist(),
        "weighted": torch.stack(weighted).tolist(),
        "logits": torch.stack(logits).tolist(),
        "patterns": [pattern(attention[l, h]) for l in range(L) for h in range(H)],
        "fill": fill,
    }


def main():
    torch.set_num_threads(1)
    vocab = model_vocab()
    tok = WordPiece(DEFAULT_SPEC, vocab)
    model, _, _, _ = bert.load(os.path.join(OUT, MODEL))
    cases = [case(model, vocab, tok, t, m) for t in TEXTS for m in MASKS]
    write_json(os.path.join(OUT, "encoding_analysis.json"), {"model": MODEL, "cases": cases})
    for c in cases:
        print(c["text"], c["masked"], [(f["ids"][0], round(f["probs"][0], 4)) for f in c["fill"]])


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
