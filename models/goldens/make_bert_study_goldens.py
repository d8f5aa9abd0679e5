#!/usr/bin/env python3
"""Write the goldens of the BERT head study (src/analysis/encoder_study.h) under tests/golden/bert/
(deterministic; run with /usr/bin/python3). Written from the study's definitions, not from the
C++:

  patterns   Kovaleva et al. (2019)'s class of every layer x head, by the rules documented at
             attention_pattern (src/analysis/attention_maps.h): flat -> heterogeneous, then
             diagonal, vertical, vertical+diagonal, block, heterogeneous (first rule that holds).
  shares     per layer and per head, the mean over query rows (and heads) of the attention on
             [CLS], on [SEP], on pieces made only of punctuation (BERT's rule), on position i-1
             and on i+1 (0 where there is none); raw alpha_ij, and norm-weighted
             alpha_ij ||f_h(x_j)|| (Kobayashi et al. 2020, f_h(x_j) = head h's value vector after the
             output projection) with every query row renormalised to sum 1.
  ablation   masked-token accuracy: every non-special piece of every sentence replaced by [MASK]
             in turn, correct when the top-1 MLM piece is the original; then with each head
             switched off (its output zeroed before the output projection).

The shares and patterns are computed for small_mlm (models/goldens/make_bert_goldens.py) and for
study_mlm, a tiny MLM trained here on the toy grammar's English side (so that masked-token
accuracy, and what a head's ablation changes, is not all zero as in a random model). Writes
study_mlm.safetensors and study.json (schema: tests/golden/README.md, "BERT study").
"""

import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference"), os.path.join(MODELS, "convert")]

from attnscope_ref import bert  # noqa: E402
from attnscope_ref.wordpiece import DEFAULT_SPEC, WordPiece, is_punctuation  # noqa: E402
from make_bert_goldens import OUT, TOY, model_vocab  # noqa: E402
from make_goldens import write_json  # noqa: E402

STUDY_CONFIG = {"d_model": 16, "n_heads": 2, "d_ff": 32, "n_layers": 2, "max_positions": 32, "pooler": False,
                "layer_norm_eps": 1e-5}
STEPS = 150
SHARE_TEXTS = [
    "i want to eat [MASK] .",
    "I want [MASK] [MASK] bread!",
    "i can eat apple [SEP] we want to drink beer",
    "we read book , i read newspaper .",
]
# Beyond the training sentences: a pair, punctuation, an unknown word, a sentence of specials only.
EXTRA_ABLATION = ["we can drink water .", "i want to read book [SEP] we eat bread", "i want zebra", "[MASK]"]
MIN_MARGIN = 1e-3  # top-1 vs top-2 logit: smaller gaps could flip between engines


def toy_sentences():
    with open(TOY, encoding="utf-8") as f:
        return [line.split(",")[0].strip() for line in f if line.strip()]


# ----------------------------------------------------------------------------- the definitions

def pattern(m):
    """m [Q, K] -> one of the five classes."""
    Q, K = m.shape
    if K < 2 or Q < 1:
        return "heterogeneous"
    if m.max(dim=1).values.mean().item() < 2.0 / K:
        return "heterogeneous"
    i = torch.arange(Q)[:, None]
    j = torch.arange(K)[None, :]
    dist = (i - j).abs()
    band1 = (m * (dist <= 1)).sum().item() / Q
    band3 = (m * (dist <= 3)).sum().item() / Q
    column = (m.sum(dim=0) / Q).max().item()
    if band1 >= 0.5:
        return "diagonal"
    if column >= 0.5:
        return "vertical"
    if band1 >= 0.3 and column >= 0.3:
        return "vertical+diagonal"
    if band3 >= 0.6:
        return "block"
    return "heterogeneous"


def all_punct(piece):
    text = piece[2:] if piece.startswith("##") and len(piece) > 2 else piece
    return len(text) > 0 and all(is_punctuation(c) for c in text)


def shares(a, cls, sep, punct):
    """a [Q, K] (rows sum to 1) -> the five shares, mean over query rows."""
    T = a.shape[0]
    prev = sum(a[i, i - 1].item() for i in range(1, T)) / T
    nxt = sum(a[i, i + 1].item() for i in range(T - 1)) / T
    return {"cls": (a[:, cls].sum() / T).item(), "sep": (a[:, sep].sum() / T).item(),
            "punct": (a[:, punct].sum() / T).item(), "prev": prev, "next": nxt}


def mean(items):
    return {k: sum(s[k] for s in items) / len(items) for k in items[0]}


