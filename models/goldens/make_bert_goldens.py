#!/usr/bin/env python3
"""Write the BERT family's and the WordPiece tokenizer's goldens under tests/golden/bert/
(deterministic; run with /usr/bin/python3).

  wordpiece.json: for a hand-written vocabulary and two tokenizer specs (uncased, cased with a
      short max_chars_per_word), the pieces of texts with accents, punctuation, CJK, Hangul,
      Greek final sigma, control and zero-width characters, unknown words, over-long words and
      [MASK] / [SEP] inside the text, by models/reference/attnscope_ref/wordpiece.py.
  <name>.safetensors + <name>.json: small randomly initialised BERTs (models/reference/attnscope_ref/bert.py)
      with and without a pooler; for single sentences, pairs and several [MASK]s: pieces, ids,
      segments, every layer's output, attention, q/k/v and transformed value vectors, the pooled
      vector and every MLM logit, and the top 5 pieces at each [MASK].
  hf_converted.safetensors + .json: a random BERT written in the Hugging Face layout
      (pytorch_model.bin, config.json, vocab.txt), converted by models/convert/convert_hf.py; its
      numbers come from the forward pass over the Hugging Face names in
      models/convert/check_bert_converter.py (not from the reference), so the engine is checked against
      the Hugging Face layout end to end.
Schema: tests/golden/README.md ("BERT").
"""

import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference"), os.path.join(MODELS, "convert")]

from attnscope_ref import bert  # noqa: E402
from attnscope_ref.wordpiece import DEFAULT_SPEC, WordPiece  # noqa: E402
from make_goldens import write_json  # noqa: E402
import check_bert_converter as hf  # noqa: E402
import convert_hf  # noqa: E402
import tempfile  # noqa: E402

ROOT = os.path.dirname(MODELS)
OUT = os.path.join(ROOT, "tests", "golden", "bert")
TOY = os.path.join(ROOT, "tests", "data", "toy", "eng_de.csv")
TOP_K = 5

WORDPIECE_VOCAB = bert.SPECIALS + [
    ".", ",", "!", "?", "'", "-", "$", "+", "=", "^", "_", "`", "~", "|", "(", ")", "—", "…", "¿", "«", "»", "、", "。",
    "hello", "world", "cafe", "naive", "resume", "##s", "un", "##aff", "##able", "a", "man", "is", "riding", "horse",
    "the", "dog", "cat", "ride", "##r", "##ing", "中", "国", "οδος", "σ", "ς", "istanbul", "i", "##stanbul",
    "angstrom", "straße", "don", "t", "stop", "now", "5", "3", "8", "q", "tab", "here", "nbsp", "##zero", "zero",
    "width", "e", "ω", "ohm", "Café", "Hello", "##ll", "he", "##o", "x", "##y", "ᄒ", "##ᅡ", "##ᆫ", "über", "uber",
    "francais", "ça", "ca", "##va", "va", "ελληνικα", "москва", "##ы", "и", "й",
]
WORDPIECE_TEXTS = [
    "Hello, World!",
    "Café naïve RÉSUMÉS",
    "unaffable unaffables",
    "a man is riding a [MASK] .",
    "a man is riding a [MASK].",
    "[CLS] the dog [SEP] a cat [SEP]",
    "[mask] [MASK][MASK] [MAS K]",
    "中国人 riding中国",
    "xyzzy rider ride riding riders",
    "ΟΔΟΣ Σ ΣΣ οδοΣ",
    "İstanbul ISTANBUL",
    "ÅNGSTRÖM STRASSE straße Straße",
    "don't stop—now… ¿« »",
    "$5 + 3 = 8 ^_^ `q` ~ |",
    "a" * 101 + " a" + "a" * 25,
    "한 한국어",
    "ﬁne ﬁ",
    "tab\there\u00a0nbsp\u200bzero\u2028width\r\n\x00\ufffd\x07e",
    "e\u0301 \u0301 E\u0300\u0323",
    "Ω \u2126 ohm",
    "ÜBER Über über uber Français ÇA VA ça va",
    "ΕΛΛΗΝΙΚΆ МОСКВЫ И Й ё",
    "、。",
    "   ",
    "",
    "Hello hello HELLO x xy xyy",
]
SPECS = {
    "uncased": dict(DEFAULT_SPEC),
    "cased": dict(DEFAULT_SPEC, lowercase=False, max_chars_per_word=20),
}

MODELS = [
    ("tiny_pooler", {"d_model": 8, "n_heads": 2, "d_ff": 16, "n_layers": 2, "max_positions": 24, "pooler": True}),
    ("small_mlm", {"d_model": 12, "n_heads": 3, "d_ff": 20, "n_layers": 3, "max_positions": 32, "pooler": False,
                   "layer_norm_eps": 1e-5}),
]
MODEL_TEXTS = [
    "i want to eat [MASK] .",
    "we [MASK] to drink beer",
    "i can eat apple [SEP] we want to drink beer",
    "I want [MASK] [MASK] bread!",
    "i want to eat bananas [SEP] [MASK]",
]


