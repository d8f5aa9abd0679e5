"""Plain PyTorch decoder-only language model (GPT, Radford et al. 2018/2019), the decoder-only
family ("architecture": "decoder_only", models/FORMAT.md), written from the papers and the
Hugging Face GPT2LMHeadModel computation.

    x   = E_token[ids] * embedding_scale + P[0..T-1]          (P learned or sinusoidal)
    for each layer, pre-norm (GPT-2):
        x = x + out_proj(CausalMultiHead(LN_attn(x)))
        x = x + fc2(act(fc1(LN_ffn(x))))
    or post-norm (GPT-1): x = LN_attn(x + attn(x)); x = LN_ffn(x + ffn(x))
    logits = final_norm(x) E_tokenᵀ + output.bias              (final_norm: pre-norm only)

The context of a step is the prompt (<bos> first where the model reads one: config prepend_bos,
absent = true) and every token generated so far; position t
attends to positions 0..t (causal). With "d_ff": 0 a layer has no FFN (attention-only models).

state_dict() keys are exactly the tensor names of the model file:
    embed.token.weight [V, d], embed.position.weight [P, d] (learned only),
    layers.N.self_attn.{q,k,v,out}_proj.{weight [d, d], bias [d]},
    layers.N.self_attn_norm.{weight,bias} [d],
    layers.N.ffn.fc1.{weight [d_ff, d], bias}, layers.N.ffn.fc2.{weight [d, d_ff], bias},
    layers.N.ffn_norm.{weight,bias} [d]                 (d_ff > 0 only)
    final_norm.{weight,bias} [d]                        (pre-norm only)
    output.weight [V, d] (not tied_output), output.bias [V]
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .export import load_one_vocabulary_file, save_model_file
from .model import sinusoidal_table

CONFIG_FIELDS = [
    "architecture", "d_model", "n_heads", "d_ff", "n_layers", "activation", "norm", "positions",
    "max_positions", "embedding_scale", "tied_output", "layer_norm_eps", "special_tokens",
]
ACTIVATIONS = ("relu", "gelu", "gelu_tanh")
# Written after CONFIG_FIELDS only when the config gives it (absent from a file: true, models/FORMAT.md):
# whether the engine reads <bos> before a prompt, as the model's tokenizer adds one.
OPTIONAL_FIELDS = ["prepend_bos"]


def complete_config(config):
    """Fill defaults, check values, return a new dict with exactly the FORMAT.md config fields."""
    c = {"architecture": "decoder_only", "activation": "gelu_tanh", "norm": "pre", "positions": "learned",
         "embedding_scale": 1.0, "tied_output": True, "layer_norm_eps": 1e-5}
    c.update(config)
    missing = [k for k in CONFIG_FIELDS if k not in c]
    if missing:
        raise ValueError(f"config is missing {missing}")
    if c["d_model"] % c["n_heads"]:
        raise ValueError("d_model must be divisible by n_heads")
    if c["activation"] not in ACTIVATIONS:
        raise ValueError(f"bad activation {c['activation']!r}")
    if c["norm"] not in ("pre", "post") or c["positions"] not in ("learned", "sinusoidal"):
        raise ValueError(f"bad norm {c['norm']!r} or positions {c['positions']!r}")
    out = {k: c[k] for k in CONFIG_FIELDS}
    for k in OPTIONAL_FIELDS:
        if k in c:
            if not isinstance(c[k], bool):
                raise ValueError(f"{k} must be true or false, got {c[k]!r}")
            out[k] = c[k]
    out["embedding_scale"] = float(out["embedding_scale"])
    out["layer_norm_eps"] = float(out["layer_norm_eps"])
    out["special_tokens"] = {k: int(out["special_tokens"][k]) for k in ("pad", "unk", "bos", "eos")}
    return out


def activation(name, x):
    if name == "relu":
        return torch.relu(x)
    if name == "gelu":
        return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))
    # GPT-2's gelu_new (Hendrycks & Gimpel 2016, the tanh approximation)
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class CausalSelfAttention(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, rec=None, pad=None, dropout=0.0, head_mask=None):
        """x [B, T, d]; pad [B, T] (True: padding key) or None; head_mask [H] (0 zeroes that head's
        output before out_proj) or None. Fills `rec` (one sequence, B = 1) with q, k, v, attn."""
        B, T, d = x.shape
        H, dh = self.n_heads, d // self.n_heads
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        qh, kh, vh = (t.view(B, T, H, dh).transpose(1, 2) for t in (q, k, v))  # [B, H, T, dh]
        scores = qh @ kh.transpose(-1, -2) / math.sqrt(dh)
        future = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
        if pad is not None:
            scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))
        attn = torch.softmax(scores, dim=-1)  # [B, H, T, T]
        heads = F.dropout(attn, dropout, self.training) @ vh
        if head_mask is not None:
            heads = heads * head_mask.view(1, H, 1, 1)
        if rec is not None:
            rec.update(q=q[0], k=k[0], v=v[0], attn=attn[0])
        return self.out_proj(heads.transpose(1, 2).reshape(B, T, d))


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, eps = c["d_model"], c["layer_norm_eps"]
        self.c = c
        self.self_attn = CausalSelfAttention(d, c["n_heads"])
        self.self_attn_norm = nn.LayerNorm(d, eps=eps)
        if c["d_ff"] > 0:
            self.ffn = nn.Module()
            self.ffn.fc1 = nn.Linear(d, c["d_ff"])
            self.ffn.fc2 = nn.Linear(c["d_ff"], d)
            self.ffn_norm = nn.LayerNorm(d, eps=eps)

    def forward(self, x, rec=None, pad=None, dropout=0.0, head_mask=None):
        def drop(t):
            return F.dropout(t, dropout, self.training)

        def attention(h):
            return self.self_attn(h, rec, pad, dropout, head_mask)

        def feed_forward(h):
            return self.ffn.fc2(activation(self.c["activation"], self.ffn.fc1(h)))

        sublayers = [(attention, self.self_attn_norm)]
        if self.c["d_ff"] > 0:
            sublayers.append((feed_forward, self.ffn_norm))
        for f, norm in sublayers:
            if self.c["norm"] == "pre":
                x = x + drop(f(norm(x)))
            else:
                x = norm(x + drop(f(x)))
        return x


class DecoderOnly(nn.Module):
    def __init__(self, config, vocab_size, dropout=0.0):
        super().__init__()
        c = self.config = config
        self.dropout = dropout  # training only (models/train/train.py lm)
        d = c["d_model"]
        self.embed = nn.Module()
        self.embed.token = nn.Embedding(vocab_size, d)
        if c["positions"] == "learned":
            self.embed.position = nn.Embedding(c["max_positions"], d)
        else:
            self.register_buffer("sinusoids", sinusoidal_table(c["max_positions"], d), persistent=False)
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["n_layers"]))
        if c["norm"] == "pre":
            self.final_norm = nn.LayerNorm(d, eps=c["layer_norm_eps"])
        self.output = nn.Module()
        if not c["tied_output"]:
            self.output.weight = nn.Parameter(torch.zeros(vocab_size, d))
        self.output.bias = nn.Parameter(torch.zeros(vocab_size))

    def embed_tokens(self, ids):
        """ids [B, T] -> token embeddings * scale + positions [B, T, d]."""
        T = ids.shape[1]
        if T > self.config["max_positions"]:
            raise ValueError(f"context of {T} tokens exceeds max_positions {self.config['max_positions']}")
        pos = self.embed.position.weight[:T] if self.config["positions"] == "learned" else self.sinusoids[:T]
        return self.embed.token(ids) * self.config["embedding_scale"] + pos[None]

    def logits(self, x):
        if self.config["norm"] == "pre":
            x = self.final_norm(x)
        w = self.embed.token.weight if self.config["tied_output"] else self.output.weight
        return x @ w.T + self.output.bias

    def forward(self, ids, head_mask=None):
        """One context (a list of ids, <bos> first). -> dict: logits [T, V], attention [L, H, T, T],
        hidden_states [L+1][T, d] (the residual stream after the embeddings and after each layer),
        layers (per-layer q/k/v/attn). head_mask [L, H] (0: that head switched off) or None."""
        x = self.embed_tokens(torch.tensor([ids]))
        states, layers = [x[0]], []
        for l, layer in enumerate(self.layers):
            rec = {}
            x = layer(x, rec, head_mask=None if head_mask is None else head_mask[l])
            layers.append(rec)
            states.append(x[0])
        return {"logits": self.logits(x)[0], "hidden_states": states, "layers": layers,
                "attention": torch.stack([r["attn"] for r in layers])}

    def batch_logits(self, ids, pad):
        """A padded batch for training: ids [B, T], pad [B, T] (True at padding, at the end of a
        row) -> logits [B, T, V], with dropout in training mode."""
        x = F.dropout(self.embed_tokens(ids), self.dropout, self.training)
        for layer in self.layers:
            x = layer(x, None, pad, self.dropout)
        return self.logits(x)


def export(model, config, tokenizer_spec, vocab, path, dtype="F32", name=None, description=None, generation=None):
    save_model_file(path, dict(model.state_dict()), config, tokenizer_spec, vocab, vocab, dtype, name, description,
                    generation)


def load(path):
    """-> (model [float32, eval], config, tokenizer_spec, vocab)"""
    return load_one_vocabulary_file(path, DecoderOnly)
