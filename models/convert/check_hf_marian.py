#!/usr/bin/env python3
"""Checks of the Marian converter (models/convert/hf_marian.py), run by tests/run.sh with
/usr/bin/python3:

  * each committed snapshot tests/data/hf/opus-mt-*-tiny converts again to exactly the committed
    tests/golden/hf/<name>.safetensors (tensors bit for bit, metadata equal);
  * the converted tensors are the snapshot's own (an independent name map written here), the same
    snapshot as pytorch_model.bin with its tied copies gives the same file, and --f16 stores
    binary16 within its rounding;
  * every bad snapshot is refused with a ValueError naming the file and the field: a missing file,
    another model_type, separate vocabularies, normalize_before, an unknown activation, a vocabulary
    that does not match the embedding matrix, interleaved positions, untied lm_head, multi-token
    bad_words_ids, sampling, a truncated safetensors file.
"""

import argparse
import json
import os
import shutil
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "models", "reference"))

import convert_hf  # noqa: E402
from refusal_check import expect_refusal  # noqa: E402
from attnscope_ref import safetensors_io  # noqa: E402

SNAPSHOTS = ["opus-mt-en-de-tiny", "opus-mt-mul-en-tiny"]


def snapshot(name):
    return os.path.join(ROOT, "tests", "data", "hf", name)


def hf_tensors(folder):
    """The snapshot's model.safetensors, read here with the reference's reader (F32 only)."""
    tensors, _ = safetensors_io.load(os.path.join(folder, "model.safetensors"))
    return tensors


def check_reconversion(tmp, name, failures):
    out = os.path.join(tmp, name + ".safetensors")
    convert_hf.convert(snapshot(name), out)
    committed = os.path.join(ROOT, "tests", "golden", "hf", name + ".safetensors")
    with open(out, "rb") as a, open(committed, "rb") as b:
        same = a.read() == b.read()
    print(f"  {name}: re-converted file {'equals' if same else 'DIFFERS from'} the committed one")
    if not same:
        failures.append(name + " re-conversion")
    # The tensors are the snapshot's, by an independent reading of the names.
    ours, meta = safetensors_io.load(out)
    hf = hf_tensors(snapshot(name))
    parts = {"self_attn_layer_norm": "self_attn_norm", "encoder_attn_layer_norm": "cross_attn_norm",
             "encoder_attn": "cross_attn", "final_layer_norm": "ffn_norm", "fc1": "ffn.fc1", "fc2": "ffn.fc2"}
    want = {"src_embed.weight": hf["model.shared.weight"], "output.bias": hf["final_logits_bias"][0]}
    for key, t in hf.items():
        if ".layers." in key:
            side, rest = key[len("model."):].split(".layers.")
            layer, part, tail = rest.split(".", 2)
            want[f"{side}.layers.{layer}.{parts.get(part, part)}.{tail}"] = t
    if sorted(want) != sorted(ours) or any(not torch.equal(want[k], ours[k]) for k in want):
        failures.append(name + " tensors")
        print(f"  {name}: tensors differ from the snapshot's FAIL")
    config = json.loads(meta["config"])
    hf_config = json.load(open(os.path.join(snapshot(name), "config.json")))
    expected = {"positions": "sinusoidal_halves", "activation": "swish", "norm": "post",
                "suppress_tokens": [hf_config["pad_token_id"]],
                "special_tokens": {"pad": hf_config["pad_token_id"], "unk": 1, "bos": hf_config["decoder_start_token_id"],
                                   "eos": hf_config["eos_token_id"]}}
    for k, v in expected.items():
        if config.get(k) != v:
            failures.append(f"{name} config {k}")
            print(f"  {name}: config {k} = {config.get(k)!r}, expected {v!r} FAIL")
    generation = json.loads(meta["generation"])
    if generation.get("max_length") != hf_config["max_length"] - 1 or generation.get("beam_size") != hf_config["num_beams"]:
        failures.append(f"{name} generation")
        print(f"  {name}: generation {generation} FAIL")
    # binary16 on request.
    half = os.path.join(tmp, name + ".f16.safetensors")
    convert_hf.convert(snapshot(name), half, dtype="F16")
    h, _ = safetensors_io.load(half)
    worst = max((h[k].float() - ours[k]).abs().max().item() for k in ours)
    dtypes = {t.dtype for t in h.values()}
    ok = dtypes == {torch.float16} and worst <= 2e-3
    print(f"  {name}: --f16 stores {sorted(str(d) for d in dtypes)}, max abs diff {worst:.2e} {'ok' if ok else 'FAIL'}")
    if not ok:
        failures.append(name + " f16")


