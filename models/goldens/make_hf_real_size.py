#!/usr/bin/env python3
"""Write random Hugging Face snapshots at real models' sizes, and their attnscope files, for the
real-size tests and benchmarks (deterministic; run with /usr/bin/python3; nothing is downloaded):

    /usr/bin/python3 models/goldens/make_hf_real_size.py [OUT_FOLDER] [--which marian|bert|all]

  OUT/opus-mt-en-de-size/         Helsinki-NLP/opus-mt-en-de's dimensions and config: 6 + 6 layers,
                                  d_model 512, 8 heads, FFN 2048, 512 positions, 58,101 ids (~74 M
                                  parameters), generation_config.json as the snapshot has it
  OUT/bert-base-uncased-size/     bert-base-uncased's: 12 layers, d 768, 12 heads, FFN 3072, 512
                                  positions, 30,522 ids (~110 M parameters)
  OUT/opus-mt-en-de-size.safetensors, OUT/bert-base-uncased-size.safetensors
                                  each converted by models/convert/convert_hf.py --f16

The snapshots are written by make_hf_checkpoints.py and make_hf_bert_checkpoints.py at these
sizes. The tokenizers are the tiny snapshots' (tests/data/hf/opus-mt-en-de-tiny's source.spm,
target.spm and vocab.json; bert-base-uncased-tiny's words), their vocabularies padded with filler
pieces no tokenizer produces up to the real size: Marian's before its <pad>, which opus-mt keeps
last; BERT's as [unusedN], as bert-base's vocab.txt has them. Marian's weights keep the tiny
models' spread per unit of input (their standard deviations times sqrt(64 / d)), and a low
final_logits_bias on the fillers, so that attention is as peaked as theirs and a translation ends
in a few tokens of the real pieces.

The default OUT_FOLDER is build/hf-real/; it gets a READY file (the files' names) once both files are in it.
"""

import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [HERE, os.path.join(ROOT, "models", "convert")]

import convert_hf  # noqa: E402
import make_hf_bert_checkpoints as bert_checkpoints  # noqa: E402
import make_hf_checkpoints as marian_checkpoints  # noqa: E402

DEFAULT_OUT = os.path.join(ROOT, "build", "hf-real")
TINY_MARIAN = os.path.join(ROOT, "tests", "data", "hf", "opus-mt-en-de-tiny")

OPUS_MT_EN_DE = {"d_model": 512, "ffn": 2048, "layers": 6, "max_positions": 512}
OPUS_MT_EN_DE_VOCAB = 58101
BERT_BASE = {"hidden_size": 768, "intermediate_size": 3072, "max_position_embeddings": 512,
             "num_attention_heads": 12, "num_hidden_layers": 12}
BERT_BASE_VOCAB = 30522


def write_marian(folder):
    tiny = marian_checkpoints.SPECS["opus-mt-en-de-tiny"]
    with open(os.path.join(TINY_MARIAN, "vocab.json"), encoding="utf-8") as f:
        pieces = [piece for piece, _ in sorted(json.load(f).items(), key=lambda item: item[1])]
    assert pieces[-1] == "<pad>", "the tiny vocab.json keeps <pad> last"
    real = pieces[:-1]
    real += [f"▁filler{n}" for n in range(OPUS_MT_EN_DE_VOCAB - 1 - len(real))] + ["<pad>"]
    vocab = {piece: i for i, piece in enumerate(real)}
    spread = (64 / OPUS_MT_EN_DE["d_model"]) ** 0.5
    spec = {**tiny, "heads": 8, "seed": 20240613,
            "std": {kind: std * spread for kind, std in tiny["std"].items()},
            "filler_ids": slice(len(pieces) - 1, OPUS_MT_EN_DE_VOCAB - 1), "filler_bias": -8.0}
    models = []
    for file_name in ("source.spm", "target.spm"):
        with open(os.path.join(TINY_MARIAN, file_name), "rb") as f:
            models.append(f.read())
    marian_checkpoints.write_folder(folder, "opus-mt-en-de", spec, *models, vocab, OPUS_MT_EN_DE)


def write_bert(folder):
    tiny = bert_checkpoints.SNAPSHOTS["bert-base-uncased-tiny"]
    fillers = BERT_BASE_VOCAB - len(bert_checkpoints.vocabulary(tiny["words"]))
    # [unused0..2] are in the vocabulary's head already.
    words = tiny["words"] + [f"[unused{n}]" for n in range(3, 3 + fillers)]
    spec = {**tiny, "words": words, "seed": 15}
    bert_checkpoints.write_snapshot("bert-base-uncased-size", folder, spec, BERT_BASE)


def parameter_count(path):
    """The number of values in a safetensors file, read from its header."""
    with open(path, "rb") as f:
        header = json.loads(f.read(int.from_bytes(f.read(8), "little")))
    return sum(math.prod(entry["shape"]) for key, entry in header.items() if key != "__metadata__")


WHICH = {"marian": [("opus-mt-en-de-size", write_marian)], "bert": [("bert-base-uncased-size", write_bert)]}
WHICH["all"] = WHICH["marian"] + WHICH["bert"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", default=DEFAULT_OUT, help="folder to write (default build/hf-real/)")
    ap.add_argument("--which", choices=sorted(WHICH), default="all")
    args = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    os.makedirs(args.out, exist_ok=True)
    ready = os.path.join(args.out, "READY")
    if os.path.exists(ready):
        os.remove(ready)
    for name, write in WHICH[args.which]:
        folder = os.path.join(args.out, name)
        out = folder + ".safetensors"
        start = time.perf_counter()
        write(folder)
        written = time.perf_counter()
        config = convert_hf.convert(folder, out, dtype="F16")
        done = time.perf_counter()
        snapshot_bytes = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(f"{name}: snapshot {snapshot_bytes / 1e6:.1f} MB in {written - start:.1f} s; "
              f"{out}: {config.get('architecture', 'transformer')}, {parameter_count(out) / 1e6:.1f} M parameters, "
              f"{os.path.getsize(out) / 1e6:.1f} MB F16 "
              f"in {done - written:.1f} s", flush=True)
    made = [os.path.join(args.out, name + ".safetensors") for name, _ in WHICH["all"]]
    if all(os.path.isfile(path) for path in made):
        with open(ready, "w", encoding="utf-8") as f:
            f.write("".join(os.path.basename(path) + "\n" for path in made))


if __name__ == "__main__":
    main()
