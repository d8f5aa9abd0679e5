#!/usr/bin/python3
"""Export an attnscope model file, or a Hugging Face Marian or GPT-2 snapshot, to ONNX for the benchmark, then check the graphs.

    /usr/bin/python3 tests/bench/export_onnx.py [--model models/multi30k-en-de.safetensors]
        [--out build/bench/onnx] [--opset 17] [--check-steps 60] [--no-check]
    /usr/bin/python3 tests/bench/export_onnx.py --hf SNAPSHOT --model CONVERTED.safetensors --out DIR

Needs Debian's python3-torch (1.13; torch.onnx.export writes the protobuf itself, the `onnx`
package is not needed). The weights are the model file's, exactly: the reference loader turns
the stored f16 into f32 (models/reference/attnscope_ref/export.py:load_model), and the graphs hold those
f32 values. Three graphs, laid out as transformers.js / optimum lay out encoder-decoder models
(batch 1, no padding, so no attention masks):

  encoder_model.onnx            input_ids [1, S] (int64, </s> included)
                                -> last_hidden_state [1, S, d]
  decoder_model.onnx            input_ids [1, 1] (<s>), encoder_hidden_states [1, S, d]
                                -> logits [1, 1, V], present.{i}.decoder.key/value [1, H, 1, d_head],
                                   present.{i}.encoder.key/value [1, H, S, d_head]
  decoder_with_past_model.onnx  input_ids [1, 1], past_key_values.{i}.decoder.key/value [1, H, T, d_head],
                                past_key_values.{i}.encoder.key/value [1, H, S, d_head]
                                -> logits [1, 1, V], present.{i}.decoder.key/value [1, H, T + 1, d_head]

The first decoder step projects the encoder output into every layer's cross-attention keys and
values (present.*.encoder.*); later steps take them back as past_key_values.*.encoder.*. The
new token's position is the past length T (read from the past's shape).

The check (unless --no-check): PyTorch's own incremental greedy decode
(Transformer.greedy_decode) of a few validation sentences is written to reference.json, then
tests/bench/check_onnx.mjs decodes the same source ids with onnxruntime-web (WASM, 1 thread)
and this script compares every step's logits (max |diff| <= 1e-3) and the tokens (identical).

With --hf, the graphs are traced from models/reference/hf_marian.py's reading of Hugging Face's
Marian (tests/bench/hf_marian_onnx.py) with the weights of the converted file --model names
(binary16-rounded when it stores binary16), and checked against that reference's forward pass
on MarianTokenizer's ids; the argmax of both skips the file's suppress_tokens (Marian's pad), as
attnscope does. A GPT-2 snapshot (config.json's model_type "gpt2") gets the two graphs of
tests/bench/hf_gpt2_onnx.py (the prompt, then one token on the key/value cache), traced from
models/reference/hf_gpt2.py and checked against its forward pass on GPT2Tokenizer's ids of
CHECK_SENTENCES as prompts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import struct
import subprocess
import sys
import warnings
from pathlib import Path

import torch
import torch.nn as nn

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models" / "reference"))
from attnscope_ref.export import load_model  # noqa: E402
from attnscope_ref.model import residual  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer  # noqa: E402

import hf_gpt2_onnx  # noqa: E402  (beside this script)
import hf_marian_onnx  # noqa: E402

CHECK_SENTENCES = [
    "A group of men are loading cotton onto a truck",
    "A man sleeping in a green room on a couch.",
    "Two young children are playing in the sand at the beach while their parents watch from a blanket.",
]
LOGIT_TOLERANCE = 1e-3
GRAPHS = ("encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx")


class Encoder(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, input_ids):
        return self.m.encode(input_ids)


def attend(attn, q, k, v):
    """Heads already split: q [1, H, 1, dh], k/v [1, H, T, dh] -> out_proj(context) [1, 1, d]."""
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    return attn.out_proj(attn.merge_heads(torch.softmax(scores, dim=-1) @ v))


class DecoderStep(nn.Module):
    """One incremental decoder step; `first` = no past (position 0, cross K/V computed here)."""

    def __init__(self, model, first):
        super().__init__()
        self.m = model
        self.first = first

    def forward(self, input_ids, *rest):
        m, c = self.m, self.m.config
        n_layers = len(m.decoder.layers)
        if self.first:
            memory = rest[0]
            position = m.decoder.sinusoidal[0:1] if m.decoder.pos_embed is None else m.decoder.pos_embed.weight[0:1]
        else:
            past = rest
            t = past[0].shape[2]
            table = m.decoder.sinusoidal if m.decoder.pos_embed is None else m.decoder.pos_embed.weight
            position = table[t:t + 1]
        y = m.target_embedding(input_ids) * c["embedding_scale"] + position
        presents_self, presents_cross = [], []
        for i, layer in enumerate(m.decoder.layers):
            if self.first:
                ca = layer.cross_attn
                mem_k, mem_v = ca.split_heads(ca.k_proj(memory)), ca.split_heads(ca.v_proj(memory))
            else:
                past_k, past_v, mem_k, mem_v = past[4 * i:4 * i + 4]
            new = {}

            def self_attention(x):
                sa = layer.self_attn
                q, k, v = (sa.split_heads(p(x)) for p in (sa.q_proj, sa.k_proj, sa.v_proj))
                if not self.first:
                    k = torch.cat([past_k, k], dim=2)
                    v = torch.cat([past_v, v], dim=2)
                new["k"], new["v"] = k, v
                return attend(sa, q, k, v)

            def cross_attention(x):
                ca = layer.cross_attn
                return attend(ca, ca.split_heads(ca.q_proj(x)), mem_k, mem_v)

            p = layer.norm_position
            y = residual(y, self_attention, layer.self_attn_norm, p)
            y = residual(y, cross_attention, layer.cross_attn_norm, p)
            y = residual(y, layer.ffn, layer.ffn_norm, p)
            presents_self += [new["k"], new["v"]]
            presents_cross += [mem_k, mem_v]
        logits = m.logits(m.decoder.finish(y))
        if self.first:
            out = [logits]
            for i in range(n_layers):
                out += presents_self[2 * i:2 * i + 2] + presents_cross[2 * i:2 * i + 2]
            return tuple(out)
        return (logits, *presents_self)


def export_graphs(out: Path, encoder: nn.Module, first: nn.Module, with_past: nn.Module, bos: int,
                  n_layers: int, h: int, dh: int, opset: int) -> dict:
    """Traces the three graphs of the layout above into `out`; returns their sizes in bytes."""
    out.mkdir(parents=True, exist_ok=True)
    src = torch.tensor([[5, 6, 7, 8, 3]], dtype=torch.long)
    tok = torch.tensor([[bos]], dtype=torch.long)

    def kv_names(prefix, kinds):
        names = []
        for i in range(n_layers):
            for kind in kinds:
                names += [f"{prefix}.{i}.{kind}.key", f"{prefix}.{i}.{kind}.value"]
        return names

    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about the Python-side position checks
        memory = encoder(src)
        torch.onnx.export(encoder, (src,), str(out / "encoder_model.onnx"), opset_version=opset,
                          input_names=["input_ids"], output_names=["last_hidden_state"],
                          dynamic_axes={"input_ids": {1: "encoder_sequence_length"},
                                        "last_hidden_state": {1: "encoder_sequence_length"}})

        first_out = ["logits"] + kv_names("present", ("decoder", "encoder"))
        axes = {"encoder_hidden_states": {1: "encoder_sequence_length"}}
        for name in first_out[1:]:
            if ".encoder." in name:
                axes[name] = {2: "encoder_sequence_length"}
        torch.onnx.export(first, (tok, memory), str(out / "decoder_model.onnx"), opset_version=opset,
                          input_names=["input_ids", "encoder_hidden_states"], output_names=first_out,
                          dynamic_axes=axes)

        past_names = kv_names("past_key_values", ("decoder", "encoder"))
        past = []
        for name in past_names:
            t = 3 if ".decoder." in name else src.shape[1]
            past.append(torch.randn(1, h, t, dh))
        with_past_out = ["logits"] + kv_names("present", ("decoder",))
        axes = {}
        for name in past_names:
            axes[name] = {2: "past_decoder_sequence_length" if ".decoder." in name else "encoder_sequence_length"}
        for name in with_past_out[1:]:
            axes[name] = {2: "past_decoder_sequence_length + 1"}
        torch.onnx.export(with_past, (tok, *past), str(out / "decoder_with_past_model.onnx"),
                          opset_version=opset, input_names=["input_ids", *past_names], output_names=with_past_out,
                          dynamic_axes=axes)
    return {name: (out / name).stat().st_size for name in GRAPHS}


def repo_path(path: Path) -> str:
    """`path` as export.json records it: relative to the checkout when inside it."""
    return str(path.relative_to(REPO) if path.is_relative_to(REPO) else path)


def write_info(out: Path, model_path: Path, opset: int, config: dict, graphs: dict, **extra) -> dict:
    info = {"model": repo_path(model_path), **extra, "opset": opset, "torch": torch.__version__,
            "config": config, "graphs": graphs}
    (out / "export.json").write_text(json.dumps(info, indent=2) + "\n")
    return info


def export(model_path: Path, out: Path, opset: int) -> dict:
    model, config, tok_spec, src_vocab, _ = load_model(str(model_path))
    model.eval()
    c = model.config
    h, d = c["n_heads"], c["d_model"]
    graphs = export_graphs(out, Encoder(model), DecoderStep(model, True), DecoderStep(model, False),
                           c["special_tokens"]["bos"], c["n_decoder_layers"], h, d // h, opset)
    info = write_info(out, model_path, opset, c, graphs)
    return {"model": model, "tok_spec": tok_spec, "src_vocab": src_vocab, "info": info}


def file_config(path: Path) -> tuple[dict, set]:
    """An attnscope file's config (its __metadata__) and the dtypes of its tensors, from its header."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    metadata = header.pop("__metadata__", {})
    if "config" not in metadata:
        raise SystemExit(f"{path}: no config in the safetensors __metadata__ (not an attnscope model file)")
    return json.loads(metadata["config"]), {t["dtype"] for t in header.values()}


