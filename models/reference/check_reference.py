#!/usr/bin/env python3
"""Self-check of the reference implementation and the golden files (run with /usr/bin/python3).

For every tests/golden/<name>.json:
  * the model file loads through attnscope_ref.export.load_model (and matches the raw tensors);
  * tokenisation of each source sentence and the output text are reproduced;
  * re-running the incremental (KV-cached) greedy decode on the loaded model reproduces the JSON:
    the same tokens, and the logits and encoder output to GOLDEN_TOL (golden_compare.py: the
    goldens are float32 numbers of one machine, and another CPU's BLAS rounds differently);
  * an independent full-sequence, teacher-forced forward pass written here from the raw tensors
    (no code shared with model.py; heads handled with explicit loops, causal mask instead of a cache)
    reproduces the logits of every step and the other recorded values to GOLDEN_TOL, the same
    tokens (argmax) and exactly zero weight on masked positions;
  * the batched training path Transformer.forward (with padding masks) agrees too.
Plus the tokenizer goldens are re-tokenised, and for every RNN golden (tests/golden/rnn/) the
reference's greedy decode is re-run and its batched, padded training forward RNNSeq2Seq.forward
(packed encoder, masked attention) reproduces every step's logits.
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from attnscope_ref import safetensors_io  # noqa: E402
from attnscope_ref.export import load_model  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402
from golden_compare import GOLDEN_TOL  # noqa: E402

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tests", "golden")
MODELS = ["tiny_post_sin", "small_pre_learned", "deep_post_learned_f16", "deep_pre_sin_bpe"]


# ----------------------------------------------------------------------------- independent forward

def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def linear(x, T, name):
    return x @ T[name + ".weight"].t() + T[name + ".bias"]


def attention(T, name, xq, xkv, n_heads, causal):
    """Returns dict(q, k, v, attn [H, Tq, Tk], out) computed head by head."""
    q, k, v = linear(xq, T, name + ".q_proj"), linear(xkv, T, name + ".k_proj"), linear(xkv, T, name + ".v_proj")
    d = q.shape[-1]
    dh = d // n_heads
    tq, tk = q.shape[0], k.shape[0]
    ctx = torch.zeros(tq, d, dtype=q.dtype)
    attns = []
    for h in range(n_heads):
        cols = slice(h * dh, (h + 1) * dh)
        scores = (q[:, cols] @ k[:, cols].t()) / math.sqrt(dh)
        if causal:
            allowed = torch.arange(tk)[None, :] <= torch.arange(tq)[:, None]
            scores = torch.where(allowed, scores, torch.tensor(float("-inf"), dtype=q.dtype))
        a = torch.exp(scores - scores.max(-1, keepdim=True).values)
        a = a / a.sum(-1, keepdim=True)
        attns.append(a)
        ctx[:, cols] = a @ v[:, cols]
    return {"q": q, "k": k, "v": v, "attn": torch.stack(attns), "out": linear(ctx, T, name + ".out_proj")}


def activation(x, kind):
    if kind == "relu":
        return torch.clamp(x, min=0)
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


def sinusoid(n, d, dtype):
    pe = np.zeros((n, d))
    for p in range(n):
        for j in range(d):
            i2 = j - j % 2
            angle = p / 10000 ** (i2 / d)
            pe[p, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return torch.tensor(pe.astype(np.float32)).to(dtype)


def full_forward(T, c, src_ids, tgt_in, dtype=torch.float32):
    """Teacher-forced forward of one sentence pair straight from the tensor dict."""
    T = {k: v.to(dtype) for k, v in T.items()}
    d, H, eps = c["d_model"], c["n_heads"], c["layer_norm_eps"]
    pre = c["norm"] == "pre"
    src_emb = T["src_embed.weight"]
    tgt_emb = src_emb if c["shared_embeddings"] else T["tgt_embed.weight"]
    out_w = tgt_emb if c["tied_output"] else T["output.weight"]

    def positions(stack, n):
        if c["positions"] == "learned":
            return T[stack + ".pos_embed.weight"][:n]
        return sinusoid(n, d, dtype)

    def sub(x, name, f):
        if pre:
            return x + f(layer_norm(x, T[name + ".weight"], T[name + ".bias"], eps))
        return layer_norm(x + f(x), T[name + ".weight"], T[name + ".bias"], eps)

    rec = {"enc": [], "dec": []}
    s = len(src_ids)
    x = src_emb[torch.tensor(src_ids)] * c["embedding_scale"] + positions("encoder", s)
    for i in range(c["n_encoder_layers"]):
        p = f"encoder.layers.{i}"
        r = {}

        def sa(h):
            a = attention(T, p + ".self_attn", h, h, H, causal=False)
            r.update(q=a["q"], k=a["k"], v=a["v"], attn=a["attn"], attn_output=a["out"])
            return a["out"]

        def ff(h):
            r["ffn_hidden"] = activation(linear(h, T, p + ".ffn.fc1"), c["activation"])
            return linear(r["ffn_hidden"], T, p + ".ffn.fc2")

        x = sub(x, p + ".self_attn_norm", sa)
        x = sub(x, p + ".ffn_norm", ff)
        r["output"] = x
        rec["enc"].append(r)
    if pre:
        x = layer_norm(x, T["encoder.final_norm.weight"], T["encoder.final_norm.bias"], eps)
    memory = x
    rec["memory"] = memory

    t = len(tgt_in)
    y = tgt_emb[torch.tensor(tgt_in)] * c["embedding_scale"] + positions("decoder", t)
    for i in range(c["n_decoder_layers"]):
        p = f"decoder.layers.{i}"
        r = {}

        def sa(h):
            a = attention(T, p + ".self_attn", h, h, H, causal=True)
            r.update(self_q=a["q"], self_k=a["k"], self_v=a["v"], self_attn=a["attn"], self_attn_output=a["out"])
            return a["out"]

        def ca(h):
            a = attention(T, p + ".cross_attn", h, memory, H, causal=False)
            r.update(cross_q=a["q"], cross_attn=a["attn"], cross_attn_output=a["out"])
            return a["out"]

        def ff(h):
            r["ffn_hidden"] = activation(linear(h, T, p + ".ffn.fc1"), c["activation"])
            return linear(r["ffn_hidden"], T, p + ".ffn.fc2")

        y = sub(y, p + ".self_attn_norm", sa)
        y = sub(y, p + ".cross_attn_norm", ca)
        y = sub(y, p + ".ffn_norm", ff)
        r["output"] = y
        rec["dec"].append(r)
    if pre:
        y = layer_norm(y, T["decoder.final_norm.weight"], T["decoder.final_norm.bias"], eps)
    logits = y @ out_w.t() + T["output.bias"]
    return logits, rec


# ----------------------------------------------------------------------------- checks

class Checker:
    def __init__(self):
        self.failures = 0
        self.worst = {}

    def close(self, what, got, want, tol):
        # golden numbers are shortest decimal strings of float32 values: round them to float32
        # first (a plain double parse differs from the float32 by up to half an ulp)
        got = torch.as_tensor(np.asarray(got, dtype=np.float32).astype(np.float64))
        want = torch.as_tensor(np.asarray(want, dtype=np.float32).astype(np.float64))
        if got.shape != want.shape:
            self.fail(f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}")
            return
        err = float((got - want).abs().max()) if got.numel() else 0.0
        key = what.split(":")[0]
        self.worst[key] = max(self.worst.get(key, 0.0), err)
        if not err <= tol:
            self.fail(f"{what}: max abs diff {err:.3g} > {tol}")

    def equal(self, what, got, want):
        if got != want:
            self.fail(f"{what}: {got!r} != {want!r}")

    def fail(self, msg):
        self.failures += 1
        print("FAIL", msg)


def check_model(ck, name):
    g = json.load(open(os.path.join(GOLDEN, name + ".json"), encoding="utf-8"))
    path = os.path.join(GOLDEN, g["model"])
    model, config, tok_spec, src_vocab, tgt_vocab = load_model(path)
    raw, meta = safetensors_io.load(path)
    want_dtype = torch.float16 if name.endswith("f16") else torch.float32
    for k, v in raw.items():
        ck.equal(f"{name} dtype of {k}", v.dtype, want_dtype)
    sd = model.state_dict()
    ck.equal(f"{name} tensor names", sorted(sd), sorted(raw))
    for k in raw:
        ck.equal(f"{name} {k} bits", bool(torch.equal(sd[k], raw[k].float())), True)
    ck.equal(f"{name} config", config, g["config"])
    T = {k: v.float() for k, v in raw.items()}
    c = config
    eos, bos = c["special_tokens"]["eos"], c["special_tokens"]["bos"]
    src_tok = Tokenizer(tok_spec, src_vocab, c["special_tokens"]["unk"])
    tgt_tok = Tokenizer(tok_spec, tgt_vocab, c["special_tokens"]["unk"])

    batch_src, batch_tgt, batch_logits = [], [], []
    for ci, case in enumerate(g["cases"]):
        tag = f"{name}[{ci}]"
        pieces, ids, unknown = src_tok.encode_source(case["source"], c["src_append_eos"], eos)
        ck.equal(f"{tag} src_tokens", pieces, case["src_tokens"])
        ck.equal(f"{tag} src_ids", ids, case["src_ids"])
        ck.equal(f"{tag} unknown_words", unknown, case["unknown_words"])
        out = case["output_ids"]
        ck.equal(f"{tag} output_text", tgt_tok.decode(out[:-1] if out and out[-1] == eos else out), case["output_text"])
        steps = case["steps"]
        ck.equal(f"{tag} n_steps", len(steps), len(out))
        ended = bool(out) and out[-1] == eos
        ck.equal(f"{tag} stop rule", ended or len(out) == min(case["max_steps"], c["max_positions"] - 1), True)

        # 1) incremental decode of the loaded model reproduces the JSON
        tr = model.greedy_decode(ids, case["max_steps"])
        ck.equal(f"{tag} greedy output_ids", tr["output_ids"], out)
        for t, st in enumerate(tr["steps"][:len(steps)]):
            ck.close(f"incremental logits: {tag} step {t}", st["logits"].numpy(), steps[t]["logits"], GOLDEN_TOL)
        ck.close(f"incremental encoder output: {tag}", tr["encoder"]["output"].numpy(), case["encoder"]["output"],
                 GOLDEN_TOL)

        # 2) independent full-sequence teacher-forced forward
        tgt_in = [bos] + out[:-1] if out else [bos]
        ck.equal(f"{tag} input_ids", [s["input_id"] for s in steps], tgt_in[:len(steps)])
        logits, rec = full_forward(T, c, ids, tgt_in)
        enc = case["encoder"]
        ck.close(f"enc embedding: {tag}", T["src_embed.weight"][torch.tensor(ids)] * c["embedding_scale"], enc["embedding"], GOLDEN_TOL)
        ck.close(f"enc self_attn: {tag}", torch.stack([r["attn"] for r in rec["enc"]]), enc["self_attn"], GOLDEN_TOL)
        for li, r in enumerate(rec["enc"]):
            for key in ("q", "k", "v", "attn_output", "ffn_hidden", "output"):
                ck.close(f"enc {key}: {tag} layer {li}", r[key], enc["layers"][li][key], GOLDEN_TOL)
        ck.close(f"enc output: {tag}", rec["memory"], enc["output"], GOLDEN_TOL)
        ck.close(f"enc positional+embedding: {tag}",
                 np.asarray(enc["embedding"]) + np.asarray(enc["positional"]),
                 (T["src_embed.weight"][torch.tensor(ids)] * c["embedding_scale"]).numpy()
                 + (T["encoder.pos_embed.weight"][:len(ids)].numpy() if c["positions"] == "learned"
                    else sinusoid(len(ids), c["d_model"], torch.float32).numpy()), GOLDEN_TOL)
        for t, st in enumerate(steps):
            ck.close(f"full-sequence logits: {tag} step {t}", logits[t], st["logits"], GOLDEN_TOL)
            lp = torch.log_softmax(torch.tensor(st["logits"]), -1)
            ck.close(f"log_probs: {tag} step {t}", lp, st["log_probs"], GOLDEN_TOL)
            lg = np.asarray(st["logits"], dtype=np.float32)
            ck.equal(f"{tag} step {t} argmax", int(np.flatnonzero(lg == lg.max())[0]), st["output_id"])
            ck.equal(f"{tag} step {t} output_id", st["output_id"], out[t])
            ck.close(f"dec self_attn: {tag} step {t}",
                     torch.stack([r["self_attn"][:, t, :t + 1] for r in rec["dec"]]), st["self_attn"], GOLDEN_TOL)
            ck.close(f"dec self_attn masked part: {tag} step {t}",
                     torch.stack([r["self_attn"][:, t, t + 1:] for r in rec["dec"]]),
                     np.zeros((c["n_decoder_layers"], c["n_heads"], len(tgt_in) - t - 1)), 0.0)
            ck.close(f"dec cross_attn: {tag} step {t}",
                     torch.stack([r["cross_attn"][:, t, :] for r in rec["dec"]]), st["cross_attn"], GOLDEN_TOL)
            for li, r in enumerate(rec["dec"]):
                for key in ("self_q", "self_k", "self_v", "self_attn_output", "cross_q", "cross_attn_output",
                            "ffn_hidden", "output"):
                    ck.close(f"dec {key}: {tag} step {t} layer {li}", r[key][t], st["layers"][li][key], GOLDEN_TOL)
        # float64 version of the same forward: how far float32 is from "exact" (informational)
        logits64, _ = full_forward(T, c, ids, tgt_in, dtype=torch.float64)
        key = "info float64-vs-golden logits"
        ck.worst[key] = max(ck.worst.get(key, 0.0),
                            float((logits64[:len(steps)] - torch.tensor([s["logits"] for s in steps],
                                                                         dtype=torch.float64)).abs().max()))
        batch_src.append(ids)
        batch_tgt.append(tgt_in)
        batch_logits.append([s["logits"] for s in steps])

    # 3) the batched, padded training path of model.py
    pad = c["special_tokens"]["pad"]
    S = max(map(len, batch_src))
    Tt = max(map(len, batch_tgt))
    src = torch.tensor([s + [pad] * (S - len(s)) for s in batch_src])
    tgt = torch.tensor([s + [pad] * (Tt - len(s)) for s in batch_tgt])
    with torch.no_grad():
        lg = model(src, tgt)
    for ci, want in enumerate(batch_logits):
        ck.close(f"batched training forward logits: {name}[{ci}]", lg[ci, :len(want)], want, GOLDEN_TOL)


def check_rnn(ck, name):
    g = json.load(open(os.path.join(GOLDEN, "rnn", name + ".json"), encoding="utf-8"))
    model = load_model(os.path.join(GOLDEN, "rnn", g["model"]))[0]
    pad, bos = model.special("pad"), model.special("bos")
    srcs, tgts = [], []
    for ci, case in enumerate(g["cases"]):
        decoded = model.greedy_decode(case["src_ids"], case["max_steps"])
        steps = decoded["steps"]
        ck.equal(f"rnn greedy output_ids: {name}[{ci}]", decoded["output_ids"], case["output_ids"])
        ck.close(f"rnn greedy logits: {name}[{ci}]", torch.stack([s["logits"] for s in steps]),
                 [s["logits"] for s in case["steps"]], GOLDEN_TOL)
        srcs.append(case["src_ids"])
        tgts.append([bos] + case["output_ids"][:-1])
    # Padded: the sentences differ in length, so one of them is followed by <pad> on each side.
    S, T = max(map(len, srcs)), max(map(len, tgts)) + 1
    src = torch.tensor([s + [pad] * (S - len(s)) for s in srcs])
    tgt = torch.tensor([t + [pad] * (T - len(t)) for t in tgts])
    with torch.no_grad():
        lg = model(src, tgt)
    for ci, case in enumerate(g["cases"]):
        want = [s["logits"] for s in case["steps"]]
        ck.close(f"rnn batched training forward logits: {name}[{ci}]", lg[ci, :len(want)], want, GOLDEN_TOL)


def check_tokenizers(ck):
    for name in ("tokenizer_word", "tokenizer_bpe"):
        g = json.load(open(os.path.join(GOLDEN, name + ".json"), encoding="utf-8"))
        tok = Tokenizer(g["tokenizer"], g["vocab"])
        for i, case in enumerate(g["cases"]):
            pieces, ids, unknown = tok.encode(case["text"])
            ck.equal(f"{name}[{i}] pieces", pieces, case["pieces"])
            ck.equal(f"{name}[{i}] ids", ids, case["ids"])
            ck.equal(f"{name}[{i}] unknown", unknown, case["unknown"])
            ck.equal(f"{name}[{i}] detok", tok.decode(ids), case["detok"])


def main():
    torch.set_num_threads(2)
    ck = Checker()
    for name in MODELS:
        check_model(ck, name)
    for f in sorted(os.listdir(os.path.join(GOLDEN, "rnn"))):
        if f.endswith(".json"):
            check_rnn(ck, f[:-len(".json")])
    check_tokenizers(ck)
    for k in sorted(ck.worst):
        print(f"  max abs diff {ck.worst[k]:.3g}  {k}")
    if ck.failures:
        print(f"{ck.failures} check(s) FAILED")
        return 1
    print(f"all reference checks passed (numbers within {GOLDEN_TOL:g} of the goldens, tokens exact)")
    return 0


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    sys.exit(main())
