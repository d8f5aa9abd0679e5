#!/usr/bin/env python3
"""Checks models/convert/hf_bert.py through convert_hf.py (run with /usr/bin/python3; npm test runs it when torch imports).

Builds randomly initialised BERTs directly in the Hugging Face key layout (BertForPreTraining:
bert.embeddings.*, bert.encoder.layer.N.attention.self.query.weight, ..., bert.pooler.dense.*,
cls.predictions.*, cls.seq_relationship.*, the position_ids buffer), runs them with a forward pass
written here against those names (independent of the converter's mapping and of
models/reference/attnscope_ref/bert.py), saves each as model.safetensors or pytorch_model.bin with config.json,
vocab.txt and tokenizer_config.json, converts it, and compares every output of the converted file
run by the reference (hidden states of every layer, attention, pooled vector, MLM logits) at
<= 1e-4. Also: bad checkpoints fail with a message. Exits non-zero on any failure.
"""

import argparse
import json
import math
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "reference")]

import convert_hf  # noqa: E402
from refusal_check import expect_refusal  # noqa: E402
from attnscope_ref import bert, safetensors_io  # noqa: E402

VOCAB = bert.SPECIALS + ["a", "man", "is", "riding", "horse", "bike", ".", "##s", "the", "dog"]
SENTENCES = [[2, 5, 6, 7, 8, 5, 4, 11, 3], [2, 13, 14, 3, 5, 9, 12, 3]]


