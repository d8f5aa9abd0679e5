#!/usr/bin/env python3
"""Write tests/golden/hf/<name>.json for the Marian snapshots under tests/data/hf/ (written by
make_hf_checkpoints.py), from models/reference/hf_marian.py, the reading of Hugging Face's code:
tokenization, teacher-forced logits and every attention map, greedy and beam generation with the
checkpoint's generation_config.json. Schema: tests/golden/README.md ("Hugging Face Marian").

    /usr/bin/python3 models/goldens/make_hf_goldens.py           # write the goldens
    /usr/bin/python3 models/goldens/make_hf_goldens.py --check   # recompute, compare, write nothing

--check also shows the goldens can fail and the reference is right where it can be checked alone:
  * the same reference with interleaved sinusoids (sin/cos alternating) moves the logits by > 1e-3;
  * the snapshots' stored embed_positions equal the sinusoid table of the reference;
  * a float64 run of the reference agrees with the float32 goldens (logits within 5e-5, attention
    within 1e-5), and encoder layer 0, head 0 recomputed with plain Python loops agrees within 1e-5;
  * every greedy and beam decision survives logits perturbed by up to 2e-5 (five draws), so an
    engine whose float32 rounding differs takes the same decisions;
  * the STOPPING_RULE_CASES' beam n-best changes under the engine's own `bound` stopping rule (HF's
    early_stopping="never" here), so the beam goldens prove the engine follows HF's rule.
"""

import argparse
import json
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
ROOT = os.path.dirname(MODELS)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

import hf_marian  # noqa: E402
from make_goldens import write_json  # noqa: E402
from golden_compare import differences  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "hf")
MAX_NEW_TOKENS = 32  # every case also runs one search to the limit, where </s> is forced

CASES = {
    "opus-mt-en-de-tiny": [
        ("A man is eating an apple.", "Ein Mann isst einen Apfel."),
        ("Two children are playing with a small ball in the park next to the station.",
         "Zwei Kinder spielen im Park."),
        ("The fox jumps over the box for 5 € 🍎!", "Der Fuchs und 5 €!"),
        ("A dog runs.", "Ein Hund rennt."),
        # Short sources whose beam n-best Hugging Face's stopping rule decides (STOPPING_RULE_CASES).
        ("A man.", "Ein Mann."),
        ("People walk.", "Leute gehen."),
    ],
    "opus-mt-mul-en-tiny": [
        (">>fra<< Un homme mange une pomme.", "A man is eating an apple."),
        (">>deu<< Zwei Kinder spielen mit einem kleinen Ball im Park.",
         "Two children play."),
        (">>spa<< El niño come pan por la mañana ☀.", "The boy eats bread ☀."),
        (">>xyz<< Le chat lit un livre.", "The cat is reading a book."),
    ],
}

# Sources whose n-best differs between HF's early_stopping=False (the goldens; the engine's
# `heuristic`) and the engine's own `bound` rule, so that the beam goldens tell the two apart.
STOPPING_RULE_CASES = {
    "opus-mt-en-de-tiny": ["A man.", "People walk."],
}


def snapshot(name):
    return os.path.join(ROOT, "tests", "data", "hf", name)


def generation_settings(folder):
    beam = hf_marian.GenerationConfig(folder, max_new_tokens=MAX_NEW_TOKENS)
    greedy = hf_marian.GenerationConfig(folder, max_new_tokens=MAX_NEW_TOKENS, num_beams=1)
    return greedy, beam


