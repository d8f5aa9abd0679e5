#!/usr/bin/env python3
"""Writes the goldens of real Hugging Face BERT layouts under tests/golden/hf/ (run with
/usr/bin/python3; deterministic). Schema: tests/golden/README.md ("Hugging Face BERT").

  1. make_hf_bert_checkpoints.py's snapshots are (re)written into tests/data/hf/bert-*/;
  2. for each, models/reference/hf_bert.py (Hugging Face's BertTokenizer and BertForMaskedLM, read
     from transformers' source, on the state dict in Hugging Face's names) gives the pieces, ids,
     token types, the MLM logits at every [MASK] and every attention map: bert-*.json;
  3. models/convert/convert_hf.py converts the snapshot folder: bert-*.safetensors, the file the
     engine is checked with (tests/native/hf_bert_golden_test.cpp);
  4. bert-tokenizer-settings.json: for a multilingual vocabulary and tokenizer_config.json settings
     (do_lower_case, strip_accents, tokenize_chinese_chars, never_split; null where BasicTokenizer
     reads it as false), the attnscope tokenizer
     spec the converter makes of them and the pieces Hugging Face's BertTokenizer cuts texts into.
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDEN = os.path.join(ROOT, "tests", "golden", "hf")
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "convert"), os.path.join(MODELS, "reference")]

import convert_hf  # noqa: E402
import make_hf_bert_checkpoints as checkpoints  # noqa: E402
from make_goldens import write_json  # noqa: E402


def load_reference():
    """models/reference/hf_bert.py, loaded by its path under a name of its own."""
    spec = importlib.util.spec_from_file_location("hf_bert_reference", os.path.join(MODELS, "reference", "hf_bert.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


reference = load_reference()
converter = convert_hf.load_converter("hf_bert")  # models/convert/hf_bert.py: the tokenizer spec of the settings

TEXTS = {
    "bert-base-uncased-tiny": ["The man is riding a [MASK].", "Héllo, WORLD! unaffable café [MASK]",
                               "a dog in 中国 loves [MASK] Paris", "naïve résumé\tplaying [MASK] [MASK] dogs"],
    "bert-base-cased-tiny": ["The man is riding a [MASK].", "Hello, World! café Paris [MASK]",
                             "naïve CAFÉ [MASK] dogs", "the cafe in 中国 is [MASK]"],
    "bert-base-multilingual-cased-tiny": ["Der Mann fährt ein [MASK].", "東京は日本の首都です [MASK]",
                                          "Москва — столица [MASK] России.", "el niño está en la [MASK] Zürich"],
}
TEXTS["bert-base-uncased-tiny-gamma-beta"] = TEXTS["bert-base-uncased-tiny"]

SETTINGS_TEXTS = ["Der Mann fährt ein Fahrrad.", "CAFÉ naïve Zürich", "東京は日本の首都です", "Москва и Россия",
                  "el niño\u00a0está\u200b en la casa!", "[MASK] is the [unused0] of Zürich", "na-ïve Na-ïve",
                  "x\u0301e c\u0327n", "ΣΊΣΥΦΟΣ", "a\x00b\ufffdc\u0007d"]
SETTINGS = [
    ("bert-base-uncased", {"do_lower_case": True}),
    ("bert-base-multilingual-cased", {"do_lower_case": False}),
    ("lowercase, accents kept", {"do_lower_case": True, "strip_accents": False}),
    ("cased, accents stripped", {"do_lower_case": False, "strip_accents": True}),
    ("CJK characters not spaced", {"do_lower_case": False, "tokenize_chinese_chars": False}),
    ("never_split", {"do_lower_case": True, "never_split": ["Zürich", "Na-ïve", "[unused0]"]}),
    ("null settings (false to BasicTokenizer)", {"do_lower_case": None, "tokenize_chinese_chars": None}),
]


def reference_tokenizer(folder):
    """BertTokenizer.from_pretrained(folder) as far as BERT's tokenizer_config.json fields go."""
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        tc = json.load(f)
    vocab = reference.load_vocab(os.path.join(folder, "vocab.txt"))
    return reference.BertTokenizer(vocab, do_lower_case=tc.get("do_lower_case", True),
                                   never_split=tc.get("never_split"),
                                   tokenize_chinese_chars=tc.get("tokenize_chinese_chars", True),
                                   strip_accents=tc.get("strip_accents"))


def snapshot_golden(name, folder, state):
    """The golden of one snapshot written in `folder` from `state` (Hugging Face names)."""
    with open(os.path.join(folder, "config.json"), encoding="utf-8") as f:
        config = json.load(f)
    tokenizer = reference_tokenizer(folder)
    model = reference.BertForMaskedLM(reference.fix_state_dict_keys(state), config)
    mask = tokenizer.vocab["[MASK]"]
    cases = []
    for text in TEXTS[name]:
        pieces, ids, token_types = tokenizer(text)
        scores, attentions = model(ids, token_types)
        masked = [i for i, t in enumerate(ids) if t == mask]
        assert masked, text
        cases.append({"text": text, "pieces": pieces, "ids": ids, "token_type_ids": token_types,
                      "masked_positions": masked, "mlm_logits": scores[masked],
                      "attention": torch.stack(attentions)})
    return {"model": name + ".safetensors", "snapshot": "tests/data/hf/" + name, "hf_config": config,
            "cases": cases}


def settings_golden():
    vocab = checkpoints.vocabulary(checkpoints.MULTILINGUAL_WORDS + ["Na", "na", "Zurich", "zurich", "cafe", "CAF",
                                                                     "naive", "der", "mann", "fahrt", "σισυφος",
                                                                     "ΣΊΣΥΦΟΣ", "mask", "##É", "##ï", "##ve"])
    specs = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, tc in SETTINGS:
            with open(os.path.join(tmp, "tokenizer_config.json"), "w", encoding="utf-8") as f:
                json.dump(tc, f, ensure_ascii=False)
            with open(os.path.join(tmp, "vocab.txt"), "w", encoding="utf-8") as f:
                f.write("".join(p + "\n" for p in vocab))
            spec = converter.tokenizer_spec(tmp, vocab)
            tokenizer = reference_tokenizer(tmp)
            specs.append({"name": label, "tokenizer_config": tc, "spec": spec,
                          "cases": [{"text": t, "pieces": tokenizer.tokenize(t)} for t in SETTINGS_TEXTS]})
    return {"vocab": vocab, "specs": specs}


def main():
    torch.set_num_threads(1)
    os.makedirs(GOLDEN, exist_ok=True)
    for name in checkpoints.SNAPSHOTS:
        folder = os.path.join(checkpoints.OUT, name)
        _, state, _ = checkpoints.write_snapshot(name, folder)
        golden = snapshot_golden(name, folder, state)
        convert_hf.convert(folder, os.path.join(GOLDEN, name + ".safetensors"), name=name)
        write_json(os.path.join(GOLDEN, name + ".json"), golden)
        print(f"{name}: " + " | ".join(" ".join(c["pieces"]) for c in golden["cases"]))
    golden = settings_golden()
    write_json(os.path.join(GOLDEN, "bert-tokenizer-settings.json"), golden)
    for s in golden["specs"]:
        print(f"{s['name']}: " + " | ".join(" ".join(c["pieces"]) for c in s["cases"][:3]))


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
