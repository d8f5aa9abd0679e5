"""Greedy decoding, beam search and sampling over a `Transformer`, exactly as specified in
src/decoding/README.md (the binding specification; this file is its Python reference).

Conventions (shared with the C++ engine):
  * per-step log-probabilities are the float32 `log_softmax` of the float32 logits, computed one
    hypothesis at a time (batch 1) with the same incremental `DecoderLayer.step` path as
    `Transformer.greedy_decode`, so they are bit-identical to it;
  * cumulative scores are Python floats (double): `s = s + float(logp_f32)`;
  * sampling arithmetic is double precision (float32 logits converted to double);
  * `u = (x >> 11) * 2**-53` with x from mt19937_64(seed) (pure-Python `MT19937_64` below).

Choices where the specification leaves room (also listed in tests/golden/README.md):
  * min_length: `</s>` is forbidden while the hypothesis has n < min_length generated tokens, so a
    finished hypothesis has at least min_length tokens before its `</s>`.
  * max_length_b is only used together with max_length_a > 0 (as the spec's formula says).
  * Candidates whose total is -inf (`</s>` under min_length) are not candidates at all.
  * Repetition rules (src/decoding/README.md, "Repetition"): both look at the hypothesis' generated
    tokens only (no <s>; forced prefix tokens count). no_repeat_ngram bans, like min_length, without
    renormalising; repetition_penalty rewrites the float32 logits (in double, rounded once to float32)
    and the choice and the score then use the float32 log_softmax of the rewritten row. A ban rule
    (min_length first, then no_repeat_ngram) whose bans would leave no token at all is skipped.
  * Within one step, hypotheses are added to the finished list in candidate rank order; live
    hypotheses that reach `limit` are appended afterwards, in beam order, as `finished = False`
    ("cut"). This happens before the stopping rule is checked, and because every live
    hypothesis has the same length, the beam is then empty and the search stops with
    hit_max_length = True (even when the cut hypotheses do not make it into the n-best).
  * The stopping rule only counts hypotheses that ended with `</s>` (cut ones only exist at the
    very end anyway).
  * Sampling: top-p works on the (not renormalised) full-softmax probabilities of the tokens kept
    by top-k; if no prefix reaches p, all kept tokens stay. One u is drawn every step, even when
    only one token is left. Cumulative probabilities are renormalised probabilities
    `p_i / sum(kept)` added one by one in the sorted order; the sum is also accumulated in that
    order.
"""

import math

import numpy as np
import torch

# ----------------------------------------------------------------------------- mt19937_64

_MASK64 = (1 << 64) - 1


