#!/usr/bin/env python3
"""Write tests/golden/induction/scores.json: the induction scores (src/analysis/induction.h) of the
decoder-only goldens' models (tests/golden/decoder_only/), from gpt.py's full forward and numpy,
never from the engine (run with /usr/bin/python3).

    /usr/bin/python3 models/goldens/make_induction_goldens.py           # write
    /usr/bin/python3 models/goldens/make_induction_goldens.py --check   # recompute, compare, write nothing

Per model, on fixed probes (a sequence of distinct word tokens, then the same again):
  prefix_matching [L][H]  the mean over the probes of the mean over the repeated half's queries q
                          of the attention from q to the keys k whose previous token is q's token;
  previous_token [L][H]   the mean over the probes of the mean over the queries q >= 1 of the
                          attention from q to q - 1;
  copying [L][H]          Σ Re λ / Σ |λ| over the eigenvalues of the full OV circuit
                          M = (E·scale) W_V^hᵀ W_O^hᵀ Uᵀ on the given tokens (V' x V', np.linalg.eigvals);
  loss_first_half, loss_repeated_half
                          the mean next-token cross-entropy over the first half's tokens 2..n (the first,
                          predicted from <bos> alone, is left out as the engine's prompt step does) and
                          over the repeated half, pooled over the probes;
  attention               the first probe's [L][H][T][T].
"""

import argparse
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref import gpt  # noqa: E402
from make_decoder_only_goldens import compare  # noqa: E402
from make_goldens import write_json  # noqa: E402

ROOT = os.path.dirname(MODELS)
MODEL_DIR = os.path.join(ROOT, "tests", "golden", "decoder_only")
OUT = os.path.join(ROOT, "tests", "golden", "induction")
NAMES = ["pre_learned_gelu_tanh", "post_sin_relu_untied", "attention_only_gelu"]
HALVES = [[4, 9, 13, 6, 16], [17, 5, 11, 8, 12], [7, 10, 14, 15, 4]]
PROBES = [h + h for h in HALVES]
TOKENS = list(range(4, 18))  # the word tokens of the goldens' 18-entry vocabulary


def scores(model, config):
    bos = config["special_tokens"]["bos"]
    L, H, d = config["n_layers"], config["n_heads"], config["d_model"]
    dh = d // H
    prefix = np.zeros((L, H))
    previous = np.zeros((L, H))
    first, repeated = [], []
    attention0 = None
    for p, probe in enumerate(PROBES):
        ctx = [bos] + probe
        T, n = len(ctx), len(probe) // 2
        with torch.no_grad():
            out = model(ctx)
        attn = out["attention"].double().numpy()  # [L, H, T, T]
        if p == 0:
            attention0 = attn
        for q in range(n + 1, T):
            keys = [k for k in range(1, q + 1) if ctx[k - 1] == ctx[q]]
            prefix += attn[:, :, q, keys].sum(axis=-1) / (T - n - 1) / len(PROBES)
        previous += np.stack([attn[:, :, q, q - 1] for q in range(1, T)], axis=-1).mean(axis=-1) / len(PROBES)
        log_probs = torch.log_softmax(out["logits"].double(), dim=-1).numpy()
        for pos in range(1, T - 1):  # logits at pos predict ctx[pos + 1]
            (first if pos + 1 <= n else repeated).append(-log_probs[pos, ctx[pos + 1]])
    sd = {k: v.double().numpy() for k, v in model.state_dict().items()}
    E = sd["embed.token.weight"][TOKENS] * config["embedding_scale"]
    U = (sd["embed.token.weight"] if config["tied_output"] else sd["output.weight"])[TOKENS]
    copying = np.zeros((L, H))
    for layer in range(L):
        wv, wo = sd[f"layers.{layer}.self_attn.v_proj.weight"], sd[f"layers.{layer}.self_attn.out_proj.weight"]
        for h in range(H):
            M = E @ wv[h * dh:(h + 1) * dh].T @ wo[:, h * dh:(h + 1) * dh].T @ U.T
            lam = np.linalg.eigvals(M)
            copying[layer, h] = lam.real.sum() / np.abs(lam).sum()
    return {"prefix_matching": prefix.tolist(), "previous_token": previous.tolist(), "copying": copying.tolist(),
            "loss_first_half": float(np.mean(first)), "loss_repeated_half": float(np.mean(repeated)),
            "attention": attention0.tolist()}


def goldens():
    out = {"probes": PROBES, "tokens": TOKENS, "models": {}}
    for name in NAMES:
        model, config, _spec, _vocab = gpt.load(os.path.join(MODEL_DIR, name + ".safetensors"))
        out["models"][name] = scores(model, config)
    return out


def main(checking=False):
    import json

    torch.set_num_threads(1)
    made = json.loads(json.dumps(goldens()))
    path = os.path.join(OUT, "scores.json")
    if checking:
        failures = []
        with open(path, encoding="utf-8") as f:
            compare(made, json.load(f), "induction", failures.append)
        for f in failures[:20]:
            print("FAIL", f)
        print(f"induction goldens: {len(made['models'])} models, {len(failures)} failures")
        sys.exit(1 if failures else 0)
    os.makedirs(OUT, exist_ok=True)
    write_json(path, made)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
