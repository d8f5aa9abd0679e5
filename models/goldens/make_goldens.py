#!/usr/bin/env python3
"""Write the golden files under tests/golden/ (deterministic; run with /usr/bin/python3).

    /usr/bin/python3 models/goldens/make_goldens.py [--data DIR] [--search-eos]

For each model config: <name>.safetensors (a randomly initialised model in the attnscope format)
and <name>.json (tokenisation + every intermediate value of an incremental greedy decode).
Plus tokenizer_bpe.json and tokenizer_word.json. Schema: tests/golden/README.md.
Reads the toy grammar and the first 2,000 lines of Multi30k train (for the BPE model) from the
data folder (--data DIR, default ../shared/data beside the checkout; models/tools/shared_data.py).
"""

import argparse
import gzip
import json
import math
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference"), os.path.join(MODELS, "tools")]

from attnscope_ref import tokenizer as tk  # noqa: E402
from attnscope_ref.export import export  # noqa: E402
from attnscope_ref.model import Transformer, complete_config  # noqa: E402
import shared_data  # noqa: E402

ROOT = os.path.dirname(MODELS)
OUT = os.path.join(ROOT, "tests", "golden")
MAX_STEPS = 10
QK_GAIN = 1.5  # q/k projections larger than 1/sqrt(fan_in): peaky attention

WORD_SENTENCES = ["i can eat apple", "we want to drink beer", "I can eat pizza!"]
BPE_SENTENCES = ["A child is splashing in the water", "Three people sit in a cave.", "A dog runs \u0436 fast."]


# ----------------------------------------------------------------------------- data