class MT19937_64:
    """std::mt19937_64 (w=64, n=312, m=156, r=31), seeded like `std::mt19937_64(seed)`."""

    N, M = 312, 156
    MATRIX_A = 0xB5026F5AA96619E9
    UPPER = 0xFFFFFFFF80000000  # most significant w - r = 33 bits
    LOWER = 0x000000007FFFFFFF  # least significant r = 31 bits

    def __init__(self, seed=5489):
        mt = [0] * self.N
        mt[0] = seed & _MASK64
        for i in range(1, self.N):
            prev = mt[i - 1]
            mt[i] = (6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK64
        self.mt = mt
        self.index = self.N

    def _twist(self):
        mt, n, m = self.mt, self.N, self.M
        for i in range(n):
            x = (mt[i] & self.UPPER) | (mt[(i + 1) % n] & self.LOWER)
            xa = x >> 1
            if x & 1:
                xa ^= self.MATRIX_A
            mt[i] = mt[(i + m) % n] ^ xa
        self.index = 0

    def __call__(self):
        """Next 64-bit output."""
        if self.index >= self.N:
            self._twist()
        y = self.mt[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        y ^= y >> 43
        return y & _MASK64

    def uniform(self):
        """u in [0, 1): (x >> 11) * 2^-53, exact in double."""
        return (self() >> 11) * (2.0 ** -53)


MT19937_64_CHECK = 9981545732273789042  # the 10000th output of a default-seeded (5489) engine


# ----------------------------------------------------------------------------- limits, penalties

def decode_limit(max_positions, src_len, max_length=0, max_length_a=0.0, max_length_b=0.0):
    """Number of tokens a hypothesis may generate (src_len includes the appended </s>)."""
    limit = max_positions - 1
    if max_length > 0:
        limit = min(limit, max_length)
    if max_length_a > 0:
        limit = min(limit, math.floor(max_length_a * src_len + max_length_b))
    return max(1, limit)


def length_penalty(kind, length, alpha=0.0):
    if kind == "none":
        return 1.0
    if kind == "average":
        return float(length)
    if kind == "gnmt":
        return ((5.0 + length) / 6.0) ** alpha
    if kind == "power":  # Hugging Face's sequences_scores: s / len^length_penalty
        return float(length) ** alpha
    raise ValueError(f"unknown length penalty {kind!r}")


def normalized(kind, score, length, alpha=0.0):
    if kind == "none":
        return score
    return score / length_penalty(kind, length, alpha)


# ----------------------------------------------------------------------------- incremental decoder

class Decoder:
    """Incremental decoder for one source sentence. `log_probs(prefix)` returns the float32
    log-probabilities (numpy [V]) of the token following `prefix` (generated ids, no <s>).
    Every prefix is computed once, by extending its parent's key/value caches by one token
    (the parent's caches are copied, never modified: a hypothesis may have several children)."""

    def __init__(self, model, src_ids):
        self.model = model
        self.config = model.config
        self.bos = model.special("bos")
        self.eos = model.special("eos")
        self.src_ids = list(src_ids)
        with torch.no_grad():
            src = torch.tensor([self.src_ids], dtype=torch.long)
            memory = model.encode(src)  # no padding in a single sentence
            root = [layer.start_cache(memory) for layer in model.decoder.layers]
        # prefix tuple -> (caches after feeding <s> + prefix, log-probs of the next token)
        self._states = {}
        self._root_caches = root
        self.forward_steps = 0

    def _copy(self, caches):
        # DecoderLayer.step replaces cache["k"]/["v"] by new tensors (torch.cat): a shallow copy
        # of each layer's dict is a full copy as far as the parent is concerned.
        return [dict(c) for c in caches]

    def _state(self, prefix):
        prefix = tuple(prefix)
        st = self._states.get(prefix)
        if st is not None:
            return st
        if prefix:
            parent_caches, _ = self._state(prefix[:-1])
            token = prefix[-1]
        else:
            parent_caches, token = self._root_caches, self.bos
        caches = self._copy(parent_caches)
        model = self.model
        t = len(prefix)  # position of the fed token (<s> is position 0)
        with torch.no_grad():
            tok = torch.tensor([[token]], dtype=torch.long)
            y = model.target_embedding(tok) * self.config["embedding_scale"] + model.decoder.positional(t, 1)
            for layer, cache in zip(model.decoder.layers, caches):
                y = layer.step(y, cache, {})
            logits = model.logits(model.decoder.finish(y))[0, 0]
            log_probs = torch.log_softmax(logits, dim=-1)
        self.forward_steps += 1
        st = (caches, (logits.numpy().astype(np.float32), log_probs.numpy().astype(np.float32)))
        self._states[prefix] = st
        return st

    def logits(self, prefix):
        return self._state(prefix)[1][0]

    def log_probs(self, prefix):
        return self._state(prefix)[1][1]


# ----------------------------------------------------------------------------- decoding rules

def ngram_bans(tokens, n):
    """Tokens that would complete an n-gram already present in `tokens` (fairseq's / HF's
    no_repeat_ngram_size, over the generated tokens only)."""
    if n <= 0 or len(tokens) + 1 < n:
        return set()
    seen = {}  # (n-1)-gram -> the tokens that followed it
    for i in range(len(tokens) - n + 1):
        gram = tuple(tokens[i:i + n])
        seen.setdefault(gram[:-1], set()).add(gram[-1])
    return set(seen.get(tuple(tokens[len(tokens) - (n - 1):]), ()))


def penalized_logits(logits_f32, tokens, theta):
    """CTRL repetition penalty (Keskar et al. 2019) in HF's sign-aware form: the logit x of each
    token already generated becomes x / theta if x > 0 else x * theta (double, then float32)."""
    z = np.array(logits_f32, dtype=np.float32)
    for t in set(tokens):
        x = float(z[t])
        z[t] = np.float32(x / theta if x > 0 else x * theta)
    return z


def banned_tokens(tokens, vocab, eos, min_length=0, no_repeat_ngram=0):
    """Ids that may not come next. Rules in order (min_length, no_repeat_ngram); a rule whose bans
    together with the earlier rules' would cover the whole vocabulary is skipped."""
    rules = []
    if len(tokens) < min_length:
        rules.append({eos})
    if no_repeat_ngram > 0:
        rules.append(ngram_bans(tokens, no_repeat_ngram))
    banned = set()
    for b in rules:
        if len(banned | b) < vocab:
            banned |= b
    return banned


def choice_rows(dec, tokens, repetition_penalty=1.0):
    """(float32 logits, float32 log-probs) that choose and score the token after `tokens`: the
    model's own, or those of the logits rewritten by the repetition penalty."""
    if repetition_penalty == 1.0:
        return dec.logits(tokens), dec.log_probs(tokens)
    z = penalized_logits(dec.logits(tokens), tokens, repetition_penalty)
    with torch.no_grad():
        lp = torch.log_softmax(torch.from_numpy(z), dim=-1).numpy().astype(np.float32)
    return z, lp


def _limit_for(model, src_ids, max_length=0, max_length_a=0.0, max_length_b=0.0):
    return decode_limit(model.config["max_positions"], len(src_ids), max_length, max_length_a, max_length_b)


# ----------------------------------------------------------------------------- greedy

def greedy(model, src_ids, max_length=0, max_length_a=0.0, max_length_b=0.0, min_length=0, decoder=None,
           no_repeat_ngram=0, repetition_penalty=1.0):
    """Arg-max of the (penalised) logits (lowest id on ties) over the tokens not banned (</s> while
    n < min_length, repeated n-grams). -> {"tokens", "score", "finished", "hit_max_length"}"""
    dec = decoder or Decoder(model, src_ids)
    limit = _limit_for(model, src_ids, max_length, max_length_a, max_length_b)
    tokens, score = [], 0.0
    while len(tokens) < limit:
        z, logp = choice_rows(dec, tokens, repetition_penalty)
        logits = z.astype(np.float64)
        for b in banned_tokens(tokens, logits.shape[0], dec.eos, min_length, no_repeat_ngram):
            logits[b] = -math.inf
        t = int(np.flatnonzero(logits == logits.max())[0])
        score = score + float(logp[t])
        tokens.append(t)
        if t == dec.eos:
            return {"tokens": tokens, "score": score, "finished": True, "hit_max_length": False}
    return {"tokens": tokens, "score": score, "finished": False, "hit_max_length": True}


# ----------------------------------------------------------------------------- beam search

def beam_search(model, src_ids, beam_size, nbest=1, length_penalty_kind="none", alpha=0.0, max_length=0,
                max_length_a=0.0, max_length_b=0.0, min_length=0, decoder=None, no_repeat_ngram=0,
                repetition_penalty=1.0, early_stopping="bound"):
    """Beam search as in src/decoding/README.md. early_stopping: "bound" (the engine's rule) or
    Hugging Face's "heuristic" (False), "early" (True), "never".

    Returns {"nbest": [{"tokens", "score", "normalized_score", "finished"}], "hit_max_length",
    "stop_reason" ("stopping_rule" | "limit" | "no_live"), "limit", "steps": [state after each step],
    "decisions": [per-step diagnostics used by the robustness checks]}.
    """
    k, n_best = int(beam_size), int(nbest)
    if k < 1 or not 1 <= n_best <= k:
        raise ValueError("need 1 <= nbest <= beam_size")
    dec = decoder or Decoder(model, src_ids)
    eos = dec.eos
    limit = _limit_for(model, src_ids, max_length, max_length_a, max_length_b)
    lp = length_penalty_kind

    def norm(score, length):
        return normalized(lp, score, length, alpha)

    live = [{"tokens": [], "score": 0.0}]
    finished = []  # in finishing order: {"tokens", "score", "normalized_score", "finished", "order"}
    steps, decisions = [], []
    hit_max_length = False
    stop_reason = None
    while True:
        # candidates (h, t) with total s_h + log p(t)
        cands = []
        for h, hyp in enumerate(live):
            logp = choice_rows(dec, hyp["tokens"], repetition_penalty)[1]
            banned = banned_tokens(hyp["tokens"], logp.shape[0], eos, min_length, no_repeat_ngram)
            for t in range(logp.shape[0]):
                if t in banned:
                    continue
                lpt = float(logp[t])
                if lpt == -math.inf:
                    continue
                cands.append((-(hyp["score"] + lpt), h, t, lpt))
        cands.sort(key=lambda c: (c[0], c[1], c[2]))  # total desc, then h asc, then t asc
        ranked = [(-c[0], c[1], c[2], c[3]) for c in cands]  # (total, h, t, logp)
        looked = ranked[:2 * k]

        def outcome(order):
            fin, nxt = [], []
            for r, (_total, h, t, _lp) in enumerate(order):
                if t == eos:
                    if r < k:
                        fin.append((h, t))
                elif len(nxt) < k:
                    nxt.append((h, t))
            return fin, nxt

        fin_ht, next_ht = outcome(looked)
        decisions.append({"ranked": ranked[:2 * k + 1], "outcome": (fin_ht, next_ht), "outcome_fn": outcome,
                          "blocked_eos": any(len(hyp["tokens"]) < min_length for hyp in live)})
        by_ht = {(c[1], c[2]): c for c in looked}
        for h, t in fin_ht:
            total = by_ht[(h, t)][0]
            toks = live[h]["tokens"] + [t]
            finished.append({"tokens": toks, "score": total, "normalized_score": norm(total, len(toks)),
                             "finished": True, "order": len(finished)})
        new_live = []
        for h, t in next_ht:
            new_live.append({"tokens": live[h]["tokens"] + [t], "score": by_ht[(h, t)][0]})
        live = []
        for hyp in new_live:
            if len(hyp["tokens"]) >= limit:
                finished.append({"tokens": hyp["tokens"], "score": hyp["score"],
                                 "normalized_score": norm(hyp["score"], len(hyp["tokens"])),
                                 "finished": False, "order": len(finished)})
                hit_max_length = True
            else:
                live.append(hyp)
        steps.append({
            "live": [{"tokens": list(h["tokens"]), "score": h["score"]} for h in live],
            "finished": [{"tokens": list(f["tokens"]), "score": f["score"], "normalized_score": f["normalized_score"],
                          "finished": f["finished"]} for f in finished],
        })
        # stopping rule
        if not live:
            stop_reason = "limit" if hit_max_length else "no_live"
            decisions[-1]["stop"] = None
            break
        done = sorted((f for f in finished if f["finished"]), key=lambda f: (-f["normalized_score"], f["order"]))
        favours_length = lp == "average" or (lp != "none" and alpha > 0)
        if early_stopping == "early":
            bound = -math.inf
        elif early_stopping == "heuristic" or (early_stopping == "never" and not favours_length):
            bound = max(norm(h["score"], len(h["tokens"])) for h in live)  # the current length
        elif lp == "none":
            bound = max(h["score"] for h in live)
        else:
            pen = length_penalty(lp, limit, alpha)
            bound = max(h["score"] / pen for h in live)
        needed = n_best if early_stopping == "bound" else k  # Hugging Face waits for the whole beam
        if len(done) >= needed:
            nth = done[needed - 1]["normalized_score"]
            decisions[-1]["stop"] = (nth, bound)
            if nth >= bound:
                stop_reason = "stopping_rule"
                break
        else:
            decisions[-1]["stop"] = None

    ranked_final = sorted(finished, key=lambda f: (-f["normalized_score"], f["order"]))
    result = [{"tokens": f["tokens"], "score": f["score"], "normalized_score": f["normalized_score"],
               "finished": f["finished"]} for f in ranked_final[:n_best]]
    return {"nbest": result, "hit_max_length": hit_max_length, "stop_reason": stop_reason, "limit": limit,
            "live_at_stop": len(live), "steps": steps, "decisions": decisions,
            "final_ranking": [f["normalized_score"] for f in ranked_final]}


# ----------------------------------------------------------------------------- sampling

def sampling_distribution(logits_f32, temperature, top_k=0, top_p=1.0, banned=None):
    """Double-precision sampling distribution of one step.
    -> (order: kept token ids in sorted order, probs: their full-softmax probabilities (double),
        all_sorted: every token id sorted by probability desc / id asc, p_all: full softmax [V])"""
    if not temperature > 0:
        raise ValueError("temperature must be > 0")
    if banned is None:
        banned = set()
    elif isinstance(banned, (int, np.integer)):
        banned = {int(banned)}
    z = logits_f32.astype(np.float64) / float(temperature)
    for b in banned:
        z[b] = -math.inf
    z = z - z.max()
    e = np.exp(z)
    p_all = e / e.sum()
    # sort by probability descending, ties: lower id first (stable sort on -p keeps id order)
    all_sorted = [int(i) for i in np.argsort(-p_all, kind="stable")]
    all_sorted = [i for i in all_sorted if i not in banned]
    kept = all_sorted
    if top_k > 0:
        kept = kept[:top_k]
    if 0.0 < top_p < 1.0:
        acc, cut = 0.0, len(kept)
        for j, i in enumerate(kept):
            acc += float(p_all[i])
            if acc >= top_p:
                cut = j + 1
                break
        kept = kept[:cut]
    return kept, [float(p_all[i]) for i in kept], all_sorted, p_all


def draw(kept, probs, u):
    """Renormalise and walk the kept tokens; first whose cumulative probability exceeds u.
    -> (token, index, cumulative list)"""
    total = 0.0
    for p in probs:
        total += p
    cum, c = [], 0.0
    for p in probs:
        c += p / total
        cum.append(c)
    for j, cj in enumerate(cum):
        if cj > u:
            return kept[j], j, cum
    return kept[-1], len(kept) - 1, cum


def sample(model, src_ids, temperature=1.0, top_k=0, top_p=1.0, seed=0, max_length=0, max_length_a=0.0,
           max_length_b=0.0, min_length=0, decoder=None, no_repeat_ngram=0, repetition_penalty=1.0):
    """Ancestral sampling as in src/decoding/README.md.
    -> {"tokens", "score" (raw log-prob sum), "finished", "hit_max_length", "steps": diagnostics}"""
    dec = decoder or Decoder(model, src_ids)
    eos = dec.eos
    limit = _limit_for(model, src_ids, max_length, max_length_a, max_length_b)
    rng = MT19937_64(seed)
    tokens, score, diag = [], 0.0, []
    while len(tokens) < limit:
        logits, logp = choice_rows(dec, tokens, repetition_penalty)
        banned = banned_tokens(tokens, logits.shape[0], eos, min_length, no_repeat_ngram)
        kept, probs, all_sorted, p_all = sampling_distribution(logits, temperature, top_k, top_p, banned)
        u = rng.uniform()
        t, j, cum = draw(kept, probs, u)
        diag.append({"u": u, "kept": kept, "probs": probs, "cum": cum, "index": j, "all_sorted": all_sorted,
                     "p_all": p_all, "logits": logits, "top_k": top_k, "top_p": top_p,
                     "temperature": temperature})
        score = score + float(logp[t])
        tokens.append(t)
        if t == eos:
            return {"tokens": tokens, "score": score, "finished": True, "hit_max_length": False, "steps": diag}
    return {"tokens": tokens, "score": score, "finished": False, "hit_max_length": True, "steps": diag}
