#!/usr/bin/env python3
"""Write the logit lens goldens under tests/golden/logit_lens/ (deterministic; run with
/usr/bin/python3).

    /usr/bin/python3 models/goldens/make_logit_lens_goldens.py           # write
    /usr/bin/python3 models/goldens/make_logit_lens_goldens.py --check   # recompute, compare, write nothing

The logit lens (nostalgebraist 2020): the residual stream after each decoder layer, sent
straight through the model's readout (the final norm of a pre-norm model, none in a post-norm
one, then the output projection and bias). For committed golden models (a pre-norm and a
post-norm transformer of tests/golden/, a pre-norm and a post-norm decoder-only model of
tests/golden/decoder_only/), a source or prompt and a forced continuation, one teacher-forced
full forward of the PyTorch reference (attnscope_ref.model / attnscope_ref.gpt) gives every
step's residuals; per step and layer the file holds the top-k tokens with their probabilities
and the probability and rank (1 + the tokens strictly more probable) of the forced token.

<name>.json: {"model": path under tests/golden, "top_k": K, "layers": L,
              "cases": [{"source", "source_ids", "forced", "steps": [
                  {"token", "layers": [{"top_ids": [K], "top_probs": [K], "chosen_prob", "chosen_rank"}]}]}]}
The generator checks that the last layer reads (within 1e-5) the model's own logits give, and
that no top-k order or rank hangs on a logit gap smaller than MARGIN (an engine's logits differ
from the reference's by about 1e-5, so it sees the same order).
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref import export, gpt  # noqa: E402
from attnscope_ref import tokenizer as tk  # noqa: E402
from make_decoder_only_goldens import compare  # noqa: E402
from make_goldens import _dump  # noqa: E402

ROOT = os.path.dirname(MODELS)
GOLDEN = os.path.join(ROOT, "tests", "golden")
OUT = os.path.join(GOLDEN, "logit_lens")
TOP_K = 3
MARGIN = 1e-4

# (golden model, [(source or prompt, forced continuation)]): continuations the models would not
# all choose themselves, so the chosen token's rank varies across layers.
TRANSFORMERS = [
    ("small_pre_learned.safetensors", [("i can eat apple", "ich konnen apfel essen </s>"),
                                       ("we want to drink beer", "wir mochten bier trinken")]),
    ("deep_post_learned_f16.safetensors", [("i can eat apple", "ich konnen apfel essen </s>"),
                                           ("we want to drink beer", "wir mochten bier trinken")]),
]
DECODER_ONLY = [
    ("decoder_only/pre_learned_gelu_tanh.safetensors", [("i want to", "eat bread </s>"),
                                                        ("we can", "read newspaper")]),
    ("decoder_only/post_sin_relu_untied.safetensors", [("i want to", "eat bread </s>"),
                                                       ("we can", "read newspaper")]),
]


def lens_layer(logits, chosen, where):
    """One layer's reading of one step: logits [V] -> the golden's layer object."""
    probs = torch.softmax(logits, dim=-1)
    order = sorted(range(len(logits)), key=lambda i: (-float(logits[i]), i))
    top = order[:TOP_K]
    for a, b in zip(order[:TOP_K], order[1:TOP_K + 1]):
        if float(logits[a] - logits[b]) < MARGIN:
            raise ValueError(f"{where}: top-{TOP_K} order hangs on a logit gap below {MARGIN}")
    gaps = (logits - logits[chosen]).abs()
    gaps[chosen] = float("inf")
    if float(gaps.min()) < MARGIN:
        raise ValueError(f"{where}: the chosen token's rank hangs on a logit gap below {MARGIN}")
    return {"top_ids": top, "top_probs": probs[top], "chosen_prob": probs[chosen],
            "chosen_rank": 1 + int((logits > logits[chosen]).sum())}


def lens_steps(per_layer_logits, logits, forced, where):
    """per_layer_logits [L, T, V] over the T predicting positions, logits [T, V] the model's own."""
    if float((per_layer_logits[-1] - logits).abs().max()) > 1e-5:
        raise ValueError(f"{where}: the last layer's lens is not the model's own logits")
    return [{"token": t, "layers": [lens_layer(layer[s], t, f"{where} step {s} layer {l}")
                                    for l, layer in enumerate(per_layer_logits)]}
            for s, t in enumerate(forced)]


