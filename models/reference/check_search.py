#!/usr/bin/env python3
"""Self-check of models/reference/attnscope_ref/search.py and of tests/golden/beam.json / sample.json
(run with /usr/bin/python3 after models/goldens/make_search_goldens.py).

  1. mt19937_64: the 10000th output of a default-seeded engine is 9981545732273789042; if g++ is
     available, the first outputs and u values for several seeds equal std::mt19937_64's.
  2. Beam width 1 with length_penalty none equals Transformer.greedy_decode (every model, every
     source of make_search_goldens.py); sampling with top_k = 1 equals greedy for several
     temperatures / top_p / seeds.
  3. Every golden n-best hypothesis, every hypothesis of every recorded beam step, and every
     golden sample: its score equals the sum of the per-token log-probs of a teacher-forced full
     forward pass (Transformer.forward) to GOLDEN_TOL (1e-4); min_length and limit hold.
  4. The goldens are reproduced by search.py: every decision exactly (the tokens of every n-best and
     live hypothesis, their order, which finished, hit_max_length), every score to GOLDEN_TOL
     (golden_compare.py: the goldens are float32 numbers of one machine, and another CPU's BLAS
     rounds differently); and their decisions are reproduced by an independent, straightforward
     re-implementation of the spec that uses the full-forward (non-incremental) log-probs, whose
     float32 numbers differ slightly from the incremental ones, and again with every log-prob /
     logit perturbed by uniform noise of up to 2e-5 (PERTURB_TRIALS deterministic trials): the
     goldens' decisions must not depend on differences of that size.
     The repetition rules (no_repeat_ngram_size, repetition_penalty) are re-implemented here a third
     time, plainly: n-gram membership by tuple sets, the penalty with torch.where on the gathered ids.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "models", "goldens")]

import make_search_goldens as msg  # noqa: E402
from attnscope_ref import search  # noqa: E402
from golden_compare import GOLDEN_TOL as TOL, differences  # noqa: E402

PERTURB_TRIALS = 5  # re-runs of the independent searches with every number perturbed by up to 2e-5
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# ----------------------------------------------------------------------------- 1. mt19937_64

def check_mt():
    g = search.MT19937_64()
    for _ in range(9999):
        g()
    check(g() == search.MT19937_64_CHECK, "mt19937_64 10000th output of seed 5489")
    gxx = shutil.which("g++")
    if not gxx:
        print("mt19937_64: check value ok; g++ not found, std::mt19937_64 comparison skipped")
        return
    seeds = [0, 1, 5489, 13, 12345678901234, 2 ** 40 + 17, 2 ** 64 - 1]
    src = r'''
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <random>
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::mt19937_64 g(std::strtoull(argv[a], nullptr, 10));
    for (int i = 0; i < 700; ++i) {
      std::uint64_t x = g();
      double u = static_cast<double>(x >> 11) * 0x1.0p-53;
      std::printf("%llu %.17g\n", static_cast<unsigned long long>(x), u);
    }
  }
}
'''
    with tempfile.TemporaryDirectory() as d:
        cpp, exe = os.path.join(d, "mt.cpp"), os.path.join(d, "mt")
        with open(cpp, "w") as f:
            f.write(src)
        subprocess.run([gxx, "-std=c++17", "-O1", cpp, "-o", exe], check=True)
        out = subprocess.run([exe] + [str(s) for s in seeds], check=True, capture_output=True,
                             text=True).stdout.split("\n")
    i = 0
    for s in seeds:
        g, gu = search.MT19937_64(s), search.MT19937_64(s)
        for _ in range(700):
            x, u = out[i].split()
            i += 1
            check(int(x) == g(), f"mt19937_64 seed {s} output {i}")
            check(float(u) == gu.uniform(), f"mt19937_64 seed {s} u {i}")
    print(f"mt19937_64: check value ok; 700 outputs and u values for {len(seeds)} seeds equal std::mt19937_64")


# ----------------------------------------------------------------------------- teacher forcing

class Forced:
    """Full-sequence (teacher-forced) float32 log-probs via Transformer.forward, memoised by prefix."""

    def __init__(self, model, src_ids):
        self.model, self.src_ids = model, list(src_ids)
        self.bos, self.eos = model.special("bos"), model.special("eos")
        self.memo = {}

    def rows(self, tokens):
        """log-prob rows [len(tokens)+1, V] for prefixes tokens[:0] .. tokens[:n]."""
        tokens = tuple(tokens)
        if tokens not in self.memo:
            tgt_in = torch.tensor([[self.bos] + list(tokens)], dtype=torch.long)
            src = torch.tensor([self.src_ids], dtype=torch.long)
            with torch.no_grad():
                logits = self.model(src, tgt_in, torch.zeros_like(src, dtype=torch.bool),
                                    torch.zeros_like(tgt_in, dtype=torch.bool))[0]
                self.memo[tokens] = (logits.numpy().astype(np.float32),
                                     torch.log_softmax(logits, dim=-1).numpy().astype(np.float32))
        return self.memo[tokens]

    def log_probs(self, prefix):
        return self.rows(prefix)[1][-1]

    def logits(self, prefix):
        return self.rows(prefix)[0][-1]

    def score(self, tokens):
        lp = self.rows(tokens[:-1])[1] if tokens else None
        return sum(float(lp[i, t]) for i, t in enumerate(tokens))


class Perturbed:
    """Forced log-probs / logits plus deterministic uniform noise in [-NOISE, NOISE] (float32), standing
    in for a float32 engine whose numbers differ from PyTorch's."""

    NOISE = 2e-5

    def __init__(self, forced, trial):
        self.f, self.trial, self.eos = forced, trial, forced.eos
        self.memo = {}

    def _noise(self, prefix, kind, n):
        key = (tuple(prefix), kind)
        if key not in self.memo:
            seed = zlib.crc32(repr((self.trial, kind, tuple(prefix))).encode())
            self.memo[key] = np.random.RandomState(seed).uniform(-self.NOISE, self.NOISE, n).astype(np.float32)
        return self.memo[key]

    def log_probs(self, prefix):
        x = self.f.log_probs(prefix)
        return x + self._noise(prefix, "lp", x.shape[0])

    def logits(self, prefix):
        x = self.f.logits(prefix)
        return x + self._noise(prefix, "logits", x.shape[0])