def make_case(model, tok, greedy_gen, beam_gen, source, target):
    src_pieces, src_ids = tok.encode(source)
    _, target_ids = tok.encode(target, target=True)
    encoder_hidden_states, encoder_attentions = model.encode(src_ids)
    logits, decoder_attentions, cross_attentions = model.decode(
        [beam_gen.decoder_start_token_id] + target_ids[:-1], encoder_hidden_states)
    greedy_ids, greedy_score = hf_marian.greedy(model, greedy_gen, src_ids)
    beams = hf_marian.beam_search(model, beam_gen, src_ids, num_return_sequences=beam_gen.num_beams)
    case = {
        "source": source,
        "src_pieces": src_pieces,
        "src_ids": src_ids,
    }
    unknown = tok.unknown_pieces(src_pieces)
    if unknown:
        case["unknown"] = unknown
    case.update({
        "target": target,
        "target_ids": target_ids,
        "logits": logits,
        "encoder_attentions": torch.stack(encoder_attentions),
        "decoder_attentions": torch.stack(decoder_attentions),
        "cross_attentions": torch.stack(cross_attentions),
        "greedy": {"ids": greedy_ids, "score": greedy_score, "text": tok.decode(greedy_ids)},
        "beam": {
            "num_beams": beam_gen.num_beams,
            "length_penalty": beam_gen.length_penalty,
            "early_stopping": beam_gen.early_stopping,
            "max_new_tokens": MAX_NEW_TOKENS,
            "sequences": [{"ids": ids, "score": score} for ids, score in beams],
            "text": tok.decode(beams[0][0]),
        },
    })
    return case


def make_golden(name, halves=True):
    folder = snapshot(name)
    tok = hf_marian.MarianTokenizer(folder)
    model = hf_marian.MarianMTModel(folder, halves=halves)
    greedy_gen, beam_gen = generation_settings(folder)
    settings = beam_gen.as_json()
    settings.update({"max_new_tokens": MAX_NEW_TOKENS, "greedy_num_beams": 1,
                     "num_return_sequences": beam_gen.num_beams})
    return {
        "snapshot": f"tests/data/hf/{name}",
        "generation": settings,
        "cases": [make_case(model, tok, greedy_gen, beam_gen, s, t) for s, t in CASES[name]],
    }


# ----------------------------------------------------------------------------- checks

class Failures:
    def __init__(self):
        self.messages = []

    def __call__(self, message):
        self.messages.append(message)
        print("FAIL " + message)


