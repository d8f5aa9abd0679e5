"""Interventions ("break the model") in plain PyTorch: the Python reading of the rules written in
src/model/interventions.h, for goldens (models/goldens/make_intervention_goldens.py).

It takes the parameters of a loaded `Transformer` but runs its own forward pass: the whole target
prefix is recomputed at every step under a causal mask (no key/value cache), and each head is
handled on its own, so it shares no code path with the engine's cached, batched step.

An intervention set is the JSON form the engine and the JS API take (`interventions` in
src/decoding/README.md):
  {"attention": [{"site": "encoder"|"self"|"cross", "layer": int|"*", "head": int|"*",
                  "pattern": "uniform"|"beginning"|"end"}],
   "maskHeads": [{"site": ..., "layer": int, "head": int}],
   "skip": ["encoderSelfAttention", "decoderSelfAttention", "crossAttention", "ffn", "layerNorm"],
   "copySourceEncoding": bool}
Rules (from src/model/interventions.h):
  * patterns, per head over the K positions it attends to: uniform 1/K; beginning 0.5, 0.25,
    0.15 on the first three and 0.1 shared by the other K-3 (K <= 3: the first K renormalised);
    end: everything on the last position (for decoder self-attention, the current token);
  * a masked head still attends but its context is zeroed before the output projection;
  * a skipped sub-layer adds nothing: pre-norm x, post-norm LN(x);
  * skipping LayerNorm makes every LayerNorm the identity, the final norms of pre-norm included;
  * copySourceEncoding: every cross-attention sub-layer outputs the mean of the encoder output.
"""

import math

import torch
import torch.nn.functional as F

from .search import decode_limit

SKIPS = {"encoderSelfAttention", "decoderSelfAttention", "crossAttention", "ffn", "layerNorm"}


def pattern_weights(pattern, keys):
    """The replacement attention row over `keys` positions."""
    w = torch.zeros(keys, dtype=torch.float32)
    if pattern == "uniform":
        w[:] = 1.0 / keys
    elif pattern == "beginning":
        front = torch.tensor([0.5, 0.25, 0.15], dtype=torch.float32)[:keys]
        if keys > 3:
            w[:3] = front
            w[3:] = 0.1 / (keys - 3)
        else:
            w[:] = front / front.sum()
    elif pattern == "end":
        w[-1] = 1.0
    else:
        raise ValueError(f"pattern {pattern!r} is not covered by this reference")
    return w


class Edits:
    """An intervention set (JSON form above), answering per site, layer and head."""

    def __init__(self, spec):
        spec = spec or {}
        unknown = set(spec) - {"attention", "maskHeads", "skip", "copySourceEncoding"}
        if unknown:
            raise ValueError(f"unknown intervention keys {sorted(unknown)}")
        self.attention = list(spec.get("attention", []))
        self.masked = {(m["site"], m["layer"], m["head"]) for m in spec.get("maskHeads", [])}
        self.skip = set(spec.get("skip", []))
        if self.skip - SKIPS:
            raise ValueError(f"unknown skip {sorted(self.skip - SKIPS)}")
        self.copy_source = bool(spec.get("copySourceEncoding", False))

    def pattern(self, site, layer, head):
        """The last override that names this head wins (as a list applied in order)."""
        found = None
        for o in self.attention:
            if o["site"] == site and o.get("layer", "*") in ("*", layer) and o.get("head", "*") in ("*", head):
                found = o["pattern"]
        return found

    def norm(self, x, ln):
        return x if "layerNorm" in self.skip else ln(x)


