#!/usr/bin/env python3
"""Write the attribution goldens under tests/golden/attribution/ (deterministic; run with
/usr/bin/python3).

    /usr/bin/python3 models/goldens/make_attribution_goldens.py           # write
    /usr/bin/python3 models/goldens/make_attribution_goldens.py --check   # recompute, compare, write nothing

For committed golden models of every family, the PyTorch references in models/reference/attnscope_ref/
run from input embeddings (the token's embedding times the embedding scale, before positions or
token types are added: src/train/differentiable.h), and torch.autograd gives the gradient of
    f = log p(token | context)   or, with a contrast token,   f = logit(token) − logit(contrast)
at one output row. Per case (the rules of src/analysis/attribution.h):
  gradient-input:        Σ_d x_d ∂f/∂x_d per token;
  integrated-gradients:  (x − x') · (1/m) Σ_k ∂f/∂x(x' + (k + ½)/m (x − x')), x' zero or every
                         token's <pad> embedding but the target's leading <bos>, which keeps its
                         own (so it scores 0), with f(x), f(x'), the completeness error and
                         its share of |f(x) − f(x')|;
  erasure:               f(x) − f(x without the token), positions shifted; 0 for <bos>, for an
                         encoder-only model's predicted position and for a side's only token.
toy.json (the frozen toy model, greedy on one sentence) adds, per step, Kendall's τ-b between every
head's cross-attention row and |gradient × input| over the source, counted here pair by pair.
Schema: tests/golden/README.md ("Attribution").
"""

import argparse
import json
import math
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref import bert, gpt  # noqa: E402
from attnscope_ref import tokenizer as tk  # noqa: E402
from attnscope_ref.export import load_model  # noqa: E402
from make_goldens import write_json  # noqa: E402
from golden_compare import differences  # noqa: E402
from make_rnn_differentiable_goldens import logits_of as rnn_logits_of  # noqa: E402

ROOT = os.path.dirname(MODELS)
GOLDEN = os.path.join(ROOT, "tests", "golden")
OUT = os.path.join(GOLDEN, "attribution")
TOY = os.path.join(ROOT, "tests", "models", "toy-en-de.frozen.safetensors")
TOY_SENTENCE = "i can eat apple"

torch.set_default_dtype(torch.float64)  # the reference's sums in double; the engine's in float


# ----------------------------------------------------------------------------- passes from embeddings
# Each: (embed(ids_source, ids_target) -> (xs, xt), logits(ids_source, ids_target, xs, xt) -> [rows, V]).

def transformer_pass(m):
    c = m.config
    scale = c["embedding_scale"]

    def embed(src, tgt):
        return (m.src_embed(torch.tensor(src, dtype=torch.long)) * scale,
                m.target_embedding(torch.tensor(tgt, dtype=torch.long)) * scale)

    def logits(src, tgt, xs, xt):
        x = (xs + m.encoder.positional(0, len(src)))[None]
        for layer in m.encoder.layers:
            x = layer(x)
        memory = m.encoder.finish(x)
        t = len(tgt)
        y = (xt + m.decoder.positional(0, t))[None]
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)[None, None]
        for layer in m.decoder.layers:
            y = layer(y, memory, self_mask=causal)
        return m.logits(m.decoder.finish(y))[0]

    return embed, logits


def gpt_pass(m):
    c = m.config

    def embed(src, tgt):
        return torch.zeros(0, c["d_model"]), m.embed.token(torch.tensor(tgt, dtype=torch.long)) * c["embedding_scale"]

    def logits(src, tgt, xs, xt):
        t = len(tgt)
        pos = m.embed.position.weight[:t] if c["positions"] == "learned" else m.sinusoids[:t]
        x = (xt + pos)[None]
        for layer in m.layers:
            x = layer(x)
        return m.logits(x)[0]

    return embed, logits