def max_abs_difference(a, b):
    """Largest |a - b|; inf for a NaN on either side or a shape mismatch (never passes a tolerance)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return math.inf
    if a.size == 0:
        return 0.0
    d = np.abs(a - b)
    return math.inf if np.isnan(d).any() else float(d.max())


def as_plain(obj):
    """The golden structure with tensors as nested float lists (what reading the JSON gives)."""
    if isinstance(obj, torch.Tensor):
        return obj.detach().to(torch.float32).numpy().astype(np.float64).tolist()
    if isinstance(obj, dict):
        return {k: as_plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [as_plain(v) for v in obj]
    return obj


def compare(expected, actual, path, fail):
    """The committed golden against what the reference makes now, by golden_compare's rule: ids,
    strings and structure exactly, floats within float32 on another CPU."""
    for d in differences(actual, expected, where=path):
        fail(d)


def check_interleaved_sinusoids_change_the_logits(name, golden, fail):
    swapped = make_golden(name, halves=False)
    for n, (case, other) in enumerate(zip(golden["cases"], swapped["cases"])):
        d = max_abs_difference(case["logits"], other["logits"])
        print(f"  {name} case {n}: interleaved sinusoids move the logits by {d:.3g}")
        if not d > 1e-3:
            fail(f"{name} case {n}: interleaved sinusoids move the logits by only {d}")


def check_stored_positions(name, fail):
    folder = snapshot(name)
    model = hf_marian.MarianMTModel(folder)
    for stack in ("encoder", "decoder"):
        stored = model.w.get(f"model.{stack}.embed_positions.weight")
        if stored is None:
            continue
        d = max_abs_difference(stored, model.embed_positions)
        if not d <= 1e-7:
            fail(f"{name}: stored {stack} embed_positions differ from the sinusoid by {d}")
    # sin(p * w_0) with w_0 = 1 and cos(p * w_0) at the half: written out for one position.
    half = model.d_model // 2
    row = model.embed_positions[3]
    if not (abs(float(row[0]) - math.sin(3.0)) < 1e-7 and abs(float(row[half]) - math.cos(3.0)) < 1e-7):
        fail(f"{name}: position 3 is not [sin(3), ..., cos(3), ...]")


def check_float64(name, golden, fail):
    folder = snapshot(name)
    model = hf_marian.MarianMTModel(folder)
    model.w = {k: v.double() for k, v in model.w.items()}
    model.shared = model.lm_head = model.w["model.shared.weight"]
    model.final_logits_bias = model.w["final_logits_bias"]
    model.embed_positions = model.embed_positions.double()
    worst_logits = worst_attention = 0.0
    for case in golden["cases"]:
        enc, enc_att = model.encode(case["src_ids"])
        start = golden["generation"]["decoder_start_token_id"]
        logits, dec_att, cross_att = model.decode([start] + case["target_ids"][:-1], enc)
        worst_logits = max(worst_logits, max_abs_difference(case["logits"], logits))
        for key, att in (("encoder_attentions", enc_att), ("decoder_attentions", dec_att),
                         ("cross_attentions", cross_att)):
            worst_attention = max(worst_attention, max_abs_difference(case[key], torch.stack(att)))
    print(f"  {name}: float64 vs golden: logits {worst_logits:.3g}, attention {worst_attention:.3g}")
    if not (worst_logits <= 5e-5 and worst_attention <= 1e-5):
        fail(f"{name}: float64 run differs: logits {worst_logits}, attention {worst_attention}")


def loop_attention_head0(w, config, src_ids):
    """Encoder layer 0, head 0, written with plain loops from the paper's formulas:
    x = E[id] * sqrt(d) + PE[pos]; q = Wq x + bq; k = Wk x + bk; a = softmax(q.k / sqrt(d_head))."""
    d = config["d_model"]
    dh = d // config["encoder_attention_heads"]
    emb = w["model.shared.weight"].tolist()
    attn = "model.encoder.layers.0.self_attn."
    wq, bq = w[attn + "q_proj.weight"].tolist(), w[attn + "q_proj.bias"].tolist()
    wk, bk = w[attn + "k_proj.weight"].tolist(), w[attn + "k_proj.bias"].tolist()
    xs = []
    for pos, token in enumerate(src_ids):
        pe = [0.0] * d
        for i in range(d // 2):
            angle = pos / 10000 ** (2 * i / d)
            pe[i], pe[d // 2 + i] = math.sin(angle), math.cos(angle)
        xs.append([emb[token][j] * math.sqrt(d) + pe[j] for j in range(d)])
    q = [[bq[r] + sum(wq[r][j] * x[j] for j in range(d)) for r in range(dh)] for x in xs]
    k = [[bk[r] + sum(wk[r][j] * x[j] for j in range(d)) for r in range(dh)] for x in xs]
    rows = []
    for qi in q:
        scores = [sum(a * b for a, b in zip(qi, kj)) / math.sqrt(dh) for kj in k]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        rows.append([v / sum(e) for v in e])
    return rows


def check_loop_head(name, golden, fail):
    folder = snapshot(name)
    model = hf_marian.MarianMTModel(folder)
    for n, case in enumerate(golden["cases"][:2]):
        rows = loop_attention_head0(model.w, model.config, case["src_ids"])
        d = max_abs_difference(case["encoder_attentions"][0][0], rows)
        print(f"  {name} case {n}: loop-computed encoder head 0.0 vs golden {d:.3g}")
        if not d <= 1e-5:
            fail(f"{name} case {n}: the loop-computed encoder head differs by {d}")


def check_decisions_are_robust(name, golden, fail):
    """Greedy and beam again with the logits perturbed by uniform noise of +-2e-5."""
    folder = snapshot(name)
    model = hf_marian.MarianMTModel(folder)
    tok = hf_marian.MarianTokenizer(folder)
    greedy_gen, beam_gen = generation_settings(folder)
    exact = hf_marian.next_logits
    for seed in range(5):
        g = torch.Generator().manual_seed(seed)

        def noisy(model_, enc, sequences):
            logits = exact(model_, enc, sequences)
            return logits + (torch.rand(logits.shape, generator=g) * 4e-5 - 2e-5)

        hf_marian.next_logits = noisy
        try:
            for n, case in enumerate(golden["cases"]):
                src_ids = tok.encode(case["source"])[1]
                if hf_marian.greedy(model, greedy_gen, src_ids)[0] != case["greedy"]["ids"]:
                    fail(f"{name} case {n}: greedy changes under 2e-5 noise (seed {seed})")
                beams = hf_marian.beam_search(model, beam_gen, src_ids, beam_gen.num_beams)
                if [ids for ids, _ in beams] != [s["ids"] for s in case["beam"]["sequences"]]:
                    fail(f"{name} case {n}: beam changes under 2e-5 noise (seed {seed})")
        finally:
            hf_marian.next_logits = exact
    print(f"  {name}: greedy and beam decisions unchanged under 2e-5 logit noise (5 draws)")


def check_stopping_rule_decides(name, golden, fail):
    """The engine's `bound` rule (stop once the k-th best finished score beats s / lp(limit) of every
    live hypothesis) is HF's early_stopping="never" when length_penalty > 0 and N = k: for the
    STOPPING_RULE_CASES it returns another n-best than the goldens' early_stopping=False."""
    folder = snapshot(name)
    model = hf_marian.MarianMTModel(folder)
    tok = hf_marian.MarianTokenizer(folder)
    bound_gen = hf_marian.GenerationConfig(folder, max_new_tokens=MAX_NEW_TOKENS, early_stopping="never")
    generation = golden["generation"]
    if not (generation["early_stopping"] is False and bound_gen.length_penalty > 0
            and generation["num_return_sequences"] == bound_gen.num_beams):
        return fail(f"{name}: the settings no longer make early_stopping=\"never\" the engine's bound rule")
    sources = [case["source"] for case in golden["cases"]]
    for source in STOPPING_RULE_CASES.get(name, []):
        if source not in sources:
            fail(f"{name}: no case {source!r}")
            continue
        case = golden["cases"][sources.index(source)]
        beams = hf_marian.beam_search(model, bound_gen, tok.encode(source)[1], bound_gen.num_beams)
        heuristic = [(s["ids"], s["score"]) for s in case["beam"]["sequences"]]
        changed = [n for n, ((ids, score), (h_ids, h_score)) in enumerate(zip(beams, heuristic))
                   if ids != h_ids or not abs(float(score) - h_score) <= 1e-4]
        print(f"  {name} {source!r}: the bound rule changes n-best sequences {changed}")
        if not changed:
            fail(f"{name} {source!r}: the bound rule gives the goldens' n-best: the case tells no rule apart")


