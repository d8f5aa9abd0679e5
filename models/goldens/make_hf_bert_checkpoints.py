#!/usr/bin/env python3
"""Writes small random BERT snapshots in the exact layout of real Hugging Face snapshots into
tests/data/hf/ (run with /usr/bin/python3; deterministic):

    bert-base-uncased-tiny             BertForMaskedLM as save_pretrained writes it today: model.safetensors
                                       without the tied cls.predictions.decoder.* (dropped as tied weights)
    bert-base-cased-tiny               BertForMaskedLM from an older save: the tied decoder weight and bias
                                       present, the position_ids buffer as I64, do_lower_case false
    bert-base-multilingual-cased-tiny  BertForMaskedLM, a multilingual vocabulary (CJK, Cyrillic, accents)
    bert-base-uncased-tiny-gamma-beta  the original TensorFlow-converted layout: BertForPreTraining in
                                       pytorch_model.bin, LayerNorm gamma/beta, the pooler and the
                                       next-sentence head, the decoder weight without a decoder bias

Each has config.json (the real bert-base-* fields, scaled down to 2 layers x 4 heads x d 64: TINY),
vocab.txt, tokenizer_config.json and tokenizer.json as those snapshots have them. The weights are
random, scaled so that attention is peaked and the logits spread. The goldens are made from these
folders by make_hf_bert_goldens.py.
"""

import argparse
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "tests", "data", "hf")
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "reference")]

from attnscope_ref import safetensors_io  # noqa: E402

SPECIALS_HEAD = ["[PAD]", "[unused0]", "[unused1]", "[unused2]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
PUNCTUATION = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + ["—", "«", "»", "¿", "¡"]
CONTINUATIONS = ["##s", "##ing", "##ed", "##able", "##aff", "##er", "##ly", "##e", "##a", "##i", "##o", "##n", "##t",
                 "##r", "##d", "##y", "##en"]

UNCASED_WORDS = ["the", "a", "man", "is", "riding", "horse", "dog", "in", "of", "city", "love", "paris", "hello",
                 "world", "un", "cafe", "naive", "resume", "play", "she", "he", "bike", "big", "red", "and", "to",
                 "中", "国", "mask", "x", "e", "c", "n"]
CASED_WORDS = ["The", "the", "a", "man", "is", "riding", "horse", "dog", "in", "of", "city", "love", "Paris", "Hello",
               "World", "world", "un", "café", "cafe", "naïve", "CAF", "##É", "play", "She", "he", "bike", "big", "red",
               "and", "to", "中", "国", "x", "e", "c", "n"]
MULTILINGUAL_WORDS = ["Der", "Mann", "fährt", "ein", "Fahrrad", "Zürich", "café", "naïve", "the", "a", "man", "is",
                      "東", "京", "は", "日", "本", "の", "首", "都", "です", "Москва", "столица", "России", "и",
                      "Россия", "##и", "##ы", "el", "niño", "está", "en", "la", "casa", "x", "e", "c", "n"]


def vocabulary(words):
    return SPECIALS_HEAD + PUNCTUATION + words + CONTINUATIONS


# The tiny snapshots' dimensions; make_hf_real_size.py passes bert-base's own.
TINY = {"hidden_size": 64, "intermediate_size": 256, "max_position_embeddings": 128, "num_attention_heads": 4,
        "num_hidden_layers": 2}


def hf_config(vocab_size, multilingual=False, sizes=TINY):
    """bert-base-*'s config.json at `sizes` (the real fields, in their order)."""
    c = {
        "architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1, "gradient_checkpointing": False,
        "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": sizes["hidden_size"],
        "initializer_range": 0.02, "intermediate_size": sizes["intermediate_size"], "layer_norm_eps": 1e-12,
        "max_position_embeddings": sizes["max_position_embeddings"], "model_type": "bert",
        "num_attention_heads": sizes["num_attention_heads"], "num_hidden_layers": sizes["num_hidden_layers"],
        "pad_token_id": 0, "position_embedding_type": "absolute",
        "transformers_version": "4.6.0.dev0", "type_vocab_size": 2, "use_cache": True, "vocab_size": vocab_size,
    }
    if multilingual:  # bert-base-multilingual-cased's config has the original BERT's pooler fields besides
        del c["gradient_checkpointing"], c["position_embedding_type"], c["transformers_version"], c["use_cache"]
        d, heads = sizes["hidden_size"], sizes["num_attention_heads"]
        c.update({"directionality": "bidi", "pooler_fc_size": d, "pooler_num_attention_heads": heads,
                  "pooler_num_fc_layers": 3, "pooler_size_per_head": d // heads,
                  "pooler_type": "first_token_transform"})
    return c


def tokenizer_config(lowercase, model_max_length):
    return {"do_lower_case": lowercase, "model_max_length": model_max_length}


def tokenizer_json(vocab, lowercase):
    """tokenizer.json as the tokenizers library saves BertTokenizerFast."""
    added = [{"id": vocab.index(t), "content": t, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for t in ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]]
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [cls], "tokens": ["[CLS]"]},
                               "[SEP]": {"id": "[SEP]", "ids": [sep], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {p: i for i, p in enumerate(vocab)}},
    }


