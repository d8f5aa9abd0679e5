"""Plain PyTorch reference of the RNN encoder-decoder family (models/FORMAT.md, "architecture": "rnn").

Written from the papers, independently of the C++ engine:
  * Bahdanau, Cho, Bengio 2015, "Neural Machine Translation by Jointly Learning to Align and
    Translate": the score uses the previous decoder state s_{i-1}; the context c_i is part of the
    RNN's input.
  * Luong, Pham, Manning 2015, "Effective Approaches to Attention-based Neural Machine
    Translation": the score uses the current state h_t; attentional hidden state
    h~_t = tanh(W_c [c_t; h_t]); optional input feeding (h~_{t-1} joins the next input);
    local-p attention (a predicted centre p_t and a Gaussian window, sigma = D / 2).
  * The no-attention baseline (Cho et al. 2014): the decoder starts from, and is fed at every
    step, the encoder's final state only.

The cells are PyTorch's own (nn.GRU / nn.LSTM for the encoder, nn.GRUCell / nn.LSTMCell for the
decoder), so the gate orders are PyTorch's (GRU r, z, n; LSTM i, f, g, o) and the tensors are
stored exactly as PyTorch names them. state_dict() keys are the model file's tensor names.

One step of the decoder, for one hypothesis (s: the top decoder layer's hidden state, H: the
encoder states [S, d_mem], e: the target embedding of the previous token):

  bahdanau:  scores = score(s_{i-1}, H); a = softmax(scores); c = a H
             s_i = RNN([e; c], s_{i-1});  logits = output([s_i; c])
  luong:     s_i = RNN([e; h~_{i-1}] if input_feeding else e, s_{i-1})
             scores = score(s_i, H); a = softmax(scores); c = a H
             h~_i = tanh(W_c [c; s_i]);  logits = output(h~_i)
  none:      c = final (the encoder's final state, fixed); as bahdanau otherwise

score(q, H)_j:  additive   v . tanh(W_q q + W_k h_j)
                dot        q . h_j
                scaled_dot q . h_j / sqrt(d)
                general    q . (W_a h_j)
                cosine     q . h_j / max(|q| |h_j|, 1e-8)
                location   (W_a q)_j: "a softmax over one fully connected layer" (Luong's
                           location-based score); W_a [max_positions, d_hidden] has a row per
                           source position, cut to the sentence's S; H enters only through c
local-p (local_window D > 0): p = (S - 1) sigmoid(v_p . tanh(W_p q)); the softmax runs over the
positions j with |j - p| <= D only, and a_j is then multiplied by exp(-(j - p)^2 / (2 (D/2)^2))
(not renormalised, as in the paper); every other a_j is 0. (Luong uses S sigmoid(...) with
1-based positions; with 0-based positions (S - 1) keeps p inside the sentence.)

The encoder's final state `final` is [forward h at the last position; backward h at the first
position] of the top layer (just the last position's state when unidirectional). Every decoder
layer starts from tanh(bridge(final)); an LSTM's cell starts at 0; h~_0 = 0.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from .interventions import pattern_weights
from .tokenizer import SPECIAL_TOKENS

STYLES = ("bahdanau", "luong", "none")
SCORES = ("additive", "dot", "scaled_dot", "general", "cosine", "location")

DEFAULT_CONFIG = {
    "architecture": "rnn",
    "bidirectional": False,
    "n_encoder_layers": 1,
    "n_decoder_layers": 1,
    "input_feeding": False,
    "local_window": 0,
    "d_attention": 0,
    "shared_embeddings": False,
    "src_append_eos": True,
    "special_tokens": dict(SPECIAL_TOKENS),
}

CONFIG_FIELDS = [
    "architecture", "cell", "d_embed", "d_encoder", "d_hidden", "n_encoder_layers", "n_decoder_layers",
    "bidirectional", "attention", "score", "d_attention", "input_feeding", "local_window", "max_positions",
    "shared_embeddings", "src_append_eos", "special_tokens",
]


def complete_config(config):
    """Fill defaults, check values, return a new dict with exactly the FORMAT.md rnn config fields."""
    c = dict(DEFAULT_CONFIG)
    c.update(config)
    if c["attention"] == "none":
        c.setdefault("score", "none")
    missing = [k for k in CONFIG_FIELDS if k not in c]
    if missing:
        raise ValueError(f"config is missing {missing}")
    if c["cell"] not in ("gru", "lstm"):
        raise ValueError(f"bad cell {c['cell']!r}")
    if c["attention"] not in STYLES:
        raise ValueError(f"bad attention {c['attention']!r}")
    if c["attention"] == "none":
        c["score"], c["d_attention"], c["input_feeding"], c["local_window"] = "none", 0, False, 0
    elif c["score"] not in SCORES:
        raise ValueError(f"bad score {c['score']!r}")
    d_mem = c["d_encoder"] * (2 if c["bidirectional"] else 1)
    if c["score"] in ("dot", "scaled_dot", "cosine") and d_mem != c["d_hidden"]:
        raise ValueError(f"score {c['score']} needs encoder states of d_hidden = {c['d_hidden']} values, not {d_mem}")
    if (c["score"] == "additive") != (c["d_attention"] > 0):
        raise ValueError("d_attention > 0 exactly with the additive score")
    if c["input_feeding"] and c["attention"] != "luong":
        raise ValueError("input_feeding is Luong's")
    out = {k: c[k] for k in CONFIG_FIELDS}
    out["special_tokens"] = {k: int(out["special_tokens"][k]) for k in ("pad", "unk", "bos", "eos")}
    return out


def d_memory(c):
    return c["d_encoder"] * (2 if c["bidirectional"] else 1)


class Attention(nn.Module):
    """score(q, H) for one query q [d_hidden] over the encoder states H [S, d_mem]."""

    def __init__(self, c):
        super().__init__()
        self.kind, self.window = c["score"], c["local_window"]
        d_mem, h = d_memory(c), c["d_hidden"]
        if self.kind == "additive":
            self.query_proj = nn.Linear(h, c["d_attention"], bias=False)  # W_q
            self.key_proj = nn.Linear(d_mem, c["d_attention"], bias=False)  # W_k
            self.v = nn.Linear(c["d_attention"], 1, bias=False)
        elif self.kind == "general":
            self.key_proj = nn.Linear(d_mem, h, bias=False)  # W_a
        elif self.kind == "location":
            self.location_proj = nn.Linear(h, c["max_positions"], bias=False)  # W_a, a row per source position
        if self.window > 0:
            self.position_proj = nn.Linear(h, h, bias=False)  # W_p
            self.position_v = nn.Linear(h, 1, bias=False)  # v_p

    def scores(self, q, H):
        """Energies [..., S] of the query q [..., d_hidden] over H [..., S, d_mem] (a leading batch
        dimension is optional: the training forward scores a whole batch at once)."""
        if self.kind == "additive":
            return self.v(torch.tanh(self.query_proj(q).unsqueeze(-2) + self.key_proj(H)))[..., 0]
        if self.kind == "dot":
            return (H @ q.unsqueeze(-1))[..., 0]
        if self.kind == "scaled_dot":
            return (H @ q.unsqueeze(-1))[..., 0] / math.sqrt(q.shape[-1])
        if self.kind == "general":
            return (self.key_proj(H) @ q.unsqueeze(-1))[..., 0]
        if self.kind == "cosine":
            return (H @ q.unsqueeze(-1))[..., 0] / torch.clamp(
                q.norm(dim=-1, keepdim=True) * H.norm(dim=-1), min=1e-8)
        if self.kind == "location":
            return self.location_proj(q)[..., :H.shape[-2]]
        raise ValueError(self.kind)

    def forward(self, q, H, lengths=None):
        """-> (weights a [..., S], energies [..., S] before the softmax, centre p [...] or None).
        `lengths` [...]: the real source lengths of a padded batch (positions past them get 0)."""
        e = self.scores(q, H)
        S = H.shape[-2]
        j = torch.arange(S, dtype=torch.float32, device=e.device)
        n = torch.full(e.shape[:-1], S, device=e.device) if lengths is None else lengths
        valid = j < n[..., None]
        if self.window == 0:
            return torch.softmax(e.masked_fill(~valid, -math.inf), dim=-1), e, None
        p = (n - 1) * torch.sigmoid(self.position_v(torch.tanh(self.position_proj(q))))[..., 0]
        inside = ((j - p[..., None]).abs() <= self.window) & valid
        a = torch.softmax(e.masked_fill(~inside, -math.inf), dim=-1)
        sigma = self.window / 2.0
        a = a * torch.exp(-((j - p[..., None]) ** 2) / (2 * sigma * sigma))
        return a, e, p


class RNNSeq2Seq(nn.Module):
    def __init__(self, config, src_vocab_size, tgt_vocab_size, dropout=0.0):
        super().__init__()
        c = self.config = complete_config(config)
        # Training only (forward() in train mode): on the embeddings and on the output's input.
        self.dropout = nn.Dropout(dropout)
        E, He, H = c["d_embed"], c["d_encoder"], c["d_hidden"]
        d_mem = d_memory(c)
        rnn = nn.GRU if c["cell"] == "gru" else nn.LSTM
        cell = nn.GRUCell if c["cell"] == "gru" else nn.LSTMCell
        self.src_embed = nn.Embedding(src_vocab_size, E)
        if not c["shared_embeddings"]:
            self.tgt_embed = nn.Embedding(tgt_vocab_size, E)
        self.encoder = nn.Module()
        self.encoder.rnn = rnn(E, He, num_layers=c["n_encoder_layers"], bidirectional=c["bidirectional"])
        self.bridge = nn.Linear(d_mem, H)
        self.decoder = nn.Module()
        style = c["attention"]
        feed = d_mem if style in ("bahdanau", "none") else (H if c["input_feeding"] else 0)
        self.decoder.cells = nn.ModuleList(
            [cell(E + feed if l == 0 else H, H) for l in range(c["n_decoder_layers"])])
        if style != "none":
            self.attention = Attention(c)
        if style == "luong":
            self.combine = nn.Linear(d_mem + H, H, bias=False)  # W_c
            self.output = nn.Linear(H, tgt_vocab_size)
        else:
            self.output = nn.Linear(H + d_mem, tgt_vocab_size)

    @classmethod
    def from_config(cls, config, src_vocab_size, tgt_vocab_size):
        return cls(config, src_vocab_size, tgt_vocab_size)

    def special(self, name):
        return self.config["special_tokens"][name]

    def tgt_embedding(self):
        return self.src_embed if self.config["shared_embeddings"] else self.tgt_embed

    # ------------------------------------------------------------------ encoder
    def encode(self, src_ids):
        """-> (H [S, d_mem], final [d_mem])"""
        x = self.src_embed(torch.tensor(src_ids))[:, None, :]  # [S, 1, E]
        out, _ = self.encoder.rnn(x)
        H = out[:, 0, :]
        He = self.config["d_encoder"]
        final = torch.cat([H[-1, :He], H[0, He:]]) if self.config["bidirectional"] else H[-1]
        return H, final

    def start(self, final):
        s0 = torch.tanh(self.bridge(final))
        L = self.config["n_decoder_layers"]
        h = [s0.clone() for _ in range(L)]
        c = [torch.zeros_like(s0) for _ in range(L)] if self.config["cell"] == "lstm" else None
        feed = torch.zeros(self.config["d_hidden"])
        return {"h": h, "c": c, "feed": feed}

    def _rnn(self, x, state):
        h, c = self._recur(x[None, :], [h[None, :] for h in state["h"]],
                           [c[None, :] for c in state["c"]] if state["c"] is not None else None)
        return [hl[0] for hl in h], ([cl[0] for cl in c] if c is not None else None)

    def _recur(self, x, h, c):
        """The decoder layers on input x [B, in] from states h (and c) [layer] [B, H] -> new h, c."""
        h, c = list(h), (list(c) if c is not None else None)
        for l, cell in enumerate(self.decoder.cells):
            if c is None:
                h[l] = cell(x, h[l])
            else:
                h[l], c[l] = cell(x, (h[l], c[l]))
            x = h[l]
        return h, c

    @staticmethod
    def _intervene(intervention, a, ctx, H, final):
        """The engine's interventions (src/model/interventions.h) on one step's attention and
        context: an attention pattern replaces a (and so c = a H); "mean" ("no attention") puts
        the mean encoder state in c's place, "last" ("last state only") the final state."""
        if intervention in ("uniform", "beginning", "end") and a is not None:
            a = pattern_weights(intervention, H.shape[0]).to(torch.float32)
            ctx = a @ H
        elif intervention == "mean":
            ctx = H.mean(dim=0)
        elif intervention == "last":
            ctx = final
        return a, ctx

    def step(self, token, state, H, final, intervention=None):
        """One decoder step. -> (logits [V], new state, record of the step's values)"""
        style = self.config["attention"]
        e = self.tgt_embedding()(torch.tensor(token))
        rec = {}
        if style in ("bahdanau", "none"):
            if style == "bahdanau":
                a, energies, p = self.attention(state["h"][-1], H)
                ctx = a @ H
                rec.update(attention=a, energies=energies, centre=p)
            else:
                a, ctx = None, final
            a, ctx = self._intervene(intervention, a, ctx, H, final)
            if a is not None:
                rec["attention"] = a
            h, c = self._rnn(torch.cat([e, ctx]), state)
            logits = self.output(torch.cat([h[-1], ctx]))
            feed = state["feed"]
        else:
            x = torch.cat([e, state["feed"]]) if self.config["input_feeding"] else e
            h, c = self._rnn(x, state)
            a, energies, p = self.attention(h[-1], H)
            ctx = a @ H
            a, ctx = self._intervene(intervention, a, ctx, H, final)
            feed = torch.tanh(self.combine(torch.cat([ctx, h[-1]])))
            logits = self.output(feed)
            rec.update(attention=a, energies=energies, centre=p, attentional=feed)
        rec.update(context=ctx, hidden=h[-1])
        return logits, {"h": h, "c": c, "feed": feed}, rec

    @torch.no_grad()
    def greedy_decode(self, src_ids, max_steps, intervention=None):
        """Greedy decoding of one sentence, recording every step's values. `intervention`:
        None, "uniform" / "beginning" / "end" (attention replaced), "mean" or "last" (context)."""
        H, final = self.encode(src_ids)
        state = self.start(final)
        token, out, steps = self.special("bos"), [], []
        limit = min(max_steps, self.config["max_positions"] - 1)
        for _ in range(limit):
            logits, state, rec = self.step(token, state, H, final, intervention)
            log_probs = torch.log_softmax(logits, dim=0)
            token = int(torch.argmax(logits))
            out.append(token)
            step = {"logits": logits, "log_probs": log_probs, "token": token,
                    "hidden": rec["hidden"], "context": rec["context"]}
            if "attention" in rec:
                step["attention"] = rec["attention"]
                step["energies"] = rec["energies"]
            if "attentional" in rec:
                step["attentional"] = rec["attentional"]
            steps.append(step)
            if token == self.special("eos"):
                break
        return {"encoder_states": H, "encoder_final": final, "output_ids": out, "steps": steps}

    # ------------------------------------------------------------------ training (batched)
    def forward(self, src, tgt_in):
        """Teacher-forced logits [B, T, V] of a padded batch (src [B, S], tgt_in [B, T], each
        sentence followed by <pad>): what step() computes, for every sentence at once, with the
        padding kept out of the encoder (packed sequences) and out of the attention.
        models/reference/check_reference.py compares it with greedy_decode on the RNN goldens."""
        c = self.config
        pad = self.special("pad")
        B = src.shape[0]
        lengths = (src != pad).sum(1)
        x = self.dropout(self.src_embed(src))
        # pack_padded_sequence takes the lengths on the CPU, wherever the batch lives.
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths.cpu(), batch_first=True, enforce_sorted=False)
        out, _ = self.encoder.rnn(packed)
        H, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])  # [B, S, d_mem]
        last = H[torch.arange(B, device=src.device), lengths - 1]
        He = c["d_encoder"]
        final = torch.cat([last[:, :He], H[:, 0, He:]], dim=1) if c["bidirectional"] else last

        s0 = torch.tanh(self.bridge(final))
        L = c["n_decoder_layers"]
        h = [s0] * L
        cell = [torch.zeros_like(s0)] * L if c["cell"] == "lstm" else None
        feed = torch.zeros_like(s0)
        E = self.dropout(self.tgt_embedding()(tgt_in))  # [B, T, E]
        style = c["attention"]
        outs = []
        for t in range(tgt_in.shape[1]):
            e = E[:, t]
            if style in ("bahdanau", "none"):
                if style == "bahdanau":
                    a = self.attention(h[-1], H, lengths)[0]
                    ctx = (a.unsqueeze(1) @ H)[:, 0]
                else:
                    ctx = final
                h, cell = self._recur(torch.cat([e, ctx], dim=1), h, cell)
                outs.append(torch.cat([h[-1], ctx], dim=1))
            else:
                h, cell = self._recur(torch.cat([e, feed], dim=1) if c["input_feeding"] else e, h, cell)
                a = self.attention(h[-1], H, lengths)[0]
                ctx = (a.unsqueeze(1) @ H)[:, 0]
                feed = torch.tanh(self.combine(torch.cat([ctx, h[-1]], dim=1)))
                outs.append(feed)
        return self.output(self.dropout(torch.stack(outs, dim=1)))