def check_pytorch_bin(tmp, failures):
    """The same snapshot saved as pytorch_model.bin (torch.save of the state dict, with the tied
    copies real files hold) converts to the same file."""
    name = SNAPSHOTS[0]
    folder = os.path.join(tmp, name + "-bin")
    shutil.copytree(snapshot(name), folder)
    state = hf_tensors(folder)
    for tied in ("model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight", "lm_head.weight"):
        state[tied] = state["model.shared.weight"]
    torch.save(state, os.path.join(folder, "pytorch_model.bin"))
    os.remove(os.path.join(folder, "model.safetensors"))
    out = os.path.join(tmp, name + "-bin.safetensors")
    convert_hf.convert(folder, out, name=name)
    ours, _ = safetensors_io.load(out)
    want, _ = safetensors_io.load(os.path.join(ROOT, "tests", "golden", "hf", name + ".safetensors"))
    same = sorted(ours) == sorted(want) and all(torch.equal(ours[k], want[k]) for k in want)
    print(f"  {name} as pytorch_model.bin with tied copies: {'same tensors' if same else 'DIFFERENT tensors FAIL'}")
    if not same:
        failures.append(name + " pytorch_model.bin")


def check_refusals(tmp, failures):
    source = snapshot(SNAPSHOTS[0])

    def expect_error(tag, edit, words):
        folder = os.path.join(tmp, tag)
        shutil.copytree(source, folder)
        edit(folder)
        expect_refusal(convert_hf.convert, folder, tag, words, failures)

    def json_edit(file, change):
        def edit(folder):
            path = os.path.join(folder, file)
            value = json.load(open(path, encoding="utf-8"))
            change(value)
            json.dump(value, open(path, "w", encoding="utf-8"))
        return edit

    def tensors_edit(change):
        def edit(folder):
            path = os.path.join(folder, "model.safetensors")
            tensors, meta = safetensors_io.load(path)
            change(tensors)
            safetensors_io.save(path, tensors, meta)
        return edit

    def interleave(t):
        d = t["model.encoder.embed_positions.weight"].shape[1]
        pe = t["model.encoder.embed_positions.weight"]
        inter = torch.empty_like(pe)
        inter[:, 0::2], inter[:, 1::2] = pe[:, : d // 2], pe[:, d // 2:]
        t["model.encoder.embed_positions.weight"] = inter

    def truncate(folder):
        path = os.path.join(folder, "model.safetensors")
        data = open(path, "rb").read()
        open(path, "wb").write(data[: len(data) - 1000])

    def add_piece(folder):
        json_edit("vocab.json", lambda v: v.__setitem__("▁extra", len(v)))(folder)

    def add_piece_and_config(folder):
        add_piece(folder)
        json_edit("config.json", lambda c: c.update(vocab_size=c["vocab_size"] + 1,
                                                     decoder_vocab_size=c["vocab_size"] + 1))(folder)

    expect_error("missing_vocab", lambda f: os.remove(os.path.join(f, "vocab.json")), ["vocab.json", "not found"])
    expect_error("missing_target_spm", lambda f: os.remove(os.path.join(f, "target.spm")), ["target.spm", "not found"])
    expect_error("model_type", json_edit("config.json", lambda c: c.__setitem__("model_type", "bart")),
                 ["config.json", "model_type", "bart"])
    expect_error("separate_vocabs", json_edit("config.json", lambda c: c.__setitem__(
        "share_encoder_decoder_embeddings", False)), ["config.json", "share_encoder_decoder_embeddings"])
    expect_error("normalize_before", json_edit("config.json", lambda c: c.__setitem__("normalize_before", True)),
                 ["config.json", "normalize_before"])
    expect_error("activation", json_edit("config.json", lambda c: c.__setitem__("activation_function", "gelu_new")),
                 ["config.json", "activation_function", "gelu_new"])
    expect_error("vocab_vs_config", add_piece, ["config.json", "vocab_size", "vocab.json"])
    expect_error("vocab_vs_embeddings", add_piece_and_config, ["model.safetensors", "model.shared.weight", "vocab.json"])
    expect_error("interleaved_positions", tensors_edit(interleave),
                 ["model.safetensors", "model.encoder.embed_positions.weight", "sinusoid"])
    expect_error("untied_lm_head", tensors_edit(lambda t: t.__setitem__(
        "lm_head.weight", t["model.shared.weight"] + 1.0)), ["model.safetensors", "lm_head.weight", "tied"])
    expect_error("bad_words", json_edit("generation_config.json", lambda g: g.__setitem__(
        "bad_words_ids", [[3, 4]])), ["generation_config.json", "bad_words_ids"])
    expect_error("sampling", json_edit("generation_config.json", lambda g: g.__setitem__("do_sample", True)),
                 ["generation_config.json", "do_sample"])
    expect_error("truncated", truncate, ["model.safetensors", "truncated"])


def main():
    torch.set_num_threads(1)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in SNAPSHOTS:
            check_reconversion(tmp, name, failures)
        check_pytorch_bin(tmp, failures)
        check_refusals(tmp, failures)
    if failures:
        print(f"FAILED: {failures}")
        sys.exit(1)
    print("convert_hf (marian): committed files reproduced, tensors the snapshot's, every bad snapshot refused")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