def check(name, fail):
    path = os.path.join(OUT, f"{name}.json")
    with open(path, encoding="utf-8") as f:
        committed = json.load(f)
    golden = as_plain(make_golden(name))
    compare(committed, golden, name, fail)
    check_interleaved_sinusoids_change_the_logits(name, golden, fail)
    check_stored_positions(name, fail)
    check_float64(name, golden, fail)
    check_loop_head(name, golden, fail)
    check_decisions_are_robust(name, golden, fail)
    check_stopping_rule_decides(name, golden, fail)


def main(checking=False):
    torch.set_num_threads(1)
    if checking:
        fail = Failures()
        for name in CASES:
            check(name, fail)
        if fail.messages:
            sys.exit(f"make_hf_goldens.py --check: {len(fail.messages)} failure(s)")
        print("make_hf_goldens.py --check: the Marian goldens match the reference")
        return
    os.makedirs(OUT, exist_ok=True)
    for name in CASES:
        golden = make_golden(name)
        write_json(os.path.join(OUT, f"{name}.json"), golden)
        for n, case in enumerate(golden["cases"]):
            print(f"{name} case {n}: greedy {len(case['greedy']['ids'])} tokens {case['greedy']['text']!r}; "
                  f"beam {[len(s['ids']) for s in case['beam']['sequences']]}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
