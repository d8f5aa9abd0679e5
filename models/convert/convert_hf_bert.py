#!/usr/bin/env python3
"""Convert a Hugging Face BERT checkpoint (BertForMaskedLM / BertForPreTraining layout) into an
attnscope model file ("architecture": "bert", models/FORMAT.md). Run with /usr/bin/python3 (torch);
`transformers` is not needed.

    /usr/bin/python3 models/convert/convert_hf_bert.py path/to/bert-base-uncased out.safetensors [--f16]

The input folder holds config.json, vocab.txt and the weights as model.safetensors (F32 or F16) or
pytorch_model.bin; tokenizer_config.json's do_lower_case is read when present (else --cased /
uncased by default). Tensor names mapped (N: layer):

    bert.embeddings.word_embeddings.weight                -> embed.token.weight
    bert.embeddings.position_embeddings.weight            -> embed.position.weight
    bert.embeddings.token_type_embeddings.weight          -> embed.segment.weight
    bert.embeddings.LayerNorm.{weight,bias}               -> embed.norm.{weight,bias}
    bert.encoder.layer.N.attention.self.query.*           -> layers.N.self_attn.q_proj.*  (key: k_proj, value: v_proj)
    bert.encoder.layer.N.attention.output.dense.*         -> layers.N.self_attn.out_proj.*
    bert.encoder.layer.N.attention.output.LayerNorm.*     -> layers.N.self_attn_norm.*
    bert.encoder.layer.N.intermediate.dense.*             -> layers.N.ffn.fc1.*
    bert.encoder.layer.N.output.dense.*                   -> layers.N.ffn.fc2.*
    bert.encoder.layer.N.output.LayerNorm.*               -> layers.N.ffn_norm.*
    bert.pooler.dense.*                                   -> pooler.*   (when present)
    cls.predictions.transform.dense.*                     -> mlm.transform.*
    cls.predictions.transform.LayerNorm.*                 -> mlm.norm.*
    cls.predictions.bias (= cls.predictions.decoder.bias) -> mlm.bias
    cls.predictions.decoder.weight                        tied: must equal the word embeddings

Old TensorFlow-converted checkpoints name LayerNorm parameters gamma / beta: read as weight / bias.
Dropped: bert.embeddings.position_ids (a buffer) and cls.seq_relationship.* (next-sentence head).
Anything else is an error, as is an activation other than "gelu" (erf) or relative positions.
"""

import argparse
import json
import os
import re
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(os.path.dirname(HERE), "reference")]

from attnscope_ref import bert, safetensors_io  # noqa: E402
from attnscope_ref.wordpiece import DEFAULT_SPEC  # noqa: E402

LAYER = {
    "attention.self.query": "self_attn.q_proj", "attention.self.key": "self_attn.k_proj",
    "attention.self.value": "self_attn.v_proj", "attention.output.dense": "self_attn.out_proj",
    "attention.output.LayerNorm": "self_attn_norm", "intermediate.dense": "ffn.fc1", "output.dense": "ffn.fc2",
    "output.LayerNorm": "ffn_norm",
}
TOP = {
    "bert.embeddings.word_embeddings": "embed.token", "bert.embeddings.position_embeddings": "embed.position",
    "bert.embeddings.token_type_embeddings": "embed.segment", "bert.embeddings.LayerNorm": "embed.norm",
    "bert.pooler.dense": "pooler", "cls.predictions.transform.dense": "mlm.transform",
    "cls.predictions.transform.LayerNorm": "mlm.norm",
}
DROPPED = re.compile(r"^(bert\.embeddings\.position_ids|cls\.seq_relationship\..*)$")


def read_weights(folder):
    st = os.path.join(folder, "model.safetensors")
    if os.path.exists(st):
        return {k: v.to(torch.float32) for k, v in safetensors_io.load(st)[0].items()}
    pt = os.path.join(folder, "pytorch_model.bin")
    if os.path.exists(pt):
        return {k: v.to(torch.float32) for k, v in torch.load(pt, map_location="cpu").items()}
    raise SystemExit(f"{folder}: neither model.safetensors nor pytorch_model.bin")


def rename(hf_name):
    """Our tensor name for a Hugging Face one; None for one we drop; ValueError if unknown."""
    if DROPPED.match(hf_name):
        return None
    name = hf_name.replace(".gamma", ".weight").replace(".beta", ".bias")
    if name == "cls.predictions.bias":
        return "mlm.bias"
    if name in ("cls.predictions.decoder.weight", "cls.predictions.decoder.bias"):
        return None  # tied weight / the same vector as cls.predictions.bias, checked in convert()
    m = re.match(r"^bert\.encoder\.layer\.(\d+)\.(.+)\.(weight|bias)$", name)
    if m and m.group(2) in LAYER:
        return f"layers.{m.group(1)}.{LAYER[m.group(2)]}.{m.group(3)}"
    m = re.match(r"^(.+)\.(weight|bias)$", name)
    if m and m.group(1) in TOP:
        return f"{TOP[m.group(1)]}.{m.group(2)}"
    raise ValueError(f"unexpected tensor '{hf_name}' in a BERT checkpoint")


