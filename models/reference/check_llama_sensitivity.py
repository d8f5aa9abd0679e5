#!/usr/bin/env python3
"""Show that the Llama-family goldens (tests/golden/hf/<name>.json, make_hf_llama_goldens.py) catch
the mistakes an implementation of these models is likely to make: each one, made on purpose in a
copy of models/reference/hf_llama.py, moves the goldens by far more than their 1e-4 tolerance
(at least MIN_EFFECT), and the figure is printed.

    /usr/bin/python3 models/reference/check_llama_sensitivity.py   (make_hf_llama_goldens.py --check runs it too)

The mistakes:
  interleaved rotary     dimensions (2i, 2i + 1) turned together by frequency i (the GPT-J / Meta
                         checkpoint layout) instead of (i, i + head_dim / 2) (rotate_half)
  kv head h % n_kv       query head h reads key/value head h % n_kv instead of h // (heads / n_kv):
                         the tiling of k and v instead of repeat_kv's expand + reshape
  RMSNorm weight first   (weight * normalized in float32).to(dtype) instead of weight *
                         normalized.to(dtype). In float32 both are the same operations on the same
                         numbers: the goldens (float32) cannot tell them apart, exactly 0. It shows
                         only with reduced-precision activations, so it is measured as Hugging Face
                         runs a bfloat16 snapshot by default (torch_dtype bfloat16 / "auto"): both
                         orders in bfloat16, against each other
  forgotten BOS          the prompt without the BOS the tokenizer adds (snapshots whose tokenizer
                         adds one): each token's logits against the golden's for the same token
  and, where a snapshot has the feature: the llama3 rope_scaling ignored (default inverse
  frequencies), Qwen2's q/k/v biases dropped, Qwen3's q_norm / k_norm left out.

Where a mistake cannot change anything, by construction, it is said with its figure, 0 against the
reference run on the same machine (the goldens themselves carry the rounding of the machine that
wrote them): the kv head mapping of a model with one key/value head (h % 1 = h // heads = 0), and
the RMSNorm order in float32.
"""

import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "models", "goldens")]

import hf_llama  # noqa: E402

MIN_EFFECT = 1e-2  # 100 times the goldens' tolerance
GOLDEN = os.path.join(ROOT, "tests", "golden", "hf")


class InterleavedRotary(hf_llama.CausalLM):
    def rotate(self, x, cos, sin):
        half = x.shape[-1] // 2
        cos, sin = cos[:, :half].repeat_interleave(2, -1), sin[:, :half].repeat_interleave(2, -1)
        rotated = torch.stack((-x[..., 1::2], x[..., 0::2]), dim=-1).flatten(-2)
        return x * cos + rotated * sin


class ModuloKvHead(hf_llama.CausalLM):
    def repeat_kv(self, hidden_states):
        return hidden_states.repeat(self.num_key_value_groups, 1, 1)


class WeightFirstRmsNorm(hf_llama.CausalLM):
    def rms_norm(self, weight, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.eps)
        return (weight.to(torch.float32) * hidden_states).to(input_dtype)


class DefaultRope(hf_llama.CausalLM):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.inv_freq, self.attention_scaling = hf_llama.default_inv_freq(self.config)


class NoQkvBias(hf_llama.CausalLM):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.qkv_bias = False


class NoQkNorm(hf_llama.CausalLM):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = "qwen3 without q_norm and k_norm"


def worst(a, b):
    """Largest |a - b| over two nested lists or tensors of one shape (inf for a NaN), both as float32:
    a golden's JSON decimals are the shortest that round-trip its float32 values, not those values."""
    d = (torch.as_tensor(a).float().double() - torch.as_tensor(b, dtype=torch.float32).double()).abs()
    return float("inf") if d.isnan().any() else float(d.max())


def effect(model, golden, reference=None):
    """(logits, attention): the largest change over every case's logits and attention maps, against
    the golden, or against `reference` run here (bit for bit: no other machine's rounding in it)."""
    logits = attention = 0.0
    for case in golden["cases"]:
        out, att, _ = model.forward(case["prompt_ids"])
        if reference is None:
            want, want_att = case["logits"], case["attentions"]
        else:
            want, want_att, _ = reference.forward(case["prompt_ids"])
            want_att = torch.stack(want_att)
        logits = max(logits, worst(out, want))
        attention = max(attention, worst(torch.stack(att), want_att))
    return logits, attention


def bos_effect(model, golden, bos):
    """The logits of each token after a prompt's BOS, computed without the BOS, against the golden's."""
    logits = 0.0
    for case in golden["cases"]:
        ids = case["prompt_ids"]
        if len(ids) > 1 and ids[0] == bos and case["add_special_tokens"]:
            logits = max(logits, worst(model.forward(ids[1:])[0], case["logits"][1:]))
    return logits