def bert_pass(m):
    def embed(src, tgt):
        return m.embed.token(torch.tensor(src, dtype=torch.long)), torch.zeros(0, m.config["d_model"])

    def logits(src, tgt, xs, xt):
        n = len(src)
        segments = torch.tensor(m.segments_of(src))
        x = m.embed.norm(xs + m.embed.position(torch.arange(n)) + m.embed.segment(segments))[None]
        for layer in m.layers:
            x = layer(x)
        return m.mlm_logits(x[0])

    return embed, logits


def rnn_pass(m):
    """The RNN reference (rnn.py) run from its input embeddings (no embedding scale), as
    make_rnn_differentiable_goldens.py runs it."""
    source_rows = m.src_embed.weight.detach().clone()
    target_rows = m.tgt_embedding().weight.detach().clone()

    def embed(src, tgt):
        return source_rows[torch.tensor(src, dtype=torch.long)], target_rows[torch.tensor(tgt, dtype=torch.long)]

    def logits(src, tgt, xs, xt):
        return rnn_logits_of(m, xs, xt)

    return embed, logits


# ----------------------------------------------------------------------------- the methods

def score(logits, row, token, contrast):
    z = logits[row]
    return z[token] - z[contrast] if contrast >= 0 else torch.log_softmax(z, 0)[token]


def f_and_grad(p, case, xs, xt):
    embed, logits = p
    xs = xs.detach().requires_grad_(True)
    xt = xt.detach().requires_grad_(True)
    f = score(logits(case["source"], case["target"], xs, xt), case["row"], case["token"], case["contrast"])
    gs, gt = torch.autograd.grad(f, [xs, xt], allow_unused=True)
    return f.item(), (torch.zeros_like(xs) if gs is None else gs), (torch.zeros_like(xt) if gt is None else gt)


def gradient_input(p, case, xs, xt):
    f, gs, gt = f_and_grad(p, case, xs, xt)
    return {"f": f, "source_scores": (xs * gs).sum(1), "target_scores": (xt * gt).sum(1)}


def integrated_gradients(p, case, xs, xt, pad):
    embed, logits = p
    if case["baseline"] == "pad":
        bs, bt = embed([pad] * len(case["source"]), [pad] * len(case["target"]))
    else:
        bs, bt = torch.zeros_like(xs), torch.zeros_like(xt)
    if case["target"]:  # <bos> starts every target: the baseline keeps it
        bt = torch.cat([xt[:1], bt[1:]])
    m = case["steps"]
    ms, mt = torch.zeros_like(xs), torch.zeros_like(xt)
    for k in range(m):
        alpha = (k + 0.5) / m
        _, gs, gt = f_and_grad(p, case, bs + alpha * (xs - bs), bt + alpha * (xt - bt))
        ms, mt = ms + gs / m, mt + gt / m
    f, _, _ = f_and_grad(p, case, xs, xt)
    f0, _, _ = f_and_grad(p, case, bs, bt)
    out = {"f": f, "f_baseline": f0, "source_scores": ((xs - bs) * ms).sum(1), "target_scores": ((xt - bt) * mt).sum(1)}
    total = float(out["source_scores"].sum() + out["target_scores"].sum())
    out["completeness_error"] = abs(total - (f - f0))
    out["completeness_share"] = out["completeness_error"] / abs(f - f0)
    return out


def erasure(p, case, xs, xt):
    embed, logits = p
    src, tgt, row = case["source"], case["target"], case["row"]
    encoder_only = not tgt
    f = score(logits(src, tgt, xs, xt), row, case["token"], case["contrast"]).item()

    def erased(side, i):
        s, t, r = list(src), list(tgt), row
        a, b = xs, xt
        if side == "source":
            del s[i]
            a = torch.cat([xs[:i], xs[i + 1:]])
            if encoder_only and i < row:
                r -= 1
        else:
            del t[i]
            b = torch.cat([xt[:i], xt[i + 1:]])
            if i <= row:
                r -= 1
        return f - score(logits(s, t, a, b), r, case["token"], case["contrast"]).item()

    def side_scores(side, ids):
        out = []
        for i in range(len(ids)):
            skip = (len(ids) == 1 or (side == "target" and i == 0)
                    or (side == "source" and encoder_only and i == row))
            out.append(0.0 if skip else erased(side, i))
        return torch.tensor(out)

    return {"f": f, "source_scores": side_scores("source", src), "target_scores": side_scores("target", tgt)}