def hf_state(c, seed, pretraining=False, old_names=False, decoder=False, position_ids=False):
    """A BertForMaskedLM (or, with `pretraining`, BertForPreTraining) state dict in Hugging Face's names."""
    g = torch.Generator().manual_seed(seed)
    d, ff, V = c["hidden_size"], c["intermediate_size"], c["vocab_size"]

    def r(*shape, scale=1.0):
        return scale * torch.randn(*shape, generator=g)

    w, b = ("gamma", "beta") if old_names else ("weight", "bias")
    s = {
        "bert.embeddings.word_embeddings.weight": r(V, d),
        "bert.embeddings.position_embeddings.weight": r(c["max_position_embeddings"], d, scale=0.5),
        "bert.embeddings.token_type_embeddings.weight": r(c["type_vocab_size"], d, scale=0.5),
        f"bert.embeddings.LayerNorm.{w}": 1 + r(d, scale=0.1), f"bert.embeddings.LayerNorm.{b}": r(d, scale=0.1),
    }
    if position_ids:
        s["bert.embeddings.position_ids"] = torch.arange(c["max_position_embeddings"]).unsqueeze(0)
    for n in range(c["num_hidden_layers"]):
        p = f"bert.encoder.layer.{n}."
        for name, shape, gain in (("attention.self.query", (d, d), 2.5), ("attention.self.key", (d, d), 2.5),
                                  ("attention.self.value", (d, d), 1.0), ("attention.output.dense", (d, d), 1.0),
                                  ("intermediate.dense", (ff, d), 1.0), ("output.dense", (d, ff), 1.0)):
            s[p + name + ".weight"] = r(*shape, scale=gain / math.sqrt(shape[1]))
            s[p + name + ".bias"] = r(shape[0], scale=0.1)
        for name in ("attention.output.LayerNorm", "output.LayerNorm"):
            s[f"{p}{name}.{w}"] = 1 + r(d, scale=0.1)
            s[f"{p}{name}.{b}"] = r(d, scale=0.1)
    if pretraining:
        s["bert.pooler.dense.weight"], s["bert.pooler.dense.bias"] = r(d, d, scale=1 / math.sqrt(d)), r(d, scale=0.1)
    s["cls.predictions.bias"] = r(V, scale=0.5)
    s["cls.predictions.transform.dense.weight"] = r(d, d, scale=1.5 / math.sqrt(d))
    s["cls.predictions.transform.dense.bias"] = r(d, scale=0.1)
    s[f"cls.predictions.transform.LayerNorm.{w}"] = 1 + r(d, scale=0.1)
    s[f"cls.predictions.transform.LayerNorm.{b}"] = r(d, scale=0.1)
    if decoder or pretraining:
        s["cls.predictions.decoder.weight"] = s["bert.embeddings.word_embeddings.weight"].clone()
    if decoder:
        s["cls.predictions.decoder.bias"] = s["cls.predictions.bias"].clone()
    if pretraining:
        s["cls.seq_relationship.weight"], s["cls.seq_relationship.bias"] = r(2, d, scale=1 / math.sqrt(d)), r(2)
    return s