def hf_state(c, vocab_size, seed, old_names=False):
    g = torch.Generator().manual_seed(seed)
    d, ff = c["hidden_size"], c["intermediate_size"]

    def r(*shape, scale=1.0):
        return scale * torch.randn(*shape, generator=g)

    ln_w, ln_b = ("gamma", "beta") if old_names else ("weight", "bias")
    s = {
        "bert.embeddings.word_embeddings.weight": r(vocab_size, d),
        "bert.embeddings.position_embeddings.weight": r(c["max_position_embeddings"], d),
        "bert.embeddings.token_type_embeddings.weight": r(c["type_vocab_size"], d),
        f"bert.embeddings.LayerNorm.{ln_w}": 1 + r(d, scale=0.1), f"bert.embeddings.LayerNorm.{ln_b}": r(d, scale=0.1),
        "bert.embeddings.position_ids": torch.arange(c["max_position_embeddings"]).unsqueeze(0),
    }
    for n in range(c["num_hidden_layers"]):
        p = f"bert.encoder.layer.{n}."
        for name, shape in (("attention.self.query", (d, d)), ("attention.self.key", (d, d)),
                            ("attention.self.value", (d, d)), ("attention.output.dense", (d, d)),
                            ("intermediate.dense", (ff, d)), ("output.dense", (d, ff))):
            s[p + name + ".weight"] = r(*shape, scale=1.5 / math.sqrt(shape[1]))
            s[p + name + ".bias"] = r(shape[0], scale=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            s[f"{p}{name}.{ln_w}"] = 1 + r(d, scale=0.1)
            s[f"{p}{name}.{ln_b}"] = r(d, scale=0.1)
    s["bert.pooler.dense.weight"], s["bert.pooler.dense.bias"] = r(d, d, scale=1 / math.sqrt(d)), r(d, scale=0.1)
    s["cls.predictions.transform.dense.weight"] = r(d, d, scale=1 / math.sqrt(d))
    s["cls.predictions.transform.dense.bias"] = r(d, scale=0.1)
    s[f"cls.predictions.transform.LayerNorm.{ln_w}"] = 1 + r(d, scale=0.1)
    s[f"cls.predictions.transform.LayerNorm.{ln_b}"] = r(d, scale=0.1)
    s["cls.predictions.bias"] = r(vocab_size, scale=0.5)
    s["cls.predictions.decoder.weight"] = s["bert.embeddings.word_embeddings.weight"]
    s["cls.predictions.decoder.bias"] = s["cls.predictions.bias"]
    s["cls.seq_relationship.weight"], s["cls.seq_relationship.bias"] = r(2, d), r(2)
    return s


def hf_forward(s, c, ids, segments):
    """BertForPreTraining's forward pass for one sequence, from the Hugging Face names."""
    def ln(x, p):
        w = s.get(p + ".weight", s.get(p + ".gamma"))
        b = s.get(p + ".bias", s.get(p + ".beta"))
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), w, b, c["layer_norm_eps"])

    def dense(x, p):
        return x @ s[p + ".weight"].T + s[p + ".bias"]

    def gelu(x):
        return x * 0.5 * (1.0 + torch.erf(x / math.sqrt(2.0)))

    T, H = len(ids), c["num_attention_heads"]
    e = s["bert.embeddings.word_embeddings.weight"][ids] + s["bert.embeddings.position_embeddings.weight"][:T] + \
        s["bert.embeddings.token_type_embeddings.weight"][segments]
    x = ln(e, "bert.embeddings.LayerNorm")
    states, attns = [x], []
    for n in range(c["num_hidden_layers"]):
        p = f"bert.encoder.layer.{n}."
        q, k, v = (dense(x, p + "attention.self." + w).view(T, H, -1).transpose(0, 1) for w in ("query", "key", "value"))
        a = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(q.shape[-1]), dim=-1)
        ctx = (a @ v).transpose(0, 1).reshape(T, -1)
        x = ln(x + dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        x = ln(x + dense(gelu(dense(x, p + "intermediate.dense")), p + "output.dense"), p + "output.LayerNorm")
        states.append(x)
        attns.append(a)
    pooled = torch.tanh(dense(x[:1], "bert.pooler.dense"))
    h = ln(gelu(dense(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
    logits = h @ s["cls.predictions.decoder.weight"].T + s["cls.predictions.bias"]
    return {"hidden_states": states, "attention": torch.stack(attns), "pooled": pooled, "logits": logits}


def write_folder(folder, c, state, fmt, lowercase=True, vocab=VOCAB):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(c, f)
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(vocab) + "\n")
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump({"do_lower_case": lowercase}, f)
    if fmt == "bin":
        torch.save(state, os.path.join(folder, "pytorch_model.bin"))
    else:
        # safetensors holds floats only: the integer position_ids buffer stays out, as HF's own
        # safetensors exports of BERT leave it out.
        safetensors_io.save(os.path.join(folder, "model.safetensors"),
                            {k: v for k, v in state.items() if v.is_floating_point()})


def compare(name, want, got, failures):
    diff = (want - got).abs().max().item()
    ok = want.shape == got.shape and not torch.isnan(got).any() and diff <= 1e-4
    print(f"  {name:28s} max abs diff {diff:.2e} {'ok' if ok else 'FAIL'}")
    if not ok:
        failures.append(name)


def check_conversion(tmp, tag, c, fmt, old_names, failures):
    print(f"{tag}: {c['num_hidden_layers']} layers x {c['num_attention_heads']} heads x {c['hidden_size']}, {fmt}"
          + (", gamma/beta names" if old_names else ""))
    state = hf_state(c, len(VOCAB), seed=len(tag), old_names=old_names)
    folder = os.path.join(tmp, tag)
    write_folder(folder, c, state, fmt, lowercase=not old_names)
    out = os.path.join(tmp, tag + ".safetensors")
    convert_hf.convert(folder, out)
    model, config, spec, vocab = bert.load(out)
    if vocab != VOCAB or spec["lowercase"] != (not old_names) or not config["pooler"]:
        failures.append(tag + " metadata")
    for ids in SENTENCES:
        ours = model(ids)
        ref = hf_forward(state, c, ids, ours["segments"])
        compare(f"segments {ours['segments']}", torch.tensor([0] * 4 + [1] * 4 if len(ids) == 8 else [0] * 9),
                torch.tensor(ours["segments"]), failures)
        for n, (a, b) in enumerate(zip(ref["hidden_states"], ours["hidden_states"])):
            compare(f"hidden state {n}", a, b, failures)
        compare("attention", ref["attention"], ours["attention"], failures)
        compare("pooled", ref["pooled"], ours["pooled"].unsqueeze(0), failures)
        compare("MLM logits", ref["logits"], ours["logits"], failures)


def check_refusals(tmp, c, failures):
    def expect_error(tag, edit, words):
        state = hf_state(c, len(VOCAB), seed=1)
        cfg = dict(c)
        edit(state, cfg)
        folder = os.path.join(tmp, tag)
        write_folder(folder, cfg, state, "bin")
        expect_refusal(convert_hf.convert, folder, tag, words, failures)

    expect_error("untied_decoder", lambda s, _: s.__setitem__("cls.predictions.decoder.weight",
                                                               torch.zeros_like(s["cls.predictions.decoder.weight"])),
                 ["ties"])
    expect_error("stray_tensor", lambda s, _: s.__setitem__("bert.encoder.layer.0.extra.weight", torch.zeros(2)),
                 ["unexpected tensor", "extra"])
    expect_error("gelu_new", lambda _, cfg: cfg.__setitem__("hidden_act", "gelu_new"), ["gelu_new"])
    expect_error("no_mlm_head", lambda s, _: [s.pop(k) for k in list(s) if k.startswith("cls.predictions")],
                 ["masked-LM head"])
    expect_error("missing_layer", lambda s, _: s.pop("bert.encoder.layer.1.output.dense.weight"),
                 ["missing tensors", "layers.1.ffn.fc2.weight"])


def main():
    torch.set_num_threads(1)
    base = {"hidden_size": 16, "num_attention_heads": 4, "intermediate_size": 24, "num_hidden_layers": 2,
            "type_vocab_size": 2, "max_position_embeddings": 20, "layer_norm_eps": 1e-12, "hidden_act": "gelu",
            "vocab_size": len(VOCAB), "model_type": "bert"}
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        check_conversion(tmp, "bin", base, "bin", False, failures)
        check_conversion(tmp, "safetensors_3layers", dict(base, num_hidden_layers=3, num_attention_heads=2,
                                                          layer_norm_eps=1e-5), "safetensors", False, failures)
        check_conversion(tmp, "bin_gamma_beta", base, "bin", True, failures)
        check_refusals(tmp, base, failures)
    if failures:
        print(f"FAILED: {failures}")
        sys.exit(1)
    print("convert_hf (bert): every output within 1e-4, every bad checkpoint refused")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