# ----------------------------------------------------------------------------- repetition rules, plainly

def plain_log_probs(f, toks, rp):
    """The float32 log-probs that choose and score the token after `toks` (with the repetition penalty)."""
    if rp == 1.0:
        return f.log_probs(toks)
    z = torch.from_numpy(np.array(f.logits(toks), dtype=np.float32))
    if toks:
        ids = torch.tensor(sorted(set(toks)), dtype=torch.long)
        x = z[ids].double()
        z[ids] = torch.where(x > 0, x / rp, x * rp).float()
    return torch.log_softmax(z, dim=-1).numpy().astype(np.float32)


def plain_allowed(toks, vocab, eos, min_length, nr):
    """Boolean mask of the tokens that may come next: min_length, then no-repeat n-gram, each skipped
    if it would leave nothing."""
    ok = np.ones(vocab, dtype=bool)
    if len(toks) < min_length and vocab > 1:
        ok[eos] = False
    if nr > 0:
        grams = {tuple(toks[i:i + nr]) for i in range(len(toks) - nr + 1)}
        tail = tuple(toks[len(toks) - nr + 1:]) if nr > 1 else ()
        rep_ok = np.array([len(toks) < nr - 1 or (tail + (t,)) not in grams for t in range(vocab)])
        if (ok & rep_ok).any():
            ok &= rep_ok
    return ok


def plain_score(f, tokens, rp):
    return sum(float(plain_log_probs(f, tokens[:i], rp)[t]) for i, t in enumerate(tokens))


# ----------------------------------------------------------------------------- independent search

