"""The benchmark's two ONNX graphs over Hugging Face's GPT-2, as models/reference/hf_gpt2.py reads
it: its weights, Conv1D, layer norm, activation, causal mask and tied lm_head, with a batch of one
and a key/value cache in the layout optimum exports GPT2LMHeadModel for transformers.js
(past_key_values.N.key/value in, present.N.key/value out; the reference recomputes the prefix
each step).

tests/bench/export_onnx.py --hf FOLDER (a gpt2 snapshot) traces these modules with
torch.onnx.export and checks them against `greedy_logits` (the reference's forward pass, no cache):

  decoder_model.onnx            input_ids [1, T] (<|endoftext|> and the prompt)
                                -> logits [1, 1, V] (the last position's), present.N.key/value [1, H, T, d_head]
  decoder_with_past_model.onnx  input_ids [1, 1], past_key_values.N.key/value [1, H, T, d_head]
                                -> logits [1, 1, V], present.N.key/value [1, H, T + 1, d_head]

The first graph projects only the last position onto the vocabulary, as attnscope's first step
does: a generator needs no other, and the others would cost T times the output projection.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models" / "reference"))
from hf_gpt2 import GPT2LMHeadModel, GPT2Tokenizer  # noqa: E402

from hf_marian_onnx import greedy_loop  # noqa: E402  (beside this script)

GRAPHS = ("decoder_model.onnx", "decoder_with_past_model.onnx")


def load(folder: Path, f16: bool) -> GPT2LMHeadModel:
    """The snapshot's model; `f16` rounds every weight through binary16, to hold exactly the values
    of a converted file stored with --f16 (models/convert/convert_hf.py), which attnscope runs."""
    model = GPT2LMHeadModel(str(folder))
    if f16:
        model.w = {name: t.half().float() for name, t in model.w.items()}
        model.lm_head = model.w.get("lm_head.weight", model.w["wte.weight"])  # GPT2LMHeadModel.__init__'s tie
    return model


class GPT2Step(nn.Module):
    """GPT2Model.forward + lm_head over `input_ids` after `past` (key, value per layer, or none):
    the reference's tensors registered as buffers, so that the tracer finds them by identity and
    the exporter stores each once as an initializer."""

    def __init__(self, model: GPT2LMHeadModel, first: bool):
        super().__init__()
        self.m = model
        self.first = first
        for i, t in enumerate(model.w.values()):
            self.register_buffer(f"w{i}", t)

    def split_heads(self, x):
        """GPT2Attention._split_heads: [1, T, d] -> [1, H, T, d_head]"""
        m = self.m
        return x.view(1, -1, m.num_heads, m.head_dim).transpose(1, 2)

    def attention(self, p, x, layer_idx, past):
        """GPT2Attention.forward with layer_past (cat on the sequence axis): (c_proj output, (k, v))."""
        m = self.m
        query, key, value = (self.split_heads(t) for t in m.conv1d(p + ".c_attn", x).split(m.embed_dim, dim=-1))
        if past is not None:
            key, value = torch.cat([past[0], key], dim=2), torch.cat([past[1], value], dim=2)
        scores = torch.matmul(query, key.transpose(-1, -2))
        if m.scale_attn_weights:
            scores = scores / (m.head_dim ** 0.5)
        if m.scale_attn_by_inverse_layer_idx:
            scores = scores / float(layer_idx + 1)
        if self.first:  # the causal mask; one new query after the past sees every key
            positions = torch.arange(x.shape[1])
            scores = torch.where(positions[None, :] <= positions[:, None], scores, scores.new_tensor(torch.finfo(scores.dtype).min))
        context = torch.matmul(F.softmax(scores, dim=-1), value).transpose(1, 2).reshape(1, -1, m.embed_dim)
        return m.conv1d(p + ".c_proj", context), (key, value)

    def forward(self, input_ids, *past):
        m = self.m
        start = 0 if self.first else past[0].shape[2]
        positions = torch.arange(start, start + input_ids.shape[1])
        h = F.embedding(input_ids, m.w["wte.weight"]) + m.w["wpe.weight"][positions]
        presents = []
        for i in range(m.config["n_layer"]):
            p = f"h.{i}"
            attn, kv = self.attention(p + ".attn", m.layer_norm(p + ".ln_1", h), i, None if self.first else past[2 * i:2 * i + 2])
            h = h + attn
            h = h + m.mlp(p + ".mlp", m.layer_norm(p + ".ln_2", h))
            presents += kv
        logits = F.linear(m.layer_norm("ln_f", h[:, -1:]), m.lm_head)
        return (logits, *presents)


def export_graphs(out: Path, model: GPT2LMHeadModel, opset: int) -> dict:
    """Traces the two graphs of the layout above into `out`; returns their sizes in bytes."""
    out.mkdir(parents=True, exist_ok=True)
    n_layers, h, dh = model.config["n_layer"], model.num_heads, model.head_dim
    eos = model.config["eos_token_id"]
    present = [f"present.{i}.{kind}" for i in range(n_layers) for kind in ("key", "value")]
    past_names = [f"past_key_values.{i}.{kind}" for i in range(n_layers) for kind in ("key", "value")]
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer warnings about Python-side shape arithmetic
        prompt = torch.tensor([[eos, 464, 3290, 318]], dtype=torch.long)
        axes = {"input_ids": {1: "sequence_length"}, **{name: {2: "sequence_length"} for name in present}}
        torch.onnx.export(GPT2Step(model, True), (prompt,), str(out / GRAPHS[0]), opset_version=opset,
                          input_names=["input_ids"], output_names=["logits", *present], dynamic_axes=axes)
        token = torch.tensor([[eos]], dtype=torch.long)
        past = [torch.randn(1, h, 3, dh) for _ in past_names]
        axes = {**{name: {2: "past_sequence_length"} for name in past_names},
                **{name: {2: "past_sequence_length + 1"} for name in present}}
        torch.onnx.export(GPT2Step(model, False), (token, *past), str(out / GRAPHS[1]), opset_version=opset,
                          input_names=["input_ids", *past_names], output_names=["logits", *present], dynamic_axes=axes)
    return {name: (out / name).stat().st_size for name in GRAPHS}


def source_ids(folder: Path, text: str) -> list[int]:
    """GPT2Tokenizer's ids of the prompt `text` (no special token added)."""
    return GPT2Tokenizer(str(folder)).encode(text)[1]


def greedy_logits(model: GPT2LMHeadModel, ids: list[int], bos: int, eos: int, suppress: list[int], max_steps: int,
                  min_length: int = 0) -> dict:
    """hf_marian_onnx.greedy_loop with the reference's forward pass (the whole prefix recomputed each
    step) after <|endoftext|> and the prompt `ids`. Returns {output_ids, logits [steps][V]}."""
    tokens, logits = greedy_loop(lambda prefix: model.forward(prefix)[0][-1], [bos, *ids], eos, suppress, max_steps, min_length)
    return {"output_ids": tokens[1 + len(ids):], "logits": logits}