def toy_words():
    words = set()
    with open(TOY, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                words.update(line.strip().split(",")[0].split())
    return sorted(words)


def model_vocab():
    return bert.SPECIALS + [".", ",", "!", "?"] + toy_words() + ["##s", "##a", "##n", "banana"]


def init_weights(model, seed):
    """Larger than PyTorch's default so that attention is peaky and the logits O(1..10)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g)
            if name.endswith("norm.weight"):
                p.copy_(1.0 + 0.15 * r)
            elif name.endswith("bias"):
                p.copy_(0.1 * r)
            elif name.startswith("embed."):
                p.copy_(r)
            else:
                gain = 2.0 if (".q_proj." in name or ".k_proj." in name) else 1.0
                p.copy_(gain / math.sqrt(p.shape[1]) * r)


def rows(t):
    return t.detach().tolist()


def model_case(model, tok, vocab, text):
    pieces = ["[CLS]"] + tok.split(text) + ["[SEP]"]
    index = {p: i for i, p in enumerate(vocab)}
    ids = [index.get(p, index["[UNK]"]) for p in pieces]
    with torch.no_grad():
        out = model(ids)
    mask = model.config["special_tokens"]["mask"]
    masks = []
    for pos, i in enumerate(ids):
        if i == mask:
            probs = torch.softmax(out["logits"][pos], dim=-1)
            top = torch.topk(probs, TOP_K)
            masks.append({"position": pos, "ids": top.indices.tolist(), "probabilities": rows(top.values)})
    case = {
        "text": text, "pieces": pieces, "ids": ids, "segments": out["segments"],
        "embedding_sum": rows(out["hidden_states"][0]),
        "layers": [{k: rows(r[k]) for k in ("q", "k", "v", "transformed_values", "output")} for r in out["layers"]],
        "attention": rows(out["attention"]), "output": rows(out["hidden"]), "logits": rows(out["logits"]),
        "masks": masks,
    }
    if "pooled" in out:
        case["pooled"] = rows(out["pooled"].unsqueeze(0))
    return case


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    specs = []
    for name, spec in SPECS.items():
        tok = WordPiece(spec, WORDPIECE_VOCAB)
        specs.append({"name": name, "spec": spec,
                      "cases": [{"text": t, "pieces": tok.split(t), "joined": tok.join(tok.split(t))}
                                for t in WORDPIECE_TEXTS]})
    write_json(os.path.join(OUT, "wordpiece.json"), {"vocab": WORDPIECE_VOCAB, "specs": specs})
    vocab = model_vocab()
    tok = WordPiece(DEFAULT_SPEC, vocab)
    for seed, (name, config) in enumerate(MODELS):
        cfg = bert.complete_config(config, vocab)
        torch.manual_seed(seed)
        model = bert.Bert(cfg, len(vocab)).eval()
        init_weights(model, 200 + seed)
        cases = [model_case(model, tok, vocab, t) for t in MODEL_TEXTS]
        path = os.path.join(OUT, name + ".safetensors")
        bert.export(model, cfg, vocab, path, name=name,
                    description="randomly initialised attnscope BERT test model (models/goldens/make_bert_goldens.py)")
        write_json(os.path.join(OUT, name + ".json"), {"model": name + ".safetensors", "config": cfg, "top_k": TOP_K,
                                                       "cases": cases})
        print(f"{name}: " + " | ".join(" ".join(c["pieces"]) for c in cases))
    write_hf_converted(vocab, tok)


def write_hf_converted(vocab, tok):
    c = {"hidden_size": 12, "num_attention_heads": 4, "intermediate_size": 16, "num_hidden_layers": 2,
         "type_vocab_size": 2, "max_position_embeddings": 20, "layer_norm_eps": 1e-12, "hidden_act": "gelu",
         "vocab_size": len(vocab), "model_type": "bert"}
    state = hf.hf_state(c, len(vocab), seed=300)
    index = {p: i for i, p in enumerate(vocab)}
    path = os.path.join(OUT, "hf_converted.safetensors")
    with tempfile.TemporaryDirectory() as tmp:
        hf.write_folder(tmp, c, state, "bin", vocab=vocab)
        config = convert_hf.convert(tmp, path, name="hf_converted")
    cases = []
    for text in MODEL_TEXTS:
        pieces = ["[CLS]"] + tok.split(text) + ["[SEP]"]
        ids = [index.get(p, index["[UNK]"]) for p in pieces]
        sep = index["[SEP]"]
        segments = [0 if sep not in ids[:i] else 1 for i in range(len(ids))]
        out = hf.hf_forward(state, c, ids, segments)
        masks = []
        for pos, i in enumerate(ids):
            if pieces[pos] == "[MASK]":
                top = torch.topk(torch.softmax(out["logits"][pos], dim=-1), TOP_K)
                masks.append({"position": pos, "ids": top.indices.tolist(), "probabilities": rows(top.values)})
        cases.append({"text": text, "pieces": pieces, "ids": ids, "segments": segments,
                      "embedding_sum": rows(out["hidden_states"][0]), "output": rows(out["hidden_states"][-1]),
                      "attention": rows(out["attention"]), "pooled": rows(out["pooled"]), "logits": rows(out["logits"]),
                      "masks": masks})
    write_json(os.path.join(OUT, "hf_converted.json"), {"model": "hf_converted.safetensors", "config": config,
                                                        "top_k": TOP_K, "cases": cases})
    print("hf_converted: " + " | ".join(" ".join(c["pieces"]) for c in cases))


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
