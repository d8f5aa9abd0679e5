#!/usr/bin/python3
"""PyTorch's time per toy training epoch, for tests/bench/train_bench.mjs.

    /usr/bin/python3 tests/bench/train_torch.py --pairs tests/data/toy/eng_de.csv --epochs 20 --seed 1

The same model and recipe as `attnscope-cli train` and the page's Training panel (both follow
models/train/train.py `train_toy`): the reference transformer of models/reference/attnscope_ref with a fresh
word-level vocabulary per side, 1+1 layers, 1 head, d_model 64, d_ff 128, post-norm, ReLU,
sinusoidal positions, embedding scale sqrt(d_model); length-bucketed batches of about 24 target
tokens (models/train/train.py `batches`), summed cross-entropy / tokens, Adam (lr 1e-3, betas (0.9, 0.98),
eps 1e-9). CPU, one thread. Times only the training pass of each epoch (the engine's `seconds`
leaves the exact-match decoding out too). Prints one JSON line: {torch, threads, epochs: [{epoch,
loss, seconds}]}.
"""

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "models" / "reference"), str(REPO / "models" / "train")]
from attnscope_ref.model import Transformer  # noqa: E402
from attnscope_ref.tokenizer import Tokenizer, build_word_vocab  # noqa: E402
from train import batches, encode_pairs, loss_on  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", required=True)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--batch-tokens", type=int, default=24)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--heads", type=int, default=1)
    ap.add_argument("--d-model", type=int, default=64)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)

    lines = Path(args.pairs).read_text(encoding="utf-8").splitlines()
    pairs = [tuple(part.strip() for part in line.strip().split(",")) for line in lines if line.strip()]
    spec = {"type": "word", "lowercase": True, "split_punctuation": True}
    src_vocab = build_word_vocab([p[0] for p in pairs])
    tgt_vocab = build_word_vocab([p[1] for p in pairs])
    longest = max(max(len(s.split()), len(t.split())) for s, t in pairs)
    config = {"d_model": args.d_model, "n_heads": args.heads, "d_ff": 2 * args.d_model,
              "n_encoder_layers": args.layers, "n_decoder_layers": args.layers, "activation": "relu",
              "norm": "post", "positions": "sinusoidal", "max_positions": max(16, longest + 2),
              "embedding_scale": math.sqrt(args.d_model), "shared_embeddings": False, "tied_output": False}
    model = Transformer(config, len(src_vocab), len(tgt_vocab))
    model.train()
    examples = encode_pairs(Tokenizer(spec, src_vocab), Tokenizer(spec, tgt_vocab), pairs, config["max_positions"] - 1)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)

    epochs = []
    for epoch in range(1, args.epochs + 1):
        t0 = time.perf_counter()
        total, count = 0.0, 0
        for src, tgt in batches(examples, args.batch_tokens, True, rng):
            loss, n = loss_on(model, src, tgt, 0.0)
            opt.zero_grad()
            (loss / n).backward()
            opt.step()
            total, count = total + float(loss), count + n
        epochs.append({"epoch": epoch, "loss": total / count, "seconds": time.perf_counter() - t0})
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads(), "pairs": len(pairs),
                      "examples": len(examples), "epochs": epochs}))


if __name__ == "__main__":
    main()