def toy_pairs(data):
    pairs = []
    with open(os.path.join(data, "toy", "eng_de.csv"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                en, de = line.split(",")
                pairs.append((en, de))
    return pairs


def multi30k_lines(data, lang, n):
    out = []
    with gzip.open(os.path.join(data, "multi30k", f"train.{lang}.gz"), "rt", encoding="utf-8") as f:
        for line in f:
            if len(out) >= n:
                break
            out.append(line.rstrip("\n"))
    return out


# ----------------------------------------------------------------------------- JSON output

def _fmt_float(x):
    """Shortest decimal that round-trips to the same float32 (also via a double parse)."""
    v = np.float32(x)
    if not np.isfinite(v):
        raise ValueError(f"non-finite value {v} in golden data")
    s = str(v)
    assert np.float32(float(s)) == v, (s, v)
    return s


def _dump(obj, indent=0):
    pad = "  " * indent
    if isinstance(obj, torch.Tensor):
        obj = obj.detach().to(torch.float32).numpy()
    if isinstance(obj, np.ndarray):
        if obj.ndim == 0:
            return _fmt_float(obj)
        return "[" + ",".join(_dump(x, indent) for x in obj) + "]"
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f'{pad}  {_dump_str(k)}: {_dump(v, indent + 1)}' for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, (list, tuple)):
        if any(isinstance(x, dict) for x in obj):
            return "[\n" + ",\n".join(pad + "  " + _dump(x, indent + 1) for x in obj) + "\n" + pad + "]"
        return "[" + ",".join(_dump(x, indent) for x in obj) + "]"
    if isinstance(obj, bool):
        return "true" if obj else "false"
    if obj is None:
        return "null"
    if isinstance(obj, (int, np.integer)):
        return str(int(obj))
    if isinstance(obj, (float, np.floating)):
        if isinstance(obj, float) and not isinstance(obj, np.floating):
            return repr(obj)  # config values (python floats, e.g. 4.0 or 1e-05)
        return _fmt_float(obj)
    if isinstance(obj, str):
        return _dump_str(obj)
    raise TypeError(type(obj))


def _dump_str(s):
    return json.dumps(s, ensure_ascii=False)


def write_json(path, obj):
    text = _dump(obj) + "\n"
    json.loads(text)  # sanity: valid JSON
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


# ----------------------------------------------------------------------------- models

def init_weights(model, seed, emb_std):
    """Larger-than-default init so attention is peaky and logits are O(1..10)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g)
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.15 * r)
            elif name.endswith("norm.bias"):
                p.copy_(0.1 * r)
            elif "embed" in name:
                p.copy_(emb_std * r)
            elif name == "output.bias":
                p.copy_(0.5 * r)
            elif name.endswith(".bias"):
                p.copy_(0.1 * r)
            else:
                fan_in = p.shape[1]
                gain = QK_GAIN if (".q_proj." in name or ".k_proj." in name) else 1.0
                if name == "output.weight":
                    gain = 2.0
                p.copy_(gain / math.sqrt(fan_in) * r)
        # a real model never predicts <pad> / <s>; keep them out of the greedy outputs so that
        # output_text never has to render those specials
        pad, bos = model.special("pad"), model.special("bos")
        model.output.bias[pad] -= 10.0
        model.output.bias[bos] -= 10.0


def run_cases(model, tokenizer, sentences):
    c = model.config
    cases = []
    for text in sentences:
        pieces, ids, unknown = tokenizer.encode_source(text, c["src_append_eos"], c["special_tokens"]["eos"])
        trace = model.greedy_decode(ids, MAX_STEPS)
        out_ids = trace["output_ids"]
        text_ids = out_ids[:-1] if out_ids and out_ids[-1] == c["special_tokens"]["eos"] else out_ids
        cases.append({
            "source": text,
            "src_tokens": pieces,
            "src_ids": ids,
            "unknown_words": unknown,
            "max_steps": MAX_STEPS,
            "output_ids": out_ids,
            "output_text": tokenizer.decode(text_ids),
            "encoder": trace["encoder"],
            "steps": trace["steps"],
        })
    return cases


# Amount added to output.bias[eos] per model (multiples of 1/16, exact in f16), found with
# --search-eos: the smallest shift for which >= n_eos sentences end with </s> after >= 3 and
# < max_steps tokens (and no sentence ends with </s> earlier or at max_steps exactly),
# and >= 1 sentence runs to max_steps without </s>.
EOS_SHIFT = {"tiny_post_sin": 0.6875, "small_pre_learned": 3.3125, "deep_post_learned_f16": 3.4375,
             "deep_pre_sin_bpe": 3.8125}
SEARCH_EOS = False  # --search-eos


def eos_ok(outs, eos, n_eos):
    ended = [o for o in outs if o[-1] == eos]
    return (len(ended) >= n_eos and all(3 <= len(o) < MAX_STEPS for o in ended)
            and any(len(o) == MAX_STEPS and o[-1] != eos for o in outs))


def search_eos_shift(model, base, eos, outputs, n_eos, round_fn):
    for k in range(0, 800):
        with torch.no_grad():
            model.output.bias[eos] = round_fn(base + k / 16)
        if eos_ok(outputs(), eos, n_eos):
            return k / 16
    raise RuntimeError("eos search failed")


def make_model(name, config, tok_spec, src_vocab, tgt_vocab, sentences, seed, emb_std, dtype="F32", n_eos=1):
    torch.manual_seed(seed)
    model = Transformer.from_config(config, len(src_vocab), len(tgt_vocab)).eval()
    init_weights(model, seed, emb_std)
    tokenizer = tk.Tokenizer(tok_spec, src_vocab, config["special_tokens"]["unk"])
    out_tok = tk.Tokenizer(tok_spec, tgt_vocab, config["special_tokens"]["unk"])
    eos = config["special_tokens"]["eos"]
    if dtype == "F16":
        with torch.no_grad():  # goldens use exactly the weights the engine will see
            for p in model.parameters():
                p.copy_(p.half().float())

    # Shift output.bias[eos] so that some sentences end with </s> (see EOS_SHIFT / --search-eos).
    def outputs():
        return [model.greedy_decode(tokenizer.encode_source(s, config["src_append_eos"], eos)[1],
                                    MAX_STEPS)["output_ids"] for s in sentences]

    base = float(model.output.bias[eos])
    if dtype == "F16":  # the stored bias must stay exactly representable
        def round_fn(x):
            return float(torch.tensor(x).half().float())
    else:
        def round_fn(x):
            return float(torch.tensor(x, dtype=torch.float32))
    shift = search_eos_shift(model, base, eos, outputs, n_eos, round_fn) if SEARCH_EOS else EOS_SHIFT[name]
    with torch.no_grad():
        model.output.bias[eos] = round_fn(base + shift)
    if not eos_ok(outputs(), eos, n_eos):
        raise RuntimeError(f"{name}: EOS_SHIFT[{name!r}] = {shift} no longer gives the wanted </s> pattern; "
                           "rerun with --search-eos")
    print(f"{name}: output.bias[eos] shifted by {shift}")

    cfg = complete_config(config)
    cases = run_cases(model, tokenizer, sentences)
    for case in cases:  # output_text uses the target vocabulary
        ids = case["output_ids"]
        case["output_text"] = out_tok.decode(ids[:-1] if ids and ids[-1] == eos else ids)
    export(model, cfg, tok_spec, src_vocab, tgt_vocab, os.path.join(OUT, name + ".safetensors"), dtype=dtype,
           name=name, description="randomly initialised attnscope test model (tests/golden, models/goldens/make_goldens.py)")
    write_json(os.path.join(OUT, name + ".json"), {"model": name + ".safetensors", "config": cfg, "cases": cases})
    return cases


def base_config(**kw):
    c = {"layer_norm_eps": 1e-5, "src_append_eos": True, "special_tokens": dict(tk.SPECIAL_TOKENS)}
    c.update(kw)
    return c


# ----------------------------------------------------------------------------- tokenizer goldens

WORD_TOKENIZER_CASES = [
    "i can eat apple", "we want to drink beer", "I Can EAT Apple", "i can't eat apple, ok?",
    "I can eat pizza!", "", "   \t\n  ", "  we   drink\twater \n", "WE READ BOOK.", "ÄPFEL und Brot",
    "(i) [can] {eat}", "i--can...eat", "newspaper\r\nbook\x0bbread\x0cwater", "we\u00a0read",
]

BPE_TOKENIZER_CASES = [
    "A man in an orange hat starring at something.",
    "Zwei junge weiße Männer sind im Freien in der Nähe vieler Büsche.",
    "ÄÖÜ äöü ß \u1e9e",
    "  leading and trailing  ",
    "multiple   spaces\tand\t\ttabs\nnew\r\nlines\x0bvt\x0cff",
    "",
    " \t\n ",
    "日本語 text",
    "emoji \U0001F642 here",
    "Straße über Ölfeld",
    "Hello, world! (test) \"quotes\" - dash; colon: end.",
    "ÀÉÎÕÜ ×Þ",
    "ЖЕНА ΑΒΓ",
    "a\u00a0b",
    "The DOG runs.",
    "x",
]


def tokenizer_goldens(bpe_lines, toy):
    merges = tk.train_bpe(bpe_lines, 300, lowercase=True)
    spec = {"type": "bpe", "lowercase": True, "merges": merges}
    vocab = tk.build_bpe_vocab(bpe_lines, merges, lowercase=True)
    tok = tk.Tokenizer(spec, vocab)
    cases = []
    for text in BPE_TOKENIZER_CASES:
        pieces, ids, unknown = tok.encode(text)
        cases.append({"text": text, "pieces": pieces, "ids": ids, "unknown": unknown, "detok": tok.decode(ids)})
    write_json(os.path.join(OUT, "tokenizer_bpe.json"), {"tokenizer": spec, "vocab": vocab, "cases": cases})

    spec = {"type": "word", "lowercase": True, "split_punctuation": True}
    vocab = tk.build_word_vocab([en for en, _ in toy], extra=[",", ".", "?", "'"])
    tok = tk.Tokenizer(spec, vocab)
    cases = []
    for text in WORD_TOKENIZER_CASES:
        pieces, ids, unknown = tok.encode(text)
        cases.append({"text": text, "pieces": pieces, "ids": ids, "unknown": unknown, "detok": tok.decode(ids)})
    write_json(os.path.join(OUT, "tokenizer_word.json"), {"tokenizer": spec, "vocab": vocab, "cases": cases})


# ----------------------------------------------------------------------------- main

def main():
    global SEARCH_EOS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    shared_data.add_option(ap)
    ap.add_argument("--search-eos", action="store_true",
                    help="search each model's EOS_SHIFT anew (after changing the init) instead of using EOS_SHIFT")
    args = ap.parse_args()
    SEARCH_EOS = args.search_eos
    data = shared_data.folder(args.data, "toy/eng_de.csv", "multi30k/train.en.gz", "multi30k/train.de.gz")
    torch.set_num_threads(2)
    t0 = time.time()
    os.makedirs(OUT, exist_ok=True)
    toy = toy_pairs(data)
    en_vocab = tk.build_word_vocab([en for en, _ in toy])
    de_vocab = tk.build_word_vocab([de for _, de in toy])
    joint_vocab = tk.build_word_vocab([en for en, _ in toy] + [de for _, de in toy])
    word_spec = {"type": "word", "lowercase": True, "split_punctuation": True}
    bpe_lines = multi30k_lines(data, "en", 2000) + multi30k_lines(data, "de", 2000)

    summary = {}
    summary["tiny_post_sin"] = make_model(
        "tiny_post_sin",
        base_config(d_model=16, n_heads=1, d_ff=32, n_encoder_layers=1, n_decoder_layers=1, activation="relu",
                    norm="post", positions="sinusoidal", max_positions=16, embedding_scale=4.0,
                    shared_embeddings=False, tied_output=False),
        word_spec, en_vocab, de_vocab, WORD_SENTENCES, seed=11, emb_std=0.3)
    summary["small_pre_learned"] = make_model(
        "small_pre_learned",
        base_config(d_model=32, n_heads=4, d_ff=64, n_encoder_layers=2, n_decoder_layers=2, activation="gelu",
                    norm="pre", positions="learned", max_positions=20, embedding_scale=1.0,
                    shared_embeddings=True, tied_output=True),
        word_spec, joint_vocab, joint_vocab, WORD_SENTENCES, seed=9, emb_std=0.5)
    summary["deep_post_learned_f16"] = make_model(
        "deep_post_learned_f16",
        base_config(d_model=64, n_heads=8, d_ff=128, n_encoder_layers=3, n_decoder_layers=3, activation="relu",
                    norm="post", positions="learned", max_positions=24, embedding_scale=8.0,
                    shared_embeddings=False, tied_output=False),
        word_spec, en_vocab, de_vocab, WORD_SENTENCES, seed=3, emb_std=0.15, dtype="F16")

    merges = tk.train_bpe(bpe_lines, 300, lowercase=False)
    bpe_spec = {"type": "bpe", "lowercase": False, "merges": merges}
    bpe_vocab = tk.build_bpe_vocab(bpe_lines, merges, lowercase=False)
    summary["deep_pre_sin_bpe"] = make_model(
        "deep_pre_sin_bpe",
        base_config(d_model=64, n_heads=8, d_ff=96, n_encoder_layers=3, n_decoder_layers=2, activation="gelu",
                    norm="pre", positions="sinusoidal", max_positions=32, embedding_scale=8.0,
                    shared_embeddings=True, tied_output=False),
        bpe_spec, bpe_vocab, bpe_vocab, BPE_SENTENCES, seed=6, emb_std=0.15)

    tokenizer_goldens(bpe_lines, toy)

    for name, cases in summary.items():
        for c in cases:
            print(f"{name:24s} {c['source']!r:50s} -> {c['output_ids']} {c['output_text']!r}")
    total = 0
    for f in sorted(os.listdir(OUT)):
        size = os.path.getsize(os.path.join(OUT, f))
        total += size
        print(f"{size:9d}  {f}")
    print(f"{total:9d}  total; {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