def run(p, case, pad):
    with torch.no_grad():
        xs, xt = p[0](case["source"], case["target"])
    if case["method"] == "gradient-input":
        out = gradient_input(p, case, xs, xt)
    elif case["method"] == "integrated-gradients":
        out = integrated_gradients(p, case, xs, xt, pad)
    else:
        out = erasure(p, case, xs, xt)
    out["sum"] = float(out["source_scores"].sum() + out["target_scores"].sum())
    return out


def kendall_tau_b(x, y):
    """τ-b, pairs counted one by one (None where undefined: a constant list)."""
    c = d = tx = ty = n = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            n += 1
            dx, dy = x[i] - x[j], y[i] - y[j]
            tx += dx == 0
            ty += dy == 0
            if dx != 0 and dy != 0:
                c, d = (c + 1, d) if (dx > 0) == (dy > 0) else (c, d + 1)
    den = math.sqrt((n - tx) * (n - ty))
    return None if den == 0 else (c - d) / den


# ----------------------------------------------------------------------------- cases

METHODS = [
    {"method": "gradient-input"},
    {"method": "integrated-gradients", "steps": 8, "baseline": "zero"},
    {"method": "integrated-gradients", "steps": 64, "baseline": "zero"},
    {"method": "integrated-gradients", "steps": 16, "baseline": "pad"},
    {"method": "erasure"},
]


def cases_for(tokens, row, token, contrast):
    out = []
    for m in METHODS:
        out.append(dict({"source": tokens[0], "target": tokens[1], "row": row, "token": token, "contrast": -1,
                         "steps": 0, "baseline": "zero"}, **m))
    for m in (METHODS[0], METHODS[1]):  # contrastive: gradient × input and IG
        out.append(dict({"source": tokens[0], "target": tokens[1], "row": row, "token": token, "contrast": contrast,
                         "steps": 0, "baseline": "zero"}, **m))
    return out


def second_best(p, tokens, row, token):
    with torch.no_grad():
        xs, xt = p[0](*tokens)
        z = p[1](tokens[0], tokens[1], xs, xt)[row]
    order = [int(i) for i in torch.argsort(z, descending=True)]
    return next(i for i in order if i != token)


def translation_model(name, folder=""):
    m, config, *_ = load_model(os.path.join(GOLDEN, folder, name + ".safetensors"))
    m.double()
    g = json.load(open(os.path.join(GOLDEN, folder, name + ".json")))["cases"][0]
    family = config.get("architecture", "transformer")
    p = rnn_pass(m) if family == "rnn" else transformer_pass(m)
    src, out = g["src_ids"], g["output_ids"]
    bos = config["special_tokens"]["bos"]
    cases = []
    for t in (0, 2):  # the first step and one with a prefix
        tokens = (src, [bos] + out[:t])
        cases += cases_for(tokens, t, out[t], second_best(p, tokens, t, out[t]))
    return {"model": os.path.join(folder, name + ".safetensors"), "family": family,
            "pad": config["special_tokens"]["pad"]}, p, cases


def decoder_only_model(name):
    m, config, _, vocab = gpt.load(os.path.join(GOLDEN, "decoder_only", name + ".safetensors"))
    m.double()
    g = json.load(open(os.path.join(GOLDEN, "decoder_only", name + ".json")))["cases"][0]
    p = gpt_pass(m)
    bos = config.get("special_tokens", {}).get("bos", tk.BOS)
    pad = config.get("special_tokens", {}).get("pad", tk.PAD)
    out = g["greedy"]["tokens"]
    cases = []
    for t in (0, 1):
        target = [bos] + g["prompt_ids"] + out[:t]
        tokens = ([], target)
        cases += cases_for(tokens, len(target) - 1, out[t], second_best(p, tokens, len(target) - 1, out[t]))
    return {"model": "decoder_only/" + name + ".safetensors", "family": "decoder_only", "pad": pad}, p, cases