def simple_beam(f, k, n, lp, alpha, limit, min_length, nr=0, rp=1.0):
    """A second, deliberately plain reading of the spec (no shared code with search.beam_search)."""
    def pen(length):
        return 1.0 if lp == "none" else (float(length) if lp == "average" else ((5.0 + length) / 6.0) ** alpha)

    beam = [((), 0.0)]
    done = []  # (normalized, order, tokens, score, finished)
    cut = False
    while beam:
        cands = []
        for h, (toks, s) in enumerate(beam):
            lps = plain_log_probs(f, list(toks), rp)
            ok = plain_allowed(list(toks), lps.shape[0], f.eos, min_length, nr)
            for t, x in enumerate(lps):
                if not ok[t]:
                    continue
                cands.append((s + float(x), h, t))
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        nxt = []
        for r, (total, h, t) in enumerate(cands[:2 * k]):
            toks = beam[h][0] + (t,)
            if t == f.eos:
                if r < k:
                    done.append((total / pen(len(toks)), len(done), toks, total, True))
            elif len(nxt) < k:
                nxt.append((toks, total))
        beam = []
        for toks, s in nxt:
            if len(toks) >= limit:
                done.append((s / pen(len(toks)), len(done), toks, s, False))
                cut = True
            else:
                beam.append((toks, s))
        fin = sorted([d for d in done if d[4]], key=lambda d: (-d[0], d[1]))
        if beam and len(fin) >= n:
            bound = max(s for _, s in beam) / (1.0 if lp == "none" else pen(limit))
            if fin[n - 1][0] >= bound:
                break
    ranked = sorted(done, key=lambda d: (-d[0], d[1]))[:n]
    return [list(d[2]) for d in ranked], cut


def simple_sample(f, temperature, top_k, top_p, seed, limit, min_length, nr=0, rp=1.0):
    rng = search.MT19937_64(seed)
    toks = []
    while len(toks) < limit:
        logits = np.array(f.logits(toks), dtype=np.float32)
        if rp != 1.0:
            for t in set(toks):
                x = float(logits[t])
                logits[t] = x / rp if x > 0 else x * rp
        z = logits.astype(np.float64) / temperature
        ok = plain_allowed(toks, z.shape[0], f.eos, min_length, nr)
        m = z[ok].max()
        e = np.where(ok, np.exp(z - m), 0.0)
        p = e / e.sum()
        order = sorted(np.flatnonzero(ok).tolist(), key=lambda i: (-p[i], i))
        if top_k > 0:
            order = order[:top_k]
        if 0 < top_p < 1:
            c = np.cumsum([p[i] for i in order])
            hit = np.flatnonzero(c >= top_p)
            if hit.size:
                order = order[:int(hit[0]) + 1]
        q = np.array([p[i] for i in order])
        q = q / q.sum()
        u = rng.uniform()
        j = int(np.searchsorted(np.cumsum(q), u, side="right"))
        t = order[min(j, len(order) - 1)]
        toks.append(t)
        if t == f.eos:
            break
    return toks


# ----------------------------------------------------------------------------- checks