def hf_module(folder: Path):
    """The graphs' module for the snapshot's config.json model_type: hf_gpt2_onnx or hf_marian_onnx."""
    model_type = json.loads((folder / "config.json").read_text()).get("model_type")
    if model_type not in ("gpt2", "marian"):
        raise SystemExit(f"{folder / 'config.json'}: field 'model_type' is {model_type!r}; --hf exports 'gpt2' or 'marian'")
    return hf_gpt2_onnx if model_type == "gpt2" else hf_marian_onnx


def export_hf(folder: Path, model_path: Path, out: Path, opset: int) -> dict:
    """The graphs of a Hugging Face Marian or GPT-2 snapshot, read by models/reference/hf_marian.py or
    hf_gpt2.py, with the weights of `model_path` (the snapshot converted by models/convert/convert_hf.py):
    binary16-rounded when that file stores binary16, so both engines run the same numbers. export.json's
    config is the converted file's (special tokens, layers, suppress_tokens), as the benchmark feeds attnscope."""
    config, dtypes = file_config(model_path)
    weights = "binary16-rounded" if "F16" in dtypes else "float32"
    if hf_module(folder) is hf_gpt2_onnx:
        model = hf_gpt2_onnx.load(folder, f16="F16" in dtypes)
        hc = model.config
        if (hc["n_layer"], hc["n_embd"]) != (config["n_layers"], config["d_model"]):
            raise SystemExit(f"{model_path} was not converted from {folder}: its config differs from config.json's")
        graphs = hf_gpt2_onnx.export_graphs(out, model, opset)
        info = write_info(out, model_path, opset, config, graphs, hf=repo_path(folder), weights=weights)
        return {"model": model, "info": info}
    model = hf_marian_onnx.load(folder, f16="F16" in dtypes)
    hc = model.config
    if (hc["decoder_layers"], hc["d_model"]) != (config["n_decoder_layers"], config["d_model"]):
        raise SystemExit(f"{model_path} was not converted from {folder}: its config differs from config.json's")
    h = hc["decoder_attention_heads"]
    graphs = export_graphs(out, hf_marian_onnx.Encoder(model), hf_marian_onnx.DecoderStep(model, True),
                           hf_marian_onnx.DecoderStep(model, False), hc["decoder_start_token_id"],
                           hc["decoder_layers"], h, hc["d_model"] // h, opset)
    info = write_info(out, model_path, opset, config, graphs, hf=repo_path(folder), weights=weights)
    return {"model": model, "info": info}


def reference(model, tok_spec, src_vocab, max_steps: int) -> list[dict]:
    c = model.config
    tokenizer = Tokenizer(tok_spec, src_vocab, unk_id=c["special_tokens"]["unk"])
    cases = []
    for sentence in CHECK_SENTENCES:
        _, ids, _ = tokenizer.encode_source(sentence, c["src_append_eos"], eos_id=c["special_tokens"]["eos"])
        run = model.greedy_decode(ids, max_steps)
        cases.append({"sentence": sentence, "source_ids": list(ids), "output_ids": run["output_ids"],
                      "logits": torch.stack([s["logits"] for s in run["steps"]])})
    return cases


def reference_hf(model, folder: Path, config: dict, max_steps: int, min_length: int) -> list[dict]:
    """The reference's greedy decode (greedy_logits of hf_marian_onnx or hf_gpt2_onnx) of the check
    sentences, tokenized by MarianTokenizer (sources) or GPT2Tokenizer (prompts)."""
    special = config["special_tokens"]
    module = hf_module(folder)
    cases = []
    for sentence in CHECK_SENTENCES:
        ids = module.source_ids(folder, sentence)
        run = module.greedy_logits(model, ids, special["bos"], special["eos"], config.get("suppress_tokens", []),
                                           max_steps, min_length)
        cases.append({"sentence": sentence, "source_ids": ids, "output_ids": run["output_ids"],
                      "logits": torch.stack(run["logits"])})
    return cases


def check(out: Path, cases: list[dict], max_steps: int, min_length: int = 0) -> dict:
    (out / "reference.json").write_text(json.dumps({"max_steps": max_steps, "min_length": min_length, "cases": [
        {k: case[k] for k in ("sentence", "source_ids", "output_ids")} for case in cases]}))
    cmd = ["node", str(REPO / "tests/bench/check_onnx.mjs"), str(out)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    ort = json.loads((out / "ort_check.json").read_text())
    worst, report = 0.0, []
    for case, got in zip(cases, ort["cases"]):
        want_logits = case["logits"]
        got_logits = torch.tensor(got["logits"])
        same = got["output_ids"] == case["output_ids"]
        diff = float((want_logits - got_logits).abs().max()) if same else float("inf")
        worst = max(worst, diff)
        report.append({"sentence": case["sentence"], "tokens": len(case["output_ids"]), "same_tokens": same,
                       "max_abs_logit_diff": diff})
        print(f"  {'ok ' if same and diff <= LOGIT_TOLERANCE else 'BAD'} {len(case['output_ids']):3d} tokens, "
              f"max |logit diff| {diff:.2e}: {case['sentence'][:60]}")
    ok = all(r["same_tokens"] for r in report) and worst <= LOGIT_TOLERANCE
    result = {"ok": ok, "tolerance": LOGIT_TOLERANCE, "max_abs_logit_diff": worst, "cases": report}
    (out / "check.json").write_text(json.dumps(result, indent=2) + "\n")
    if not ok:
        raise SystemExit(f"ONNX graphs do not match PyTorch (max |logit diff| {worst}, tolerance {LOGIT_TOLERANCE})")
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default=str(REPO / "models/multi30k-en-de.safetensors"))
    ap.add_argument("--out", default=str(REPO / "build/bench/onnx"))
    ap.add_argument("--hf", help="a Hugging Face Marian or GPT-2 snapshot folder: export it (read by models/reference/hf_marian.py or hf_gpt2.py) "
                    "instead of --model, which then names the snapshot converted by models/convert/convert_hf.py")
    ap.add_argument("--opset", type=int, default=17)
    ap.add_argument("--check-steps", type=int, default=60, help="greedy steps per check sentence")
    ap.add_argument("--no-check", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    out = Path(args.out).resolve()
    model_path = Path(args.model).resolve()
    if args.hf:
        exported = export_hf(Path(args.hf).resolve(), model_path, out, args.opset)
    else:
        exported = export(model_path, out, args.opset)
    sizes = ", ".join(f"{k} {v / 1e6:.1f} MB" for k, v in exported["info"]["graphs"].items())
    print(f"exported {out}: {sizes}", flush=True)
    if not args.no_check:
        max_steps = args.check_steps
        min_length = 0
        if args.hf:
            # A snapshot's random weights end a sentence after a token or two: </s> is held back
            # at every step, so that each sentence compares --check-steps steps.
            min_length = max_steps
            cases = reference_hf(exported["model"], Path(args.hf).resolve(), exported["info"]["config"], max_steps, min_length)
            what = f"the Hugging Face reference (models/reference/{hf_module(Path(args.hf)).__name__.removesuffix('_onnx')}.py)"
        else:
            cases = reference(exported["model"], exported["tok_spec"], exported["src_vocab"], max_steps)
            what = "PyTorch"
        result = check(out, cases, max_steps, min_length)
        print(f"ONNX (onnxruntime-web) vs {what}: same tokens, max |logit diff| {result['max_abs_logit_diff']:.2e}")


if __name__ == "__main__":
    os.chdir(REPO)
    main()
