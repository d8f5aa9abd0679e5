"""Plain PyTorch BERT (Devlin et al. 2019), the encoder-only family ("architecture": "bert",
models/FORMAT.md), written from the paper and the Hugging Face BertForMaskedLM layout.

    x   = LayerNorm(E_token[ids] + E_position[0..T-1] + E_segment[segments])
    for each layer (post-LN, Vaswani et al. 2017 with GELU):
        x = LayerNorm(x + out_proj(MultiHead(q_proj x, k_proj x, v_proj x)))
        x = LayerNorm(x + fc2(gelu(fc1 x)))           gelu(x) = x/2 (1 + erf(x / sqrt 2))
    pooled = tanh(pooler(x[0]))                       (optional: "pooler": true)
    logits = LayerNorm(gelu(transform x)) E_tokenᵀ + mlm.bias    (the MLM head, tied decoder)

state_dict() keys are exactly the tensor names of the model file:
    embed.token.weight [V, d], embed.position.weight [P, d], embed.segment.weight [S, d],
    embed.norm.{weight,bias} [d],
    layers.N.self_attn.{q,k,v,out}_proj.{weight,bias}, layers.N.self_attn_norm.{weight,bias},
    layers.N.ffn.fc1.{weight [d_ff, d], bias}, layers.N.ffn.fc2.{weight [d, d_ff], bias},
    layers.N.ffn_norm.{weight,bias},
    pooler.{weight [d, d], bias}            (pooler only)
    mlm.transform.{weight [d, d], bias}, mlm.norm.{weight,bias}, mlm.bias [V]

Segments: a sentence pair is "[CLS] A [SEP] B [SEP]"; every position up to and including the
first [SEP] is segment 0, every later one segment 1 (segments_of).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .export import load_one_vocabulary_file, save_model_file
from .wordpiece import DEFAULT_SPEC

CONFIG_FIELDS = [
    "architecture", "d_model", "n_heads", "d_ff", "n_layers", "n_segments", "max_positions", "layer_norm_eps",
    "pooler", "shared_embeddings", "src_append_eos", "special_tokens",
]
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def special_ids(vocab):
    """special_tokens of a config: pad, unk, bos = [CLS], eos = [SEP], mask, by their pieces."""
    index = {t: i for i, t in enumerate(vocab)}
    return {"pad": index["[PAD]"], "unk": index["[UNK]"], "bos": index["[CLS]"], "eos": index["[SEP]"],
            "mask": index["[MASK]"]}


def complete_config(config, vocab=None):
    c = {"architecture": "bert", "n_segments": 2, "layer_norm_eps": 1e-12, "pooler": False,
         "shared_embeddings": True, "src_append_eos": False}
    c.update(config)
    if "special_tokens" not in c:
        c["special_tokens"] = special_ids(vocab)
    missing = [k for k in CONFIG_FIELDS if k not in c]
    if missing:
        raise ValueError(f"config is missing {missing}")
    if c["d_model"] % c["n_heads"]:
        raise ValueError("d_model must be divisible by n_heads")
    out = {k: c[k] for k in CONFIG_FIELDS}
    out["layer_norm_eps"] = float(out["layer_norm_eps"])
    return out


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


class SelfAttention(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, rec=None, pad=None, dropout=0.0, head_mask=None):
        """x [B, T, d]; pad [B, T] (True: padding, never attended to) or None. Fills `rec` (a
        dict, for one sequence: B = 1) with q, k, v, attn and the transformed value vectors.
        head_mask [H] (1 keeps a head, 0 switches it off: its output is zeroed before the output
        projection; it still attends) or None."""
        B, T, d = x.shape
        H, dh = self.n_heads, d // self.n_heads
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        qh, kh, vh = (t.view(B, T, H, dh).transpose(1, 2) for t in (q, k, v))  # [B, H, T, dh]
        scores = qh @ kh.transpose(-1, -2) / math.sqrt(dh)
        if pad is not None:
            scores = scores.masked_fill(pad[:, None, None, :], float("-inf"))
        attn = torch.softmax(scores, dim=-1)  # [B, H, T, T]
        heads = F.dropout(attn, dropout, self.training) @ vh  # [B, H, T, dh]
        if head_mask is not None:
            heads = heads * head_mask.view(1, H, 1, 1)
        heads = heads.transpose(1, 2).reshape(B, T, d)
        if rec is not None:
            # Kobayashi et al. (2020): f_h(x_j) = v_h(x_j) W_o^h, each head's value vectors after
            # the output projection (its bias added once, outside the heads), [H * T, d].
            w_o = self.out_proj.weight.view(d, H, dh).permute(1, 2, 0)  # [H, dh, d]
            rec.update(q=q[0], k=k[0], v=v[0], attn=attn[0], transformed_values=(vh[0] @ w_o).reshape(H * T, d))
        return self.out_proj(heads)


class Layer(nn.Module):
    def __init__(self, c):
        super().__init__()
        d, eps = c["d_model"], c["layer_norm_eps"]
        self.self_attn = SelfAttention(d, c["n_heads"])
        self.self_attn_norm = nn.LayerNorm(d, eps=eps)
        self.ffn = nn.Module()
        self.ffn.fc1 = nn.Linear(d, c["d_ff"])
        self.ffn.fc2 = nn.Linear(c["d_ff"], d)
        self.ffn_norm = nn.LayerNorm(d, eps=eps)

    def forward(self, x, rec=None, pad=None, dropout=0.0, head_mask=None):
        def drop(t):
            return F.dropout(t, dropout, self.training)

        x = self.self_attn_norm(x + drop(self.self_attn(x, rec, pad, dropout, head_mask)))
        return self.ffn_norm(x + drop(self.ffn.fc2(gelu(self.ffn.fc1(x)))))


class Bert(nn.Module):
    def __init__(self, config, vocab_size, dropout=0.0):
        super().__init__()
        c = self.config = config
        self.dropout = dropout  # training only (models/train/train.py mlm)
        d, eps = c["d_model"], c["layer_norm_eps"]
        self.embed = nn.Module()
        self.embed.token = nn.Embedding(vocab_size, d)
        self.embed.position = nn.Embedding(c["max_positions"], d)
        self.embed.segment = nn.Embedding(c["n_segments"], d)
        self.embed.norm = nn.LayerNorm(d, eps=eps)
        self.layers = nn.ModuleList(Layer(c) for _ in range(c["n_layers"]))
        if c["pooler"]:
            self.pooler = nn.Linear(d, d)
        self.mlm = nn.Module()
        self.mlm.transform = nn.Linear(d, d)
        self.mlm.norm = nn.LayerNorm(d, eps=eps)
        self.mlm.bias = nn.Parameter(torch.zeros(vocab_size))

    @classmethod
    def from_config(cls, config, vocab_size):
        return cls(config, vocab_size)

    def segments_of(self, ids):
        sep = self.config["special_tokens"]["eos"]
        out, seg = [], 0
        for i in ids:
            out.append(min(seg, self.config["n_segments"] - 1))
            if i == sep:
                seg = 1
        return out

    def embed_tokens(self, ids, segments):
        """ids, segments [B, T] -> LN(token + position + segment embeddings) [B, T, d]."""
        positions = torch.arange(ids.shape[1])[None, :]
        return self.embed.norm(self.embed.token(ids) + self.embed.position(positions) + self.embed.segment(segments))

    def forward(self, ids, segments=None, head_mask=None):
        """One sequence (a list of ids). -> dict: hidden [T, d] (final), hidden_states [L+1][T, d],
        attention [L, H, T, T], per-layer q/k/v/transformed_values, pooled [d] (pooler only),
        logits [T, V]. head_mask [L, H] (0: that head switched off) or None."""
        if segments is None:
            segments = self.segments_of(ids)
        x = self.embed_tokens(torch.tensor([ids]), torch.tensor([segments]))
        states, layers = [x[0]], []
        for l, layer in enumerate(self.layers):
            rec = {}
            x = layer(x, rec, head_mask=None if head_mask is None else head_mask[l])
            rec["output"] = x[0]
            layers.append(rec)
            states.append(x[0])
        x = x[0]
        out = {"hidden": x, "hidden_states": states, "layers": layers, "segments": segments,
               "attention": torch.stack([r["attn"] for r in layers])}
        if self.config["pooler"]:
            out["pooled"] = torch.tanh(self.pooler(x[0]))
        out["logits"] = self.mlm_logits(x)
        return out

    def batch_hidden(self, ids, segments, pad):
        """A padded batch for training: ids, segments [B, T], pad [B, T] (True at padding)
        -> final hidden states [B, T, d], with dropout in training mode."""
        x = F.dropout(self.embed_tokens(ids, segments), self.dropout, self.training)
        for layer in self.layers:
            x = layer(x, None, pad, self.dropout)
        return x

    def mlm_logits(self, hidden):
        h = self.mlm.norm(gelu(self.mlm.transform(hidden)))
        return h @ self.embed.token.weight.T + self.mlm.bias


def export(model, config, vocab, path, tokenizer_spec=None, dtype="F32", name=None, description=None):
    save_model_file(path, dict(model.state_dict()), config, tokenizer_spec or DEFAULT_SPEC, vocab, vocab, dtype,
                    name, description)


def load(path):
    """-> (model [float32, eval], config, tokenizer_spec, vocab)"""
    return load_one_vocabulary_file(path, Bert)