def _attend(edits, site, layer, attn_module, xq, xkv, causal):
    """Multi-head attention written head by head, with the site's edits. xq [Tq, d], xkv [Tk, d]."""
    q, k, v = attn_module.q_proj(xq), attn_module.k_proj(xkv), attn_module.v_proj(xkv)
    n_heads, dh = attn_module.n_heads, attn_module.d_head
    tq, tk = q.shape[0], k.shape[0]
    context = []
    for h in range(n_heads):
        cols = slice(h * dh, (h + 1) * dh)
        scores = q[:, cols] @ k[:, cols].t() / math.sqrt(dh)
        if causal:
            scores = scores.masked_fill(torch.ones(tq, tk, dtype=torch.bool).triu(1), float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        pattern = edits.pattern(site, layer, h)
        if pattern is not None:
            # query i of a causal site sees keys 0..i; the others see all tk keys
            attn = torch.stack([
                F.pad(pattern_weights(pattern, i + 1), (0, tk - i - 1)) if causal else pattern_weights(pattern, tk)
                for i in range(tq)])
        ctx = attn @ v[:, cols]
        if (site, layer, h) in edits.masked:
            ctx = torch.zeros_like(ctx)
        context.append(ctx)
    return attn_module.out_proj(torch.cat(context, dim=-1))


def _sublayer(edits, x, ln, f, skipped, norm_position):
    """A residual sub-layer with its edits: pre x + f(LN(x)), post LN(x + f(x))."""
    if norm_position == "pre":
        out = f(edits.norm(x, ln))  # the sub-layer still runs (its attention is still observable)
        return x if skipped else x + out
    out = f(x)
    return edits.norm(x if skipped else x + out, ln)


@torch.no_grad()
def encode(model, src_ids, edits):
    c = model.config
    x = model.src_embed(torch.tensor(src_ids)) * c["embedding_scale"] + model.encoder.positional(0, len(src_ids))
    for i, layer in enumerate(model.encoder.layers):
        x = _sublayer(edits, x, layer.self_attn_norm,
                      lambda h: _attend(edits, "encoder", i, layer.self_attn, h, h, causal=False),
                      "encoderSelfAttention" in edits.skip, c["norm"])
        x = _sublayer(edits, x, layer.ffn_norm, layer.ffn, "ffn" in edits.skip, c["norm"])
    if model.encoder.final_norm is not None:
        x = edits.norm(x, model.encoder.final_norm)
    return x


@torch.no_grad()
def next_logits(model, memory, prefix, edits):
    """Logits of the token after <s> + prefix, recomputing the whole prefix."""
    c = model.config
    tokens = [model.special("bos")] + list(prefix)
    y = model.target_embedding(torch.tensor(tokens)) * c["embedding_scale"] + model.decoder.positional(0, len(tokens))
    mean = memory.mean(dim=0)
    for i, layer in enumerate(model.decoder.layers):
        y = _sublayer(edits, y, layer.self_attn_norm,
                      lambda h: _attend(edits, "self", i, layer.self_attn, h, h, causal=True),
                      "decoderSelfAttention" in edits.skip, c["norm"])

        def cross(h):
            out = _attend(edits, "cross", i, layer.cross_attn, h, memory, causal=False)
            return mean.expand_as(out) if edits.copy_source else out

        y = _sublayer(edits, y, layer.cross_attn_norm, cross, "crossAttention" in edits.skip, c["norm"])
        y = _sublayer(edits, y, layer.ffn_norm, layer.ffn, "ffn" in edits.skip, c["norm"])
    if model.decoder.final_norm is not None:
        y = edits.norm(y, model.decoder.final_norm)
    return model.logits(y[-1])


def greedy(model, src_ids, spec):
    """Greedy decoding (lowest id on ties) under the intervention set `spec`, to </s> or the
    default limit (max_positions - 1 tokens). -> (tokens, hit_max_length)"""
    edits = Edits(spec)
    memory = encode(model, src_ids, edits)
    limit = decode_limit(model.config["max_positions"], len(src_ids))
    eos = model.special("eos")
    tokens = []
    while len(tokens) < limit:
        logits = next_logits(model, memory, tokens, edits)
        t = int(torch.nonzero(logits == logits.max())[0, 0])
        tokens.append(t)
        if t == eos:
            return tokens, False
    return tokens, True