def convert_config(hf, vocab):
    act = hf.get("hidden_act", "gelu")
    if act != "gelu":
        raise ValueError(f"hidden_act '{act}' is not supported (attnscope's BERT uses the erf GELU, 'gelu')")
    if hf.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only absolute position embeddings are supported")
    if hf.get("vocab_size", len(vocab)) != len(vocab):
        raise ValueError(f"config vocab_size {hf['vocab_size']} != {len(vocab)} lines in vocab.txt")
    return {
        "d_model": hf["hidden_size"], "n_heads": hf["num_attention_heads"], "d_ff": hf["intermediate_size"],
        "n_layers": hf["num_hidden_layers"], "n_segments": hf.get("type_vocab_size", 2),
        "max_positions": hf["max_position_embeddings"], "layer_norm_eps": hf.get("layer_norm_eps", 1e-12),
    }


def convert(folder, out, lowercase=None, dtype="F32", keep_pooler=True, name=None):
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        hf_config = json.load(f)
    with open(os.path.join(folder, "vocab.txt"), encoding="utf-8") as f:
        vocab = [line.rstrip("\n") for line in f]
    while vocab and vocab[-1] == "":
        vocab.pop()
    if lowercase is None:
        lowercase = True
        tc = os.path.join(folder, "tokenizer_config.json")
        if os.path.exists(tc):
            with open(tc, encoding="utf-8") as f:
                lowercase = bool(json.load(f).get("do_lower_case", True))
    hf = read_weights(folder)
    tensors = {}
    for k, v in hf.items():
        ours = rename(k)
        if ours is not None and (keep_pooler or not ours.startswith("pooler.")):
            tensors[ours] = v
    if "mlm.bias" not in tensors and "cls.predictions.decoder.bias" in hf:
        tensors["mlm.bias"] = hf["cls.predictions.decoder.bias"]
    if "cls.predictions.decoder.weight" in hf and not torch.equal(hf["cls.predictions.decoder.weight"],
                                                                  tensors["embed.token.weight"]):
        raise ValueError("cls.predictions.decoder.weight differs from the word embeddings: attnscope's BERT ties them")
    if "cls.predictions.decoder.bias" in hf and not torch.equal(hf["cls.predictions.decoder.bias"], tensors["mlm.bias"]):
        raise ValueError("cls.predictions.decoder.bias differs from cls.predictions.bias")
    for needed in ("mlm.transform.weight", "mlm.bias"):
        if needed not in tensors:
            raise ValueError("the checkpoint has no masked-LM head (cls.predictions.*): save BertForMaskedLM or "
                             "BertForPreTraining")
    config = convert_config(hf_config, vocab)
    config["pooler"] = "pooler.weight" in tensors
    config = bert.complete_config(config, vocab)
    model = bert.Bert(config, len(vocab))
    expected = model.state_dict()
    missing, extra = sorted(set(expected) - set(tensors)), sorted(set(tensors) - set(expected))
    if missing or extra:
        raise ValueError(f"missing tensors {missing}, unexpected tensors {extra}")
    model.load_state_dict(tensors, strict=True)
    spec = dict(DEFAULT_SPEC, lowercase=lowercase)
    bert.export(model, config, vocab, out, tokenizer_spec=spec, dtype=dtype, name=name or os.path.basename(folder),
                description=f"converted from the Hugging Face checkpoint {os.path.basename(os.path.abspath(folder))} "
                            "by models/convert/convert_hf_bert.py")
    return config


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="Hugging Face model folder: config.json, vocab.txt, model.safetensors or "
                                   "pytorch_model.bin")
    ap.add_argument("out", help="the attnscope .safetensors to write")
    ap.add_argument("--f16", action="store_true", help="store binary16 weights (half the size)")
    ap.add_argument("--cased", action="store_true", help="do not lower-case (overrides tokenizer_config.json)")
    ap.add_argument("--no-pooler", action="store_true", help="leave the pooler out")
    args = ap.parse_args()
    config = convert(args.folder, args.out, lowercase=False if args.cased else None, dtype="F16" if args.f16 else "F32",
                     keep_pooler=not args.no_pooler)
    print(f"{args.out}: {config['n_layers']} layers x {config['n_heads']} heads x {config['d_model']}, "
          f"{os.path.getsize(args.out) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