def bert_model(name):
    m, config, _, vocab = bert.load(os.path.join(GOLDEN, "bert", name + ".safetensors"))
    m.double()
    g = json.load(open(os.path.join(GOLDEN, "bert", name + ".json")))["cases"][0]
    p = bert_pass(m)
    mask = g["masks"][0]
    tokens = (g["ids"], [])
    token = mask["ids"][0]
    cases = cases_for(tokens, mask["position"], token, second_best(p, tokens, mask["position"], token))
    return {"model": "bert/" + name + ".safetensors", "family": "bert", "pad": config["special_tokens"]["pad"]}, p, cases


def rnn_model(name):
    return translation_model(name, "rnn")


def toy_model():
    m, config, spec, src_vocab, tgt_vocab = load_model(TOY)
    m.double()
    bos = config["special_tokens"]["bos"]
    _, src, _ = tk.Tokenizer(spec, src_vocab).encode_source(TOY_SENTENCE, m.config["src_append_eos"])
    decoded = m.greedy_decode(src, 20)
    out = decoded["output_ids"]
    p = transformer_pass(m)
    steps = []
    for t, token in enumerate(out):
        case = {"source": src, "target": [bos] + out[:t], "row": t, "token": token, "contrast": -1,
                "method": "gradient-input", "steps": 0, "baseline": "zero"}
        r = run(p, case, config["special_tokens"]["pad"])
        magnitude = [abs(float(v)) for v in r["source_scores"]]
        attention = decoded["steps"][t]["cross_attn"]  # [L, H, S]
        tau = [[kendall_tau_b([float(a) for a in attention[l][h]], magnitude) for h in range(attention.shape[1])]
               for l in range(attention.shape[0])]
        ig = dict(case, method="integrated-gradients", steps=16)
        steps.append({"token": token, "target": case["target"], "gradient_input": summary(r),
                      "integrated_gradients": summary(run(p, ig, config["special_tokens"]["pad"])), "tau": tau})
    return {"model": "../models/toy-en-de.frozen.safetensors", "sentence": TOY_SENTENCE, "source": src,
            "output_ids": out, "ig_steps": 16, "steps": steps}


def summary(r):
    return {k: (v.to(torch.float32) if isinstance(v, torch.Tensor) else v) for k, v in r.items()}


def build():
    files = {}
    for make, name in [(translation_model, "tiny_post_sin"), (translation_model, "small_pre_learned"),
                       (decoder_only_model, "pre_learned_gelu_tanh"), (decoder_only_model, "post_sin_relu_untied"),
                       (bert_model, "small_mlm"), (rnn_model, "gru_bahdanau_additive"),
                       (rnn_model, "lstm_luong_dot_feed_local")]:
        head, p, cases = make(name)
        head["cases"] = [dict(case, **summary(run(p, case, head["pad"]))) for case in cases]
        files[name + ".json"] = head
    files["toy.json"] = toy_model()
    return files


def compare(want, got, path="$"):
    """The committed golden against what the reference makes now, by golden_compare's rule."""
    failed = differences(got, want, where=path)
    assert not failed, "\n".join(failed[:20])


def main(check=False):
    os.makedirs(OUT, exist_ok=True)
    for name, obj in build().items():
        path = os.path.join(OUT, name)
        if check:
            with tempfile.TemporaryDirectory() as scratch:  # as written, so floats round as in the file
                tmp = os.path.join(scratch, name)
                write_json(tmp, obj)
                compare(json.load(open(path)), json.load(open(tmp)))
            print(f"{name}: matches")
        else:
            write_json(path, obj)
            print(f"wrote {path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
