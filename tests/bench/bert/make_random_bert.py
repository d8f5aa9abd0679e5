#!/usr/bin/env python3
"""A randomly initialised BERT in the Hugging Face layout, of a named size, converted to an
attnscope file with models/convert/convert_hf.py: what tests/bench/bert/bert_speed.mjs times.
Speed does not depend on the weights' values, so a random bert-base stands in for the real
checkpoint (nothing is downloaded here). The vocabulary is BERT's size: the specials, the words
of the benchmark's sentences, then filler pieces.

  /usr/bin/python3 tests/bench/bert/make_random_bert.py base build/bench/bert-base.safetensors
"""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "..", "models")
sys.path[:0] = [os.path.join(MODELS, "convert"), os.path.join(MODELS, "reference")]

import torch  # noqa: E402

import check_bert_converter  # noqa: E402  (hf_state, write_folder: the HF layout the converter test writes)
import convert_hf  # noqa: E402
from attnscope_ref import bert  # noqa: E402

# name -> (layers, heads, d_model, d_ff): BERT's published sizes (Turc et al. 2019 for the small ones).
SIZES = {"tiny": (2, 2, 128, 512), "mini": (4, 4, 256, 1024), "small": (4, 8, 512, 2048),
         "medium": (8, 8, 512, 2048), "base": (12, 12, 768, 3072)}
VOCAB_SIZE = 30522
WORDS = "a man is riding horse bike on the street . two dogs play in snow woman with red hat sits bench".split()


def main():
    size, out = sys.argv[1], sys.argv[2]
    layers, heads, d, ff = SIZES[size]
    vocab = bert.SPECIALS + WORDS
    vocab += [f"filler{i}" for i in range(VOCAB_SIZE - len(vocab))]
    c = {"hidden_size": d, "num_attention_heads": heads, "num_hidden_layers": layers, "intermediate_size": ff,
         "max_position_embeddings": 512, "type_vocab_size": 2, "vocab_size": len(vocab), "hidden_act": "gelu",
         "layer_norm_eps": 1e-12, "model_type": "bert"}
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        state = check_bert_converter.hf_state(c, len(vocab), seed=1)
        check_bert_converter.write_folder(tmp, c, state, "safetensors", vocab=vocab)
        convert_hf.convert(tmp, out, dtype="F16", name=f"random-bert-{size}")
    print(f"{out}: random BERT-{size} ({layers} layers x {heads} heads x {d}, FFN {ff}, vocabulary {len(vocab)}), "
          f"{os.path.getsize(out) / 1e6:.1f} MB (F16)")


if __name__ == "__main__":
    main()
