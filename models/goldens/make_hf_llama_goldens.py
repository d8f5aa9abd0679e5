#!/usr/bin/env python3
"""Write tests/golden/hf/<name>.json for the Llama-family snapshots under tests/data/hf/ (written by
make_hf_llama_checkpoints.py), from models/reference/hf_llama.py, the reading of Hugging Face's
LlamaForCausalLM / Qwen2ForCausalLM / Qwen3ForCausalLM and generate(): per prompt the logits at
every position, every attention map, and greedy and beam-4 generation. Schema: tests/golden/README.md
("Hugging Face Llama, Qwen2, Qwen3").

    /usr/bin/python3 models/goldens/make_hf_llama_goldens.py           # write the goldens
    /usr/bin/python3 models/goldens/make_hf_llama_goldens.py --check   # recompute, compare, write nothing

The prompts are token id lists: PROMPTS' texts encoded by the snapshot's tokenizer as
tokenizer(text) encodes it (the BOS its post-processor adds included), a chat turn rendered by the
snapshot's chat template and encoded with add_special_tokens=False, and two cut to a number of
tokens: one token (BOS alone where the tokenizer adds one) and the first tokens of a long text
(LONG_TOKENS: 80 and 72 for the llama3-scaled snapshots, past their rule's low-frequency wavelength
64 = original_max_position_embeddings / low_freq_factor, and for llama-3.2-tiny past the wavelength
of its first divided frequency, 73.9; OTHER_LONG_TOKENS elsewhere).

--check also shows the goldens are right where they can be checked alone and that they fail:
  * the committed goldens equal what the reference computes now (golden_compare's tolerance);
  * a float64 run agrees with the float32 goldens (logits within 5e-5, attention within 1e-5, relative to
    max(1, |golden|) as golden_compare measures), and one attention row per snapshot recomputed
    with plain Python loops (rotary as the rotation of the pairs (j, j + head_dim / 2), the inverse
    frequencies from the llama3 rule in double precision) agrees within 1e-5;
  * attention is far from uniform (entropy over log(keys)) and the logits spread over units;
  * each llama3-scaled snapshot has inverse frequencies in all three branches of the rule;
  * every greedy and beam decision survives logits perturbed by up to 2e-5;
  * the mistakes of check_llama_sensitivity.py move the goldens by far more than 1e-4;
  * where node and the npm packages are installed (npm ci), Hugging Face's tokenizers.js gives the
    prompts' ids for their texts and @huggingface/jinja renders each chat prompt from the snapshot's
    chat_template (check_hf_prompts.mjs); skipped, loudly, without them.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
ROOT = os.path.dirname(MODELS)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

import check_llama_sensitivity  # noqa: E402
import hf_bert  # noqa: E402
import hf_llama  # noqa: E402
import hf_marian  # noqa: E402
import make_hf_llama_checkpoints as checkpoints  # noqa: E402
from make_goldens import write_json  # noqa: E402
from make_hf_goldens import Failures, as_plain, compare, max_abs_difference  # noqa: E402

OUT = os.path.join(ROOT, "tests", "golden", "hf")
NAMES = list(checkpoints.SPECS)
MAX_NEW_TOKENS = 12
NUM_BEAMS = 4
LENGTH_PENALTY = 1.0
EARLY_STOPPING = False
LONG_TOKENS = {"llama-3.2-tiny": 80, "llama-3.1-mqa-tiny": 72}  # others: OTHER_LONG_TOKENS
OTHER_LONG_TOKENS = 36
LONG_TEXT = checkpoints.CORPUS.split("\n\n")[3].replace("\n", " ")
# (name, text, how many of its tokens; None: all)
PROMPTS = [
    ("one token", "The lighthouse", 1),
    ("short", "Hi", None),
    ("sentence", "The keeper climbed the stairs.", None),
    ("punctuation and numbers", "\"We're up!\" 2.50", None),
    ("white space and accents", "Café\n  naïve\n\n", None),
    ("bytes outside the merges", "A € 🍎", None),
    ("long", LONG_TEXT, "long"),
]
CHAT = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi!"}]
# CHAT as each chat template renders it with add_generation_prompt=True (check_hf_prompts.mjs renders
# the snapshot's template to compare).
CHAT_PROMPTS = {
    "llama3": "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nBe brief.<|eot_id|>"
              "<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>"
              "<|start_header_id|>assistant<|end_header_id|>\n\n",
    "tinyllama": "<|system|>\nBe brief.</s>\n<|user|>\nHi!</s>\n<|assistant|>\n",
    "qwen": "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi!<|im_end|>\n<|im_start|>assistant\n",
}
# A base model's prompt with a document boundary in it, written as its special token (SmolLM2 has no
# chat template).
DOCUMENTS = {"smollm2-tiny": "Hi.<|endoftext|>The keeper"}
CHAT_OF = {"llama-3.2-tiny": "llama3", "llama-3.1-mqa-tiny": "llama3", "tinyllama-tiny": "tinyllama",
           "qwen2.5-tiny": "qwen", "qwen3-tiny": "qwen"}
NOISE = 2e-5


def snapshot(name):
    return os.path.join(ROOT, "tests", "data", "hf", name)


def special_tokens(folder):
    with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
        return {t["content"]: t["id"] for t in json.load(f)["added_tokens"]}


def encode_with_specials(tokenizer, specials, text):
    """tokenizer(text, add_special_tokens=False): the added tokens split out first (hf_bert's
    reading of that step), each piece between them encoded on its own."""
    ids = []
    for piece in hf_bert.split_on_added_tokens(text, specials):
        ids += [specials[piece]] if piece in specials else tokenizer.bpe.encode(piece)
    return ids


def prompts(name, tokenizer):
    """[(case name, text, ids, add_special_tokens, how many of the text's tokens or None)], the texts cut
    where PROMPTS says."""
    out = []
    for case, text, count in PROMPTS:
        ids = tokenizer.encode(text)
        if count == "long":
            count = LONG_TOKENS.get(name, OTHER_LONG_TOKENS)
            if len(ids) < count:
                raise ValueError(f"{name}: the long text has only {len(ids)} tokens")
        out.append((case, text, ids[:count] if count else ids, True, count))
    specials = special_tokens(snapshot(name))
    if name in CHAT_OF:
        text = CHAT_PROMPTS[CHAT_OF[name]]
        out.append(("chat", text, encode_with_specials(tokenizer, specials, text), False, None))
    if name in DOCUMENTS:
        text = DOCUMENTS[name]
        bos = [] if tokenizer.bos_id is None else [tokenizer.bos_id]
        ids = bos + encode_with_specials(tokenizer, specials, text)
        out.append(("special token in the text", text, ids, True, None))
    return out


def generation_settings(model):
    return {"do_sample": False, "num_beams": NUM_BEAMS, "num_return_sequences": NUM_BEAMS,
            "greedy_num_beams": 1, "length_penalty": LENGTH_PENALTY, "early_stopping": EARLY_STOPPING,
            "max_new_tokens": MAX_NEW_TOKENS, "eos_token_id": model.eos_token_id(), "repetition_penalty": 1.0}


def make_case(model, case, text, ids, add_special_tokens, count):
    logits, attentions, _ = model.forward(ids)
    greedy_ids, greedy_score = hf_llama.greedy(model, ids, MAX_NEW_TOKENS)
    full = model.forward(ids + greedy_ids)[0]
    log_prob = sum(float(full[len(ids) - 1 + n].log_softmax(-1)[t]) for n, t in enumerate(greedy_ids))
    beams = hf_llama.beam_search(model, ids, MAX_NEW_TOKENS, NUM_BEAMS, length_penalty=LENGTH_PENALTY,
                                 early_stopping=EARLY_STOPPING)
    out = {"name": case, "text": text, "add_special_tokens": add_special_tokens}
    if count:
        out["first_tokens_of_text"] = count
    out.update({
        "prompt_ids": ids,
        "logits": logits,
        "attentions": torch.stack(attentions),
        "greedy": {"ids": greedy_ids, "score": greedy_score, "log_prob": torch.tensor(log_prob)},
        "beam": {"num_beams": NUM_BEAMS, "length_penalty": LENGTH_PENALTY, "early_stopping": EARLY_STOPPING,
                 "max_new_tokens": MAX_NEW_TOKENS,
                 "sequences": [{"ids": new_ids, "score": score} for new_ids, score in beams]},
    })
    return out


def rope_summary(model):
    """inv_freq as the reference computes it, and for llama3 which rule each frequency took."""
    out = {"rope_type": hf_llama.rope_type(model.config), "inv_freq": model.inv_freq}
    if out["rope_type"] == "llama3":
        out["branches"] = llama3_branches(model.config)
    return out


def llama3_branches(config):
    """{"kept", "smoothed", "divided"}: the indices of the frequencies each branch of the rule took."""
    s = config["rope_scaling"]
    base, _ = hf_llama.default_inv_freq(config)
    wavelen = 2 * math.pi / base
    high = s["original_max_position_embeddings"] / s["high_freq_factor"]
    low = s["original_max_position_embeddings"] / s["low_freq_factor"]
    return {"kept": [i for i, w in enumerate(wavelen.tolist()) if w < high],
            "smoothed": [i for i, w in enumerate(wavelen.tolist()) if high <= w <= low],
            "divided": [i for i, w in enumerate(wavelen.tolist()) if w > low]}


def make_golden(name, tokenizer, model=None):
    model = model or hf_llama.CausalLM(snapshot(name))
    cases = [make_case(model, *prompt) for prompt in prompts(name, tokenizer)]
    return {"snapshot": f"tests/data/hf/{name}", "hf_config": model.config, "generation": generation_settings(model),
            "rope": rope_summary(model), "cases": cases}


# ----------------------------------------------------------------------------- checks

def relative_difference(golden, got):
    """Largest |got - golden| / max(1, |golden|): golden_compare's measure (inf for a NaN)."""
    golden, got = torch.tensor(golden, dtype=torch.float64), got.double()
    d = (got - golden).abs() / golden.abs().clamp_min(1.0)
    return math.inf if d.isnan().any() else float(d.max())


def check_float64(name, golden, fail):
    """Everything in float64, the RMSNorm, rotary tables and softmax too."""
    model = hf_llama.CausalLM(snapshot(name), dtype=torch.float64)
    model.upcast = torch.float64
    worst_logits = worst_attention = 0.0
    for case in golden["cases"]:
        logits, attentions, _ = model.forward(case["prompt_ids"])
        worst_logits = max(worst_logits, relative_difference(case["logits"], logits))
        worst_attention = max(worst_attention, relative_difference(case["attentions"], torch.stack(attentions)))
    print(f"  {name}: float64 vs golden, relative: logits {worst_logits:.3g}, attention {worst_attention:.3g}")
    if not (worst_logits <= 5e-5 and worst_attention <= 1e-5):
        fail(f"{name}: the float64 run differs: logits {worst_logits}, attention {worst_attention}")


def loop_inv_freq(config):
    """The inverse frequencies in double precision, from the rules as the rope functions state them."""
    head_dim = hf_llama.head_dim_of(config)
    theta = config.get("rope_theta", 10000.0)
    freqs = [theta ** (-(2 * i) / head_dim) for i in range(head_dim // 2)]
    s = config.get("rope_scaling")
    if not s:
        return freqs
    out = []
    for f in freqs:
        wavelength = 2 * math.pi / f
        if wavelength < s["original_max_position_embeddings"] / s["high_freq_factor"]:
            out.append(f)
        elif wavelength > s["original_max_position_embeddings"] / s["low_freq_factor"]:
            out.append(f / s["factor"])
        else:
            smooth = (s["original_max_position_embeddings"] / wavelength - s["low_freq_factor"]) / (
                s["high_freq_factor"] - s["low_freq_factor"])
            out.append((1 - smooth) * f / s["factor"] + smooth * f)
    return out


def loop_attention_row(model, ids, head, query):
    """Layer 0's attention row `query` of query `head`, with lists and loops: RMSNorm, the q and k
    projections (+ biases), Qwen3's per-head norms, the rotation of each pair (j, j + d/2) by
    position * inv_freq[j], the dot products scaled by 1/sqrt(d), a softmax over keys 0..query."""
    w = {k: v.double().tolist() for k, v in model.w.items() if k.startswith("model.layers.0.self_attn.")
         or k in ("model.embed_tokens.weight", "model.layers.0.input_layernorm.weight")}
    d, hd = model.hidden_size, model.head_dim
    kv_head = head // (model.num_heads // model.num_kv_heads)
    inv_freq = loop_inv_freq(model.config)
    p = "model.layers.0.self_attn."

    def rms(x, weight):
        scale = 1.0 / math.sqrt(sum(v * v for v in x) / len(x) + model.eps)
        return [g * v * scale for g, v in zip(weight, x)]

    def project(name, x, row0):
        rows = w[p + name + ".weight"][row0:row0 + hd]
        bias = w[p + name + ".bias"][row0:row0 + hd] if model.qkv_bias else [0.0] * hd
        return [b + sum(a * v for a, v in zip(r, x)) for r, b in zip(rows, bias)]

    def rotate(x, pos):
        out = list(x)
        for j in range(hd // 2):
            c, s = math.cos(pos * inv_freq[j]), math.sin(pos * inv_freq[j])
            out[j] = x[j] * c - x[j + hd // 2] * s
            out[j + hd // 2] = x[j + hd // 2] * c + x[j] * s
        return out

    vectors = []
    for pos, token in enumerate(ids[:query + 1]):
        x = rms(w["model.embed_tokens.weight"][token], w["model.layers.0.input_layernorm.weight"])
        q, k = project("q_proj", x, head * hd), project("k_proj", x, kv_head * hd)
        if model.kind == "qwen3":
            q, k = rms(q, w[p + "q_norm.weight"]), rms(k, w[p + "k_norm.weight"])
        vectors.append((rotate(q, pos), rotate(k, pos)))
    q = vectors[query][0]
    scores = [sum(a * b for a, b in zip(q, k)) / math.sqrt(hd) for _, k in vectors]
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    return [v / sum(e) for v in e]


def check_loop_row(name, golden, fail):
    model = hf_llama.CausalLM(snapshot(name), dtype=torch.float64)
    model.upcast = torch.float64
    case = max(golden["cases"], key=lambda c: len(c["prompt_ids"]))
    head, query = model.num_heads - 1, len(case["prompt_ids"]) - 1
    row = loop_attention_row(model, case["prompt_ids"], head, query)
    d = max_abs_difference(case["attentions"][0][head][query][:query + 1], row)
    print(f"  {name}: loop-computed attention, layer 0, head {head}, query {query} vs golden {d:.3g}")
    if not d <= 1e-5:
        fail(f"{name}: the loop-computed attention row differs by {d}")


def check_spread(name, golden, fail):
    """Attention far from uniform: mean over rows of entropy / log(keys); logits spread."""
    ratios, spreads = [], []
    for case in golden["cases"]:
        att = torch.tensor(case["attentions"], dtype=torch.float64)
        for q in range(2, att.shape[-1]):
            row = att[:, :, q, :q + 1]
            ratios.append(float((-(row * row.clamp_min(1e-300).log()).sum(-1) / math.log(q + 1)).mean()))
        spreads.append(float(torch.tensor(case["logits"]).std(-1).mean()))
    entropy, spread = sum(ratios) / len(ratios), sum(spreads) / len(spreads)
    print(f"  {name}: attention entropy / uniform's {entropy:.2f}, logits' standard deviation {spread:.2f}")
    if not (entropy < 0.8 and spread > 1.0):
        fail(f"{name}: attention too uniform ({entropy}) or logits too flat ({spread})")


def check_branches(name, golden, fail):
    branches = golden["rope"].get("branches")
    if branches is None:
        return
    print(f"  {name}: llama3 rule: frequencies kept {branches['kept']}, smoothed {branches['smoothed']}, "
          f"divided {branches['divided'][0]}..{branches['divided'][-1]}")
    if not all(branches[b] for b in ("kept", "smoothed", "divided")):
        fail(f"{name}: a branch of the llama3 rule is not exercised: {branches}")


def check_decisions_are_robust(name, golden, fail, model, draws=3):
    """Greedy and beam again with the logits perturbed by uniform noise of +-NOISE."""
    exact = hf_marian.next_logits
    for seed in range(draws):
        g = torch.Generator().manual_seed(seed)

        def noisy(model_, enc, sequences):
            logits = exact(model_, enc, sequences)
            return logits + (torch.rand(logits.shape, generator=g) * 2 * NOISE - NOISE)

        hf_marian.next_logits = noisy
        try:
            for case in golden["cases"]:
                ids = case["prompt_ids"]
                if hf_llama.greedy(model, ids, MAX_NEW_TOKENS)[0] != case["greedy"]["ids"]:
                    fail(f"{name} {case['name']!r}: greedy changes under {NOISE} noise (seed {seed})")
                beams = hf_llama.beam_search(model, ids, MAX_NEW_TOKENS, NUM_BEAMS)
                if [b for b, _ in beams] != [s["ids"] for s in case["beam"]["sequences"]]:
                    fail(f"{name} {case['name']!r}: beam changes under {NOISE} noise (seed {seed})")
        finally:
            hf_marian.next_logits = exact
    print(f"  {name}: greedy and beam decisions unchanged under {NOISE} logit noise ({draws} draws)")


def check_prompts_with_hugging_face(goldens, fail):
    """check_hf_prompts.mjs: tokenizers.js and @huggingface/jinja on every snapshot's prompts."""
    node = shutil.which("node")
    packages = os.path.join(ROOT, "node_modules", "@huggingface")
    if not node or not all(os.path.isdir(os.path.join(packages, p)) for p in ("tokenizers", "jinja")):
        print("  SKIPPED: the prompts against tokenizers.js and @huggingface/jinja (needs node and npm ci)")
        return
    request = {name: {"folder": snapshot(name), "chat": CHAT,
                      "cases": [{k: c[k] for k in ("name", "text", "prompt_ids", "add_special_tokens")} |
                                {"first_tokens_of_text": c.get("first_tokens_of_text")} for c in golden["cases"]]}
               for name, golden in goldens.items()}
    result = subprocess.run([node, os.path.join(HERE, "check_hf_prompts.mjs")], input=json.dumps(request),
                            capture_output=True, text=True)
    print("  " + result.stdout.strip().replace("\n", "\n  "))
    if result.returncode != 0:
        fail(f"check_hf_prompts.mjs: {result.stderr.strip() or 'mismatches above'}")


def check(fail):
    goldens = {}
    tokenizers = checkpoints.tokenizers()
    for name in NAMES:
        with open(os.path.join(OUT, f"{name}.json"), encoding="utf-8") as f:
            committed = json.load(f)
        model = hf_llama.CausalLM(snapshot(name))
        golden = as_plain(make_golden(name, tokenizers[name], model))
        compare(committed, golden, name, fail)
        goldens[name] = committed
        check_float64(name, committed, fail)
        check_loop_row(name, committed, fail)
        check_spread(name, committed, fail)
        check_branches(name, committed, fail)
        check_decisions_are_robust(name, committed, fail, model)
    check_llama_sensitivity.check(goldens, fail)
    check_prompts_with_hugging_face(goldens, fail)


def main(checking=False):
    torch.set_num_threads(1)
    start = time.time()
    if checking:
        fail = Failures()
        check(fail)
        if fail.messages:
            sys.exit(f"make_hf_llama_goldens.py --check: {len(fail.messages)} failure(s)")
        print(f"make_hf_llama_goldens.py --check: the Llama-family goldens match the reference "
              f"({time.time() - start:.0f} s)")
        return
    os.makedirs(OUT, exist_ok=True)
    tokenizers = checkpoints.tokenizers()
    for name in NAMES:
        golden = make_golden(name, tokenizers[name])
        path = os.path.join(OUT, f"{name}.json")
        write_json(path, golden)
        ends = sum(len(c["greedy"]["ids"]) < MAX_NEW_TOKENS for c in golden["cases"])
        beam_ends = sum(len(s["ids"]) < MAX_NEW_TOKENS for c in golden["cases"] for s in c["beam"]["sequences"])
        print(f"{name}: {len(golden['cases'])} cases, prompt lengths {[len(c['prompt_ids']) for c in golden['cases']]}, "
              f"greedy ends early {ends}, beam sequences ending early {beam_ends}, {os.path.getsize(path)} bytes")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