def study_text(model, vocab, tok, text):
    pieces = ["[CLS]"] + tok.split(text) + ["[SEP]"]
    index = {p: i for i, p in enumerate(vocab)}
    ids = [index.get(p, index["[UNK]"]) for p in pieces]
    with torch.no_grad():
        out = model(ids)
    T = len(ids)
    cls = torch.tensor([p == "[CLS]" for p in pieces])
    sep = torch.tensor([p == "[SEP]" for p in pieces])
    punct = torch.tensor([all_punct(p) for p in pieces])
    H = model.config["n_heads"]
    patterns, raw, norm, raw_heads, norm_heads = [], [], [], [], []
    for l, rec in enumerate(out["layers"]):
        f = rec["transformed_values"].view(H, T, -1)  # [H, T, d]
        r_heads, n_heads, p_heads = [], [], []
        for h in range(H):
            a = out["attention"][l, h]
            w = a * f[h].norm(dim=-1)[None, :]  # alpha_ij ||f_h(x_j)||
            w = w / w.sum(dim=-1, keepdim=True)
            p_heads.append(pattern(a))
            r_heads.append(shares(a, cls, sep, punct))
            n_heads.append(shares(w, cls, sep, punct))
        patterns.append(p_heads)
        raw_heads.append(r_heads)
        norm_heads.append(n_heads)
        raw.append(mean(r_heads))
        norm.append(mean(n_heads))
    return {"text": text, "pieces": pieces, "patterns": patterns, "raw": raw, "norm": norm, "raw_heads": raw_heads,
            "norm_heads": norm_heads}


def ablation(model, vocab, tok, sentences):
    index = {p: i for i, p in enumerate(vocab)}
    st = model.config["special_tokens"]
    specials = {st["pad"], st["unk"], st["bos"], st["eos"], st["mask"]}
    masked = []
    for s in sentences:
        ids = [index.get(p, index["[UNK]"]) for p in ["[CLS]"] + tok.split(s) + ["[SEP]"]]
        for i, orig in enumerate(ids):
            if orig not in specials:
                copy = list(ids)
                copy[i] = st["mask"]
                masked.append((copy, i, orig))
    L, H = model.config["n_layers"], model.config["n_heads"]
    margin = [math.inf]

    def correct(head_mask):
        n = 0
        for ids, pos, orig in masked:
            with torch.no_grad():
                logits = model(ids, head_mask=head_mask)["logits"][pos]
            top2 = torch.topk(logits, 2).values
            margin[0] = min(margin[0], (top2[0] - top2[1]).item())
            n += int(torch.argmax(logits).item() == orig)
        return n

    base = correct(None)
    counts = []
    for l in range(L):
        row = []
        for h in range(H):
            m = torch.ones(L, H)
            m[l, h] = 0
            row.append(correct(m))
        counts.append(row)
    P = len(masked)
    return {"sentences": sentences, "positions": P, "base_correct": base, "base_accuracy": base / P,
            "correct": counts, "delta": [[c / P - base / P for c in row] for row in counts]}, margin[0]


# ----------------------------------------------------------------------------- the study model

def train_study_model(vocab, tok, sentences):
    cfg = bert.complete_config(STUDY_CONFIG, vocab)
    torch.manual_seed(7)
    model = bert.Bert(cfg, len(vocab))
    index = {p: i for i, p in enumerate(vocab)}
    st = cfg["special_tokens"]
    examples = []
    for s in sentences:
        ids = [index[p] for p in ["[CLS]"] + tok.split(s) + ["[SEP]"]]
        for i in range(1, len(ids) - 1):
            x = list(ids)
            x[i] = st["mask"]
            examples.append((x, i, ids[i]))
    T = max(len(x) for x, _, _ in examples)
    ids = torch.tensor([x + [st["pad"]] * (T - len(x)) for x, _, _ in examples])
    pad = ids == st["pad"]
    segments = torch.zeros_like(ids)
    pos = torch.tensor([i for _, i, _ in examples])
    target = torch.tensor([t for _, _, t in examples])
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(STEPS):
        hidden = model.batch_hidden(ids, segments, pad)
        logits = model.mlm_logits(hidden[torch.arange(len(examples)), pos])
        loss = torch.nn.functional.cross_entropy(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"study_mlm: training loss {loss.item():.4f} after {STEPS} steps")
    return model.eval(), cfg


def main():
    torch.set_num_threads(1)
    vocab = model_vocab()
    tok = WordPiece(DEFAULT_SPEC, vocab)
    sentences = toy_sentences()
    model, cfg = train_study_model(vocab, tok, sentences)
    path = os.path.join(OUT, "study_mlm.safetensors")
    bert.export(model, cfg, vocab, path, name="study_mlm",
                description="tiny attnscope BERT trained on the toy grammar (models/goldens/make_bert_study_goldens.py)")
    model, _, _, _ = bert.load(path)  # the numbers of the file as written
    small, _, _, _ = bert.load(os.path.join(OUT, "small_mlm.safetensors"))
    abl, margin = ablation(model, vocab, tok, sentences[::3] + EXTRA_ABLATION)
    if margin < MIN_MARGIN:
        raise SystemExit(f"a top-1 decision is within {margin:.2e} of the runner-up: choose other sentences")
    out = {
        "models": {
            name: {"model": name + ".safetensors", "cases": [study_text(m, vocab, tok, t) for t in SHARE_TEXTS]}
            for name, m in (("small_mlm", small), ("study_mlm", model))
        },
        "ablation": dict(abl, model="study_mlm.safetensors"),
    }
    write_json(os.path.join(OUT, "study.json"), out)
    print(f"ablation: {abl['positions']} positions, base {abl['base_correct']}, per head {abl['correct']}, "
          f"smallest top-1 margin {margin:.4f}")
    for name, m in out["models"].items():
        print(name, [c["patterns"] for c in m["cases"]])


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