# name -> how to write it
SNAPSHOTS = {
    "bert-base-uncased-tiny": {"words": UNCASED_WORDS, "lowercase": True, "seed": 11, "format": "safetensors"},
    "bert-base-cased-tiny": {"words": CASED_WORDS, "lowercase": False, "seed": 12, "format": "safetensors",
                             "decoder": True, "position_ids": True},
    "bert-base-multilingual-cased-tiny": {"words": MULTILINGUAL_WORDS, "lowercase": False, "seed": 13,
                                          "format": "safetensors", "multilingual": True},
    "bert-base-uncased-tiny-gamma-beta": {"words": UNCASED_WORDS, "lowercase": True, "seed": 14, "format": "bin",
                                          "pretraining": True, "old_names": True},
}


def save_safetensors(path, state):
    """model.safetensors as Hugging Face writes it: every tensor in its own dtype (the I64 buffer too)."""
    floats = {k: v for k, v in state.items() if v.is_floating_point()}
    safetensors_io.save(path, floats, {"format": "pt"})
    ints = {k: v for k, v in state.items() if not v.is_floating_point()}
    if not ints:
        return
    # safetensors_io writes floats only: splice the integer tensors into its header and data.
    with open(path, "rb") as f:
        buf = f.read()
    n = int.from_bytes(buf[:8], "little")
    header, data = json.loads(buf[8:8 + n]), bytearray(buf[8 + n:])
    for k, v in sorted(ints.items()):
        raw = v.to(torch.int64).contiguous().numpy().astype("<i8").tobytes()
        header[k] = {"dtype": "I64", "shape": list(v.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * (-len(hbytes) % 8)
    with open(path, "wb") as f:
        f.write(len(hbytes).to_bytes(8, "little") + hbytes + bytes(data))


def write_snapshot(name, folder, spec=None, sizes=TINY):
    """Writes snapshot `name` of SNAPSHOTS (or `spec`, at `sizes`) into `folder`; returns (config, state, vocab)."""
    spec = spec or SNAPSHOTS[name]
    vocab = vocabulary(spec["words"])
    assert len(set(vocab)) == len(vocab), name
    config = hf_config(len(vocab), spec.get("multilingual", False), sizes)
    state = hf_state(config, spec["seed"], pretraining=spec.get("pretraining", False),
                     old_names=spec.get("old_names", False), decoder=spec.get("decoder", False),
                     position_ids=spec.get("position_ids", False))
    if spec.get("pretraining"):
        config["architectures"] = ["BertForPreTraining"]
    os.makedirs(folder, exist_ok=True)

    def dump(file, obj):
        with open(os.path.join(folder, file), "w", encoding="utf-8") as f:
            json.dump(obj, f, indent=2, ensure_ascii=False)
            f.write("\n")

    dump("config.json", config)
    dump("tokenizer_config.json", tokenizer_config(spec["lowercase"], config["max_position_embeddings"]))
    dump("tokenizer.json", tokenizer_json(vocab, spec["lowercase"]))
    with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
        f.write("".join(p + "\n" for p in vocab))
    if spec["format"] == "bin":
        torch.save(state, os.path.join(folder, "pytorch_model.bin"))
    else:
        save_safetensors(os.path.join(folder, "model.safetensors"), state)
    return config, state, vocab


def main():
    torch.set_num_threads(1)
    for name in SNAPSHOTS:
        folder = os.path.join(OUT, name)
        write_snapshot(name, folder)
        print(f"{folder}: {', '.join(sorted(os.listdir(folder)))}")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