def bfloat16_effect(folder, golden):
    """The RMSNorm order in bfloat16: {"logits": its largest effect on the logits, "rounding": bfloat16's
    own distance from the float32 goldens, "entries": the share of the first RMSNorm's outputs it
    changes (on the longest prompt), "flips": positions whose argmax it changes, "positions"}."""
    right, wrong = hf_llama.CausalLM(folder, dtype=torch.bfloat16), WeightFirstRmsNorm(folder, dtype=torch.bfloat16)
    out = {"logits": 0.0, "rounding": 0.0, "flips": 0, "positions": 0}
    for case in golden["cases"]:
        expected = right.forward(case["prompt_ids"])[0].float()
        got = wrong.forward(case["prompt_ids"])[0].float()
        out["logits"] = max(out["logits"], worst(got, expected))
        out["rounding"] = max(out["rounding"], worst(expected, case["logits"]))
        out["flips"] += int((got.argmax(-1) != expected.argmax(-1)).sum())
        out["positions"] += len(case["prompt_ids"])
    longest = max(golden["cases"], key=lambda c: len(c["prompt_ids"]))["prompt_ids"]
    x = right.embed_tokens[torch.tensor(longest)]
    weight = right.w["model.layers.0.input_layernorm.weight"]
    out["entries"] = float((right.rms_norm(weight, x) != wrong.rms_norm(weight, x)).float().mean())
    return out


def check_one(name, golden, fail):
    folder = os.path.join(ROOT, golden["snapshot"])
    config = hf_llama.read_config(folder)
    heads, kv_heads = config["num_attention_heads"], config.get("num_key_value_heads", config["num_attention_heads"])
    rows = []

    def expect(mistake, figures, can_change=True, why=""):
        text = ", ".join(f"{k} {v:.3g}" for k, v in figures.items())
        rows.append(f"  {name:20} {mistake:26} {text}" + (f"  ({why})" if why else ""))
        largest = max(figures.values())
        if can_change and not largest >= MIN_EFFECT:
            fail(f"{name}: {mistake} moves the goldens by only {largest}")
        if not can_change and largest != 0.0:
            fail(f"{name}: {mistake} was expected to change nothing, moved the goldens by {largest}")

    logits, attention = effect(InterleavedRotary(folder), golden)
    expect("interleaved rotary", {"logits": logits, "attention": attention})
    reference = hf_llama.CausalLM(folder)
    logits, attention = effect(ModuloKvHead(folder), golden, reference if kv_heads == 1 else None)
    if kv_heads == 1:
        expect("kv head h % n_kv", {"logits": logits, "attention": attention}, False,
               "one key/value head: every query head reads head 0 either way")
    else:
        expect("kv head h % n_kv", {"logits": logits, "attention": attention})
    logits, _ = effect(WeightFirstRmsNorm(folder), golden, reference)
    expect("RMSNorm weight first, f32", {"logits": logits}, False, "the same float32 operations in float32")
    bf16 = bfloat16_effect(folder, golden)
    expect("RMSNorm weight first, bf16", {"logits": bf16["logits"]},
           why=f"{bf16['entries']:.0%} of the first norm's outputs one bfloat16 step apart, argmax changed at "
               f"{bf16['flips']} of {bf16['positions']} positions; bfloat16 itself is {bf16['rounding']:.3g} "
               "from the float32 goldens")
    bos = config.get("bos_token_id")
    if any(c["prompt_ids"][0] == bos and c["add_special_tokens"] for c in golden["cases"]):
        expect("forgotten BOS", {"logits": bos_effect(reference, golden, bos)})
    if hf_llama.rope_type(config) == "llama3":
        logits, attention = effect(DefaultRope(folder), golden)
        expect("llama3 scaling ignored", {"logits": logits, "attention": attention})
    if config["model_type"] == "qwen2":
        logits, attention = effect(NoQkvBias(folder), golden)
        expect("q/k/v biases dropped", {"logits": logits, "attention": attention})
    if config["model_type"] == "qwen3":
        logits, attention = effect(NoQkNorm(folder), golden)
        expect("q_norm/k_norm left out", {"logits": logits, "attention": attention})
    print("\n".join(rows))


def check(goldens, fail):
    """goldens: {name: the committed golden, as read from its JSON}."""
    print("  the mistakes' largest effect on the goldens (tolerance 1e-4; required at least "
          f"{MIN_EFFECT:g} where a mistake can change anything):")
    for name, golden in goldens.items():
        check_one(name, golden, fail)


def main():
    torch.set_num_threads(1)
    import make_hf_llama_goldens  # the snapshot names; imported here, as it imports this module
    from make_hf_goldens import Failures
    goldens = {}
    for name in make_hf_llama_goldens.NAMES:
        with open(os.path.join(GOLDEN, f"{name}.json"), encoding="utf-8") as f:
            goldens[name] = json.load(f)
    fail = Failures()
    check(goldens, fail)
    if fail.messages:
        sys.exit(f"check_llama_sensitivity.py: {len(fail.messages)} failure(s)")
    print("check_llama_sensitivity.py: every mistake moves the goldens (or cannot, as said)")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