def transformer_case(model, tokenizer_spec, src_vocab, tgt_vocab, source, continuation, where):
    c = model.config
    _, source_ids, unknown = tk.Tokenizer(tokenizer_spec, src_vocab).encode_source(source, c["src_append_eos"], c["special_tokens"]["eos"])
    forced = [tgt_vocab.index(w) for w in continuation.split()]
    if unknown:
        raise ValueError(f"{where}: unknown source words {unknown}")
    tgt_in = torch.tensor([[c["special_tokens"]["bos"]] + forced[:-1]])
    with torch.no_grad():
        memory = model.encode(torch.tensor([source_ids]))
        t = tgt_in.shape[1]
        y = model.target_embedding(tgt_in) * c["embedding_scale"] + model.decoder.positional(0, t)
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)[None, None]
        per_layer = []
        for layer in model.decoder.layers:
            y = layer(y, memory, self_mask=causal)
            per_layer.append(model.logits(model.decoder.finish(y))[0])
        logits = model.decode(tgt_in, memory)[0]
    return {"source": source, "source_ids": source_ids, "forced": forced,
            "steps": lens_steps(torch.stack(per_layer), logits, forced, where)}


def decoder_only_case(model, tokenizer_spec, vocab, prompt, continuation, where):
    specials = model.config["special_tokens"]
    _, prompt_ids, unknown = tk.Tokenizer(tokenizer_spec, vocab).encode(prompt)
    forced = [vocab.index(w) for w in continuation.split()]
    if unknown:
        raise ValueError(f"{where}: unknown prompt words {unknown}")
    with torch.no_grad():
        out = model([specials["bos"]] + prompt_ids + forced[:-1])
        first = len(prompt_ids)  # the position that predicts the first continuation token
        per_layer = torch.stack([model.logits(h[first:]) for h in out["hidden_states"][1:]])
        logits = out["logits"][first:]
    return {"source": prompt, "source_ids": prompt_ids, "forced": forced,
            "steps": lens_steps(per_layer, logits, forced, where)}


def goldens():
    """-> {file name: json text}"""
    out = {}
    for path, cases in TRANSFORMERS:
        model, _config, spec, src_vocab, tgt_vocab = export.load_model(os.path.join(GOLDEN, path))
        made = [transformer_case(model, spec, src_vocab, tgt_vocab, s, f, path) for s, f in cases]
        out[os.path.basename(path).replace(".safetensors", ".json")] = {
            "model": path, "top_k": TOP_K, "layers": len(model.decoder.layers), "cases": made}
    for path, cases in DECODER_ONLY:
        model, _config, spec, vocab = gpt.load(os.path.join(GOLDEN, path))
        made = [decoder_only_case(model, spec, vocab, s, f, path) for s, f in cases]
        out["decoder_only_" + os.path.basename(path).replace(".safetensors", ".json")] = {
            "model": path, "top_k": TOP_K, "layers": len(model.layers), "cases": made}
    return {name: _dump(golden) + "\n" for name, golden in out.items()}


def main(check=False):
    torch.set_num_threads(1)
    made = goldens()
    if check:
        # Another CPU's float32 may differ in the last bits: numbers within compare's tolerance,
        # ids and ranks exactly.
        failures = []
        for name, text in made.items():
            with open(os.path.join(OUT, name), encoding="utf-8") as f:
                compare(json.loads(text), json.load(f), name, failures.append)
        for f in failures[:20]:
            print("FAIL", f)
        print(f"logit lens goldens: {len(made)} files, {len(failures)} failures")
        sys.exit(1 if failures else 0)
    os.makedirs(OUT, exist_ok=True)
    for name, text in made.items():
        with open(os.path.join(OUT, name), "w", encoding="utf-8") as f:
            f.write(text)
        print(f"{name:44s} {len(text.encode()):7d} B")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
