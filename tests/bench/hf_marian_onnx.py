"""The benchmark's three ONNX graphs over Hugging Face's Marian, as models/reference/hf_marian.py
reads it: its weights, `linear`, `layer_norm`, activation, sinusoidal positions and embedding
scale, with a batch of one and a key/value cache (the reference recomputes the prefix each step;
optimum exports MarianMTModel for transformers.js with the cache, and so does this).

tests/bench/export_onnx.py --hf FOLDER traces these modules with torch.onnx.export, in the layout
it writes for attnscope's own files (encoder, first decoder step, decoder step with past), and
checks them against `greedy_logits` (the reference's forward pass, no cache).
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models" / "reference"))
from hf_marian import MarianMTModel, MarianTokenizer  # noqa: E402


def load(folder: Path, f16: bool) -> MarianMTModel:
    """The snapshot's model; `f16` rounds every weight through binary16, to hold exactly the values
    of a converted file stored with --f16 (models/convert/convert_hf.py), which attnscope runs."""
    model = MarianMTModel(str(folder))
    if f16:
        model.w = {name: t.half().float() for name, t in model.w.items()}
        # MarianMTModel.__init__'s aliases of model.shared (tied lm_head) and the logits bias.
        model.shared = model.w["model.shared.weight"]
        model.lm_head = model.w.get("lm_head.weight", model.shared)
        model.final_logits_bias = model.w["final_logits_bias"]
    return model


class MarianGraph(nn.Module):
    """Registers the reference's tensors as buffers: the tracer finds them by identity and the
    exporter stores them as initializers (which tests/bench/quantize_onnx.py quantizes)."""

    def __init__(self, model: MarianMTModel, heads: int):
        super().__init__()
        self.m = model
        for i, t in enumerate(model.w.values()):
            self.register_buffer(f"w{i}", t)
        self.register_buffer("embed_positions", model.embed_positions)
        self.heads = heads
        self.head_dim = model.d_model // heads

    def embed(self, input_ids, position):
        """MarianEncoder/MarianDecoder: embed_tokens(ids) * embed_scale + positions."""
        return F.embedding(input_ids, self.m.shared) * self.m.embed_scale + position

    def split_heads(self, x):
        """[1, T, d] -> [1, H, T, d_head]"""
        return x.view(1, -1, self.heads, self.head_dim).transpose(1, 2)

    def attend(self, name, q, k, v):
        """eager_attention_forward (scaling head_dim ** -0.5, no mask) + out_proj: [1, 1 or T, d]."""
        weights = torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * self.head_dim ** -0.5, dim=-1)
        context = torch.matmul(weights, v).transpose(1, 2).reshape(1, -1, self.m.d_model)
        return self.m.linear(name + ".out_proj", context)

    def projected(self, name, x):
        return self.split_heads(self.m.linear(name, x))

    def feed_forward(self, p, h):
        """MarianEncoderLayer/MarianDecoderLayer's fc1 -> activation -> fc2, residual, final_layer_norm (post-norm)."""
        m = self.m
        return m.layer_norm(p + ".final_layer_norm", h + m.linear(p + ".fc2", m.activation_fn(m.linear(p + ".fc1", h))))


class Encoder(MarianGraph):
    """input_ids [1, S] -> last_hidden_state [1, S, d] (MarianEncoder.forward)."""

    def __init__(self, model: MarianMTModel):
        super().__init__(model, model.config["encoder_attention_heads"])

    def forward(self, input_ids):
        m = self.m
        h = self.embed(input_ids, self.embed_positions[:input_ids.shape[1]])
        for n in range(m.config["encoder_layers"]):
            p = f"model.encoder.layers.{n}"
            q, k, v = (self.projected(f"{p}.self_attn.{x}_proj", h) for x in "qkv")
            h = m.layer_norm(p + ".self_attn_layer_norm", h + self.attend(p + ".self_attn", q, k, v))
            h = self.feed_forward(p, h)
        return h


class DecoderStep(MarianGraph):
    """One incremental MarianDecoder step + lm_head + final_logits_bias; `first` = no past
    (position 0, the cross-attention keys and values computed here from encoder_hidden_states)."""

    def __init__(self, model: MarianMTModel, first: bool):
        super().__init__(model, model.config["decoder_attention_heads"])
        self.first = first

    def forward(self, input_ids, *rest):
        m = self.m
        t = 0 if self.first else rest[0].shape[2]
        h = self.embed(input_ids, self.embed_positions[t:t + 1])
        presents_self, presents_cross = [], []
        for n in range(m.config["decoder_layers"]):
            p = f"model.decoder.layers.{n}"
            q, k, v = (self.projected(f"{p}.self_attn.{x}_proj", h) for x in "qkv")
            if self.first:
                memory = rest[0]
                mem_k = self.projected(p + ".encoder_attn.k_proj", memory)
                mem_v = self.projected(p + ".encoder_attn.v_proj", memory)
            else:
                past_k, past_v, mem_k, mem_v = rest[4 * n:4 * n + 4]
                k, v = torch.cat([past_k, k], dim=2), torch.cat([past_v, v], dim=2)
            h = m.layer_norm(p + ".self_attn_layer_norm", h + self.attend(p + ".self_attn", q, k, v))
            q = self.projected(p + ".encoder_attn.q_proj", h)
            h = m.layer_norm(p + ".encoder_attn_layer_norm", h + self.attend(p + ".encoder_attn", q, mem_k, mem_v))
            h = self.feed_forward(p, h)
            presents_self.append((k, v))
            presents_cross.append((mem_k, mem_v))
        logits = F.linear(h, m.lm_head) + m.final_logits_bias
        if self.first:
            return (logits, *[x for s, c in zip(presents_self, presents_cross) for x in (*s, *c)])
        return (logits, *[x for s in presents_self for x in s])


def source_ids(folder: Path, sentence: str) -> list[int]:
    """MarianTokenizer's ids of `sentence`, </s> appended."""
    return MarianTokenizer(str(folder)).encode(sentence)[1]


def greedy_loop(next_logits, tokens: list[int], eos: int, suppress: list[int], max_steps: int, min_length: int = 0):
    """Greedy decoding over `next_logits(tokens)` (a forward pass's logits for the position after
    `tokens`): the argmax of each step's raw logits over the tokens not suppressed (nor `eos` before
    `min_length` tokens), as attnscope's rules and the benchmark's ORT loop choose; stops after
    `eos`. Returns (`tokens` with the chosen ones appended, each step's logits)."""
    tokens, logits = list(tokens), []
    with torch.no_grad():
        for _ in range(max_steps):
            row = next_logits(tokens)
            logits.append(row)
            choice = row.clone()
            choice[suppress + ([eos] if len(logits) <= min_length else [])] = -float("inf")
            tokens.append(int(torch.argmax(choice)))
            if tokens[-1] == eos:
                break
    return tokens, logits


def greedy_logits(model: MarianMTModel, ids: list[int], bos: int, eos: int, suppress: list[int], max_steps: int,
                  min_length: int = 0) -> dict:
    """greedy_loop with the reference's forward pass (the whole prefix recomputed each step) from
    <s>. Returns {output_ids, logits [steps][V]}."""
    memory, _ = model.encode(ids)
    tokens, logits = greedy_loop(lambda prefix: model.decode(prefix, memory)[0][-1], [bos], eos, suppress, max_steps, min_length)
    return {"output_ids": tokens[1:], "logits": logits}