def main():
    torch.set_num_threads(1)
    t0 = time.time()
    check_mt()
    models = msg.Models()

    # 2. beam width 1 (none) == greedy_decode; top_k = 1 sampling == greedy
    n_greedy = 0
    for key in msg.MODELS:
        model, _ = models.get(key)
        for source in msg.sources_for(key):
            ids = models.src_ids(key, source)
            dec = models.decoder(key, source)
            limit = search.decode_limit(model.config["max_positions"], len(ids))
            g = model.greedy_decode(ids, limit)["output_ids"]
            b = search.beam_search(model, ids, 1, 1, "none", decoder=dec)
            check(b["nbest"][0]["tokens"] == g, f"beam 1 == greedy: {key} {source!r}")
            gs = search.greedy(model, ids, decoder=dec)
            check(gs["tokens"] == g, f"search.greedy == greedy_decode: {key} {source!r}")
            for i, (temp, top_p) in enumerate([(0.5, 1.0), (1.0, 0.9), (1.5, 0.5)]):
                s = search.sample(model, ids, temp, 1, top_p, seed=100 + i, decoder=dec)
                check(s["tokens"] == g, f"top_k=1 sample == greedy: {key} {source!r} T={temp}")
                check(abs(s["score"] - gs["score"]) == 0.0, f"top_k=1 sample score == greedy score: {key}")
            for nr, rp in [(2, 1.0), (1, 1.5), (0, 2.0)]:
                b = search.beam_search(model, ids, 1, 1, "none", decoder=dec, no_repeat_ngram=nr, repetition_penalty=rp)
                gs = search.greedy(model, ids, decoder=dec, no_repeat_ngram=nr, repetition_penalty=rp)
                check(b["nbest"][0]["tokens"] == gs["tokens"] and b["nbest"][0]["score"] == gs["score"],
                      f"beam 1 == greedy with no_repeat_ngram {nr}, repetition_penalty {rp}: {key} {source!r}")
                s = search.sample(model, ids, 0.7, 1, 1.0, seed=7, decoder=dec, no_repeat_ngram=nr,
                                  repetition_penalty=rp)
                check(s["tokens"] == gs["tokens"], f"top_k=1 sample == greedy with rules: {key} {source!r}")
            n_greedy += 1
    print(f"greedy equivalences: {n_greedy} sources x (beam 1, search.greedy, 3 top_k=1 samplings; "
          f"the same with 3 settings of the repetition rules) ok")

    # 3 + 4. goldens
    with open(os.path.join(ROOT, "tests", "golden", "beam.json"), encoding="utf-8") as fh:
        beam = json.load(fh)["cases"]
    with open(os.path.join(ROOT, "tests", "golden", "sample.json"), encoding="utf-8") as fh:
        samples = json.load(fh)["cases"]
    key_of = {v: k for k, v in msg.MODELS.items()}
    forced = {}
    max_dev, n_hyp = 0.0, 0
    for ci, c in enumerate(beam):
        key, o = key_of[c["model"]], c["options"]
        model, _ = models.get(key)
        ids = models.src_ids(key, c["source"])
        check(ids == c["src_ids"], f"beam case {ci}: src_ids")
        f = forced.setdefault((key, c["source"]), Forced(model, ids))
        limit = search.decode_limit(model.config["max_positions"], len(ids), o["max_length"], o["max_length_a"],
                                    o["max_length_b"])
        check(limit == c["limit"], f"beam case {ci}: limit")
        check(len(c["nbest"]) == o["nbest"], f"beam case {ci}: n-best size")
        hyps = list(c["nbest"])
        for st in c["steps"]:
            check(len(st["live"]) <= o["beam_size"], f"beam case {ci}: beam width")
            hyps += st["live"] + st["finished"]
        nr, rp = o.get("no_repeat_ngram_size", 0), o.get("repetition_penalty", 1.0)
        for h in hyps:
            ref = plain_score(f, h["tokens"], rp) if rp != 1.0 else f.score(h["tokens"])
            dev = abs(ref - h["score"])
            max_dev = max(max_dev, dev)
            n_hyp += 1
            check(dev <= TOL, f"beam case {ci}: score {h['score']} vs teacher-forced {ref}")
            if "normalized_score" in h:
                n = len(h["tokens"])
                check(abs(h["normalized_score"] - search.normalized(o["length_penalty"], h["score"], n, o["alpha"]))
                      < 1e-12, f"beam case {ci}: normalized score")
                if nr:
                    grams = [tuple(h["tokens"][i:i + nr]) for i in range(len(h["tokens"]) - nr + 1)]
                    check(len(grams) == len(set(grams)), f"beam case {ci}: a repeated {nr}-gram")
                if h["finished"]:
                    check(h["tokens"][-1] == f.eos and n >= o["min_length"] + 1, f"beam case {ci}: finished hyp")
                else:
                    check(n == limit and f.eos not in h["tokens"], f"beam case {ci}: cut hyp")
            check(len(h["tokens"]) <= limit, f"beam case {ci}: limit")
        # reproduction (decisions exactly, scores to TOL) and the independent implementation
        res = msg.run_beam(models, key, c["source"], o)
        diffs = differences({k: res[k] for k in ("nbest", "steps", "hit_max_length")},
                            {k: c[k] for k in ("nbest", "steps", "hit_max_length")}, TOL)
        check(not diffs, f"beam case {ci}: reproduction: {'; '.join(diffs[:3])}")
        toks, cut = simple_beam(f, o["beam_size"], o["nbest"], o["length_penalty"], o["alpha"], limit,
                                o["min_length"], nr, rp)
        check(toks == [h["tokens"] for h in c["nbest"]] and cut == c["hit_max_length"],
              f"beam case {ci}: independent full-forward beam search {toks}")
        for trial in range(PERTURB_TRIALS):
            toks, cut = simple_beam(Perturbed(f, trial), o["beam_size"], o["nbest"], o["length_penalty"],
                                    o["alpha"], limit, o["min_length"], nr, rp)
            check(toks == [h["tokens"] for h in c["nbest"]] and cut == c["hit_max_length"],
                  f"beam case {ci}: perturbed trial {trial} {toks}")
    print(f"beam.json: {len(beam)} cases, {n_hyp} hypotheses (n-best and every step): max |score - teacher-forced|"
          f" = {max_dev:.2e}; reproduced (scores to {TOL:g}); independent full-forward beam search agrees, also with"
          f" {PERTURB_TRIALS} perturbations of +-{Perturbed.NOISE:g}")

    max_dev = 0.0
    for ci, c in enumerate(samples):
        key, o = key_of[c["model"]], c["options"]
        model, _ = models.get(key)
        ids = models.src_ids(key, c["source"])
        f = forced.setdefault((key, c["source"]), Forced(model, ids))
        nr, rp = o.get("no_repeat_ngram_size", 0), o.get("repetition_penalty", 1.0)
        ref = plain_score(f, c["tokens"], rp) if rp != 1.0 else f.score(c["tokens"])
        max_dev = max(max_dev, abs(ref - c["score"]))
        check(abs(ref - c["score"]) <= TOL, f"sample case {ci}: score {c['score']} vs teacher-forced {ref}")
        check(c["finished"] == (c["tokens"][-1] == f.eos), f"sample case {ci}: finished")
        check(f.eos not in c["tokens"][:o["min_length"]], f"sample case {ci}: min_length")
        res = msg.run_sample(models, key, c["source"], o, o["seed"])
        diffs = differences({k: res[k] for k in ("tokens", "score", "finished", "hit_max_length")},
                            {k: c[k] for k in ("tokens", "score", "finished", "hit_max_length")}, TOL)
        check(not diffs, f"sample case {ci}: reproduction: {'; '.join(diffs[:3])}")
        limit = search.decode_limit(model.config["max_positions"], len(ids), o["max_length"])
        toks = simple_sample(f, o["temperature"], o["top_k"], o["top_p"], o["seed"], limit, o["min_length"], nr, rp)
        check(toks == c["tokens"], f"sample case {ci}: independent full-forward sampler {toks}")
        for trial in range(PERTURB_TRIALS):
            toks = simple_sample(Perturbed(f, trial), o["temperature"], o["top_k"], o["top_p"], o["seed"], limit,
                                 o["min_length"], nr, rp)
            check(toks == c["tokens"], f"sample case {ci}: perturbed trial {trial} {toks}")
        if o["top_k"] == 1 and not nr and rp == 1.0:
            check(c["tokens"] == model.greedy_decode(ids, limit)["output_ids"], f"sample case {ci}: top_k=1 greedy")
    print(f"sample.json: {len(samples)} cases: max |score - teacher-forced| = {max_dev:.2e}; reproduced (scores to "
          f"{TOL:g}); "
          f"independent full-forward sampler agrees, also with {PERTURB_TRIALS} perturbations of +-{Perturbed.NOISE:g}")

    print(f"{time.time() - t0:.1f} s")
    if failures:
        print(f"{len(failures)} FAILURES")
        sys.exit(1)
    print("all search checks passed")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
