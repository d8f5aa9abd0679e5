"""Plain PyTorch implementation of the attnscope encoder-decoder (models/FORMAT.md).

state_dict() keys are exactly the tensor names of the model file, e.g.
`encoder.layers.0.self_attn.q_proj.weight`, `decoder.layers.1.cross_attn_norm.bias`,
`encoder.final_norm.weight` (pre-norm only), `output.weight` (absent when tied), `output.bias`,
`src_embed.weight`, `tgt_embed.weight` (absent when shared), `encoder.pos_embed.weight` (learned only).

Two entry points:
  * Transformer.forward(src, tgt_in, ...)   full-sequence, batched, padding masks (training)
  * Transformer.greedy_decode(src_ids, ...) incremental (KV-cached) greedy decoding of one
    sentence that records every intermediate value written to the golden files.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .tokenizer import SPECIAL_TOKENS

DEFAULT_CONFIG = {
    "activation": "relu",
    "norm": "post",
    "positions": "sinusoidal",
    "embedding_scale": 1.0,
    "shared_embeddings": False,
    "tied_output": False,
    "layer_norm_eps": 1e-5,
    "src_append_eos": True,
    "special_tokens": dict(SPECIAL_TOKENS),
}

CONFIG_FIELDS = [
    "d_model", "n_heads", "d_ff", "n_encoder_layers", "n_decoder_layers", "activation", "norm",
    "positions", "max_positions", "embedding_scale", "shared_embeddings", "tied_output",
    "layer_norm_eps", "src_append_eos", "special_tokens",
]


def complete_config(config):
    """Fill defaults, check values, return a new dict with exactly the FORMAT.md config fields."""
    c = dict(DEFAULT_CONFIG)
    c.update(config)
    missing = [k for k in CONFIG_FIELDS if k not in c]
    if missing:
        raise ValueError(f"config is missing {missing}")
    if c["d_model"] % c["n_heads"]:
        raise ValueError("d_model must be divisible by n_heads")
    if c["activation"] not in ("relu", "gelu"):
        raise ValueError(f"bad activation {c['activation']!r}")
    if c["norm"] not in ("post", "pre"):
        raise ValueError(f"bad norm {c['norm']!r}")
    if c["positions"] not in ("sinusoidal", "learned"):
        raise ValueError(f"bad positions {c['positions']!r}")
    out = {k: c[k] for k in CONFIG_FIELDS}
    out["embedding_scale"] = float(out["embedding_scale"])
    out["layer_norm_eps"] = float(out["layer_norm_eps"])
    out["special_tokens"] = {k: int(out["special_tokens"][k]) for k in ("pad", "unk", "bos", "eos")}
    return out


def sinusoidal_table(n_positions, d_model):
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(p / 10000^(2i/d)).
    Computed in float64, then rounded once to float32."""
    p = torch.arange(n_positions, dtype=torch.float64)[:, None]
    j = torch.arange(d_model, dtype=torch.float64)[None, :]
    two_i = j - (j % 2)  # 2i for both column 2i and 2i+1
    angle = p / torch.pow(torch.tensor(10000.0, dtype=torch.float64), two_i / d_model)
    pe = torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle))
    return pe.to(torch.float32)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def split_heads(self, x):  # [B, T, d] -> [B, H, T, d_head]
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_head).transpose(1, 2)

    def merge_heads(self, x):  # [B, H, T, d_head] -> [B, T, d]
        b, h, t, dh = x.shape
        return x.transpose(1, 2).reshape(b, t, h * dh)

    def attend(self, q, k, v, mask=None):
        """q [B, Tq, d], k/v [B, Tk, d] (already projected); mask: bool, broadcastable to
        [B, H, Tq, Tk], True = may NOT attend. Returns (out_proj(concat heads), attn [B, H, Tq, Tk])."""
        qh, kh, vh = self.split_heads(q), self.split_heads(k), self.split_heads(v)
        scores = qh @ kh.transpose(-1, -2) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(mask, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        context = self.merge_heads(attn @ vh)
        return self.out_proj(context), attn

    def forward(self, x, memory=None, mask=None, record=None):
        """Self-attention (memory None) or cross-attention on `memory`."""
        kv = x if memory is None else memory
        q, k, v = self.q_proj(x), self.k_proj(kv), self.v_proj(kv)
        out, attn = self.attend(q, k, v, mask)
        if record is not None:
            record.update(q=q, k=k, v=v, attn=attn, attn_output=out)
        return out


class FeedForward(nn.Module):
    def __init__(self, d_model, d_ff, activation):
        super().__init__()
        self.fc1 = nn.Linear(d_model, d_ff)
        self.fc2 = nn.Linear(d_ff, d_model)
        self.activation = activation

    def forward(self, x, record=None):
        h = self.fc1(x)
        h = F.relu(h) if self.activation == "relu" else F.gelu(h)  # F.gelu default = exact erf form
        if record is not None:
            record["hidden"] = h
        return self.fc2(h)


def residual(x, f, norm, norm_position):
    """post: LN(x + f(x));  pre: x + f(LN(x))."""
    if norm_position == "post":
        return norm(x + f(x))
    return x + f(norm(x))


class EncoderLayer(nn.Module):
    def __init__(self, c, dropout=0.0):
        super().__init__()
        d, eps = c["d_model"], c["layer_norm_eps"]
        self.drop = nn.Dropout(dropout)  # training only: on each sub-layer's output, before the residual add
        self.norm_position = c["norm"]
        self.self_attn = MultiHeadAttention(d, c["n_heads"])
        self.self_attn_norm = nn.LayerNorm(d, eps=eps)
        self.ffn = FeedForward(d, c["d_ff"], c["activation"])
        self.ffn_norm = nn.LayerNorm(d, eps=eps)

    def forward(self, x, mask=None, record=None):
        sa, ff = {}, {}
        x = residual(x, lambda h: self.drop(self.self_attn(h, mask=mask, record=sa)), self.self_attn_norm,
                     self.norm_position)
        x = residual(x, lambda h: self.drop(self.ffn(h, record=ff)), self.ffn_norm, self.norm_position)
        if record is not None:
            record.update(q=sa["q"], k=sa["k"], v=sa["v"], attn=sa["attn"], attn_output=sa["attn_output"],
                          ffn_hidden=ff["hidden"], output=x)
        return x


class DecoderLayer(nn.Module):
    def __init__(self, c, dropout=0.0):
        super().__init__()
        d, eps = c["d_model"], c["layer_norm_eps"]
        self.drop = nn.Dropout(dropout)  # training only, as in EncoderLayer
        self.norm_position = c["norm"]
        self.self_attn = MultiHeadAttention(d, c["n_heads"])
        self.self_attn_norm = nn.LayerNorm(d, eps=eps)
        self.cross_attn = MultiHeadAttention(d, c["n_heads"])
        self.cross_attn_norm = nn.LayerNorm(d, eps=eps)
        self.ffn = FeedForward(d, c["d_ff"], c["activation"])
        self.ffn_norm = nn.LayerNorm(d, eps=eps)

    def forward(self, y, memory, self_mask=None, memory_mask=None):
        """Full target sequence (teacher forcing). Cross-attention keys/values are the memory
        (encoder output) itself; cross_attn_norm only normalises the query stream (pre-norm)."""
        p = self.norm_position
        y = residual(y, lambda h: self.drop(self.self_attn(h, mask=self_mask)), self.self_attn_norm, p)
        y = residual(y, lambda h: self.drop(self.cross_attn(h, memory=memory, mask=memory_mask)),
                     self.cross_attn_norm, p)
        y = residual(y, lambda h: self.drop(self.ffn(h)), self.ffn_norm, p)
        return y

    # ---- incremental decoding -------------------------------------------------------------
    def start_cache(self, memory):
        return {"k": None, "v": None,
                "mem_k": self.cross_attn.k_proj(memory), "mem_v": self.cross_attn.v_proj(memory)}

    def step(self, y, cache, record):
        """y: [1, 1, d], the residual stream at the newest position; cache is updated in place."""
        p = self.norm_position

        def self_attention(h):
            q, k, v = self.self_attn.q_proj(h), self.self_attn.k_proj(h), self.self_attn.v_proj(h)
            cache["k"] = k if cache["k"] is None else torch.cat([cache["k"], k], dim=1)
            cache["v"] = v if cache["v"] is None else torch.cat([cache["v"], v], dim=1)
            out, attn = self.self_attn.attend(q, cache["k"], cache["v"])  # causal by construction
            record.update(self_q=q, self_k=k, self_v=v, self_attn=attn, self_attn_output=out)
            return out

        def cross_attention(h):
            q = self.cross_attn.q_proj(h)
            out, attn = self.cross_attn.attend(q, cache["mem_k"], cache["mem_v"])
            record.update(cross_q=q, cross_attn=attn, cross_attn_output=out)
            return out

        def feed_forward(h):
            ff = {}
            out = self.ffn(h, record=ff)
            record["ffn_hidden"] = ff["hidden"]
            return out

        y = residual(y, self_attention, self.self_attn_norm, p)
        y = residual(y, cross_attention, self.cross_attn_norm, p)
        y = residual(y, feed_forward, self.ffn_norm, p)
        record["output"] = y
        return y


class Stack(nn.Module):
    """Positions + layers (+ final_norm for pre-norm). Token embeddings live in Transformer."""

    def __init__(self, c, layer_cls, n_layers, dropout=0.0):
        super().__init__()
        self.layers = nn.ModuleList([layer_cls(c, dropout) for _ in range(n_layers)])
        if c["positions"] == "learned":
            self.pos_embed = nn.Embedding(c["max_positions"], c["d_model"])
        else:
            self.pos_embed = None
            self.register_buffer("sinusoidal", sinusoidal_table(c["max_positions"], c["d_model"]),
                                 persistent=False)
        self.final_norm = nn.LayerNorm(c["d_model"], eps=c["layer_norm_eps"]) if c["norm"] == "pre" else None
        self.max_positions = c["max_positions"]

    def positional(self, start, length):
        if start + length > self.max_positions:
            raise ValueError(f"sequence of {start + length} positions exceeds max_positions={self.max_positions}")
        if self.pos_embed is not None:
            return self.pos_embed.weight[start:start + length]
        return self.sinusoidal[start:start + length]

    def finish(self, x):
        return self.final_norm(x) if self.final_norm is not None else x


class OutputProjection(nn.Module):
    """`output.weight` [V_tgt, d] unless tied (then the target embedding is used), `output.bias` [V_tgt]."""

    def __init__(self, d_model, vocab_size, tied):
        super().__init__()
        self.weight = None if tied else nn.Parameter(torch.empty(vocab_size, d_model))
        self.bias = nn.Parameter(torch.zeros(vocab_size))
        if self.weight is not None:
            nn.init.normal_(self.weight, std=d_model ** -0.5)

    def forward(self, y, tied_weight=None):
        w = self.weight if self.weight is not None else tied_weight
        return F.linear(y, w, self.bias)


class Transformer(nn.Module):
    def __init__(self, config, src_vocab_size, tgt_vocab_size, dropout=0.0):
        """`dropout` is a training setting, not part of the model file (inference never uses it)."""
        super().__init__()
        c = complete_config(config)
        self.config = c
        if c["shared_embeddings"] and src_vocab_size != tgt_vocab_size:
            raise ValueError("shared_embeddings needs equal source and target vocabulary sizes")
        d = c["d_model"]
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size
        self.src_embed = nn.Embedding(src_vocab_size, d)
        self.tgt_embed = None if c["shared_embeddings"] else nn.Embedding(tgt_vocab_size, d)
        self.encoder = Stack(c, EncoderLayer, c["n_encoder_layers"], dropout)
        self.decoder = Stack(c, DecoderLayer, c["n_decoder_layers"], dropout)
        self.embed_drop = nn.Dropout(dropout)
        self.output = OutputProjection(d, tgt_vocab_size, c["tied_output"])

    @classmethod
    def from_config(cls, config, src_vocab_size=None, tgt_vocab_size=None):
        """Vocabulary sizes are not part of the FORMAT.md config; pass them, or put
        `src_vocab_size` / `tgt_vocab_size` into the dict (they are not kept in `.config`)."""
        src_v = src_vocab_size if src_vocab_size is not None else config["src_vocab_size"]
        tgt_v = tgt_vocab_size if tgt_vocab_size is not None else config.get("tgt_vocab_size", src_v)
        cfg = {k: v for k, v in config.items() if k not in ("src_vocab_size", "tgt_vocab_size")}
        return cls(cfg, src_v, tgt_v)

    @property
    def target_embedding(self):
        return self.src_embed if self.tgt_embed is None else self.tgt_embed

    def special(self, name):
        return self.config["special_tokens"][name]

    def logits(self, y):
        return self.output(y, tied_weight=self.target_embedding.weight)

    # ---- full-sequence (training) path ----------------------------------------------------
    def encode(self, src, src_pad_mask=None):
        """src [B, S] ids; src_pad_mask [B, S] bool, True = padding. Returns memory [B, S, d]."""
        c = self.config
        x = self.embed_drop(self.src_embed(src) * c["embedding_scale"] + self.encoder.positional(0, src.shape[1]))
        mask = None if src_pad_mask is None else src_pad_mask[:, None, None, :]
        for layer in self.encoder.layers:
            x = layer(x, mask=mask)
        return self.encoder.finish(x)

    def decode(self, tgt_in, memory, src_pad_mask=None, tgt_pad_mask=None):
        """tgt_in [B, T] (starting with <s>). Returns logits [B, T, V_tgt]."""
        c = self.config
        t = tgt_in.shape[1]
        y = self.embed_drop(self.target_embedding(tgt_in) * c["embedding_scale"] + self.decoder.positional(0, t))
        causal = torch.ones(t, t, dtype=torch.bool, device=tgt_in.device).triu(1)  # True above diagonal
        self_mask = causal[None, None]
        if tgt_pad_mask is not None:
            self_mask = self_mask | tgt_pad_mask[:, None, None, :]
        memory_mask = None if src_pad_mask is None else src_pad_mask[:, None, None, :]
        for layer in self.decoder.layers:
            y = layer(y, memory, self_mask=self_mask, memory_mask=memory_mask)
        return self.logits(self.decoder.finish(y))

    def forward(self, src, tgt_in, src_pad_mask=None, tgt_pad_mask=None):
        """Teacher-forced logits [B, T, V]. Masks default to `ids == pad`."""
        pad = self.special("pad")
        if src_pad_mask is None:
            src_pad_mask = src == pad
        if tgt_pad_mask is None:
            tgt_pad_mask = tgt_in == pad
        memory = self.encode(src, src_pad_mask)
        return self.decode(tgt_in, memory, src_pad_mask, tgt_pad_mask)

    # ---- observable incremental greedy decoding -------------------------------------------
    @torch.no_grad()
    def greedy_decode(self, src_ids, max_steps):
        """Greedy decoding of one sentence (src_ids already include </s> if src_append_eos).
        Stops after </s>, after `max_steps` generated tokens, or when the target (including <s>)
        reaches max_positions. Returns a dict shaped like the golden files (tensors, no batch dim):
        {"output_ids", "encoder": {...}, "steps": [...]}."""
        c = self.config
        scale = c["embedding_scale"]
        src = torch.tensor([list(src_ids)], dtype=torch.long)
        s = src.shape[1]

        # encoder, recording everything
        embedding = self.src_embed(src) * scale
        positional = self.encoder.positional(0, s)
        x = embedding + positional
        layers = []
        for layer in self.encoder.layers:
            rec = {}
            x = layer(x, record=rec)
            layers.append(rec)
        memory = self.encoder.finish(x)
        encoder = {
            "embedding": embedding[0],
            "positional": positional,
            "self_attn": torch.stack([r["attn"][0] for r in layers]),  # [L, H, S, S]
            "layers": [{k: r[k][0] for k in ("q", "k", "v", "attn_output", "ffn_hidden", "output")} for r in layers],
            "output": memory[0],
        }

        caches = [layer.start_cache(memory) for layer in self.decoder.layers]
        bos, eos = self.special("bos"), self.special("eos")
        limit = min(max_steps, c["max_positions"] - 1)
        tokens = [bos]
        steps = []
        for t in range(limit):
            tok = torch.tensor([[tokens[-1]]], dtype=torch.long)
            emb = self.target_embedding(tok) * scale
            pos = self.decoder.positional(t, 1)
            y = emb + pos
            recs = []
            for layer, cache in zip(self.decoder.layers, caches):
                rec = {}
                y = layer.step(y, cache, rec)
                recs.append(rec)
            logits = self.logits(self.decoder.finish(y))[0, 0]
            log_probs = torch.log_softmax(logits, dim=-1)
            out_id = int(torch.nonzero(logits == logits.max())[0, 0])  # lowest id on ties
            steps.append({
                "input_id": tokens[-1],
                "output_id": out_id,
                "logits": logits,
                "log_probs": log_probs,
                "self_attn": torch.stack([r["self_attn"][0, :, 0, :] for r in recs]),   # [L, H, t+1]
                "cross_attn": torch.stack([r["cross_attn"][0, :, 0, :] for r in recs]),  # [L, H, S]
                "embedding": emb[0, 0],
                "positional": pos[0],
                "layers": [{k: r[k][0, 0] for k in ("self_q", "self_k", "self_v", "self_attn_output", "cross_q",
                                                     "cross_attn_output", "ffn_hidden", "output")} for r in recs],
            })
            tokens.append(out_id)
            if out_id == eos:
                break
        return {"output_ids": tokens[1:], "encoder": encoder, "steps": steps}
