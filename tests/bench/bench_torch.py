#!/usr/bin/python3
"""The PyTorch reference (models/reference/attnscope_ref) as a benchmark worker for tests/bench/bench.mjs.

    /usr/bin/python3 tests/bench/bench_torch.py --model M --sources build/bench/sources.json --max-length N

CPU, one thread (torch.set_num_threads(1)), inference mode. Greedy decoding runs the reference
incrementally with its own KV cache (DecoderLayer.start_cache / DecoderLayer.step in
models/reference/attnscope_ref/model.py): the cross-attention keys/values are projected once per sentence,
each step feeds only the newest token and appends its self-attention keys/values to the cache
(torch.cat). It is fed the source ids attnscope's tokenizer produced (sources.json), so the
comparison is model-only.

An RNN encoder-decoder file ("architecture": "rnn") runs the reference's own greedy decode
instead (models/reference/attnscope_ref/rnn.py): encode() once (the encoder states and the final state),
start() (the bridge), then one step() per token, exactly as RNNSeq2Seq.greedy_decode does,
without its recording. Its step() scores with W_k H computed again at every step (additive and
general scores; attnscope projects the keys once per sentence).

Prints {"ready": true, ...}, then answers stdin commands with one JSON line each:
  greedy [N]    per sentence: encode_ms (encoder + cross K/V projection), decode_ms,
                first_token_ms (encoder + first step), tokens, ids
  quit
"""

import argparse
import json
import sys
import time
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "models" / "reference"))
from attnscope_ref.export import load_model  # noqa: E402
from attnscope_ref.rnn import RNNSeq2Seq  # noqa: E402


def greedy_rnn(model, src_ids, max_length):
    eos = model.special("eos")
    limit = max(1, min(max_length, model.config["max_positions"] - 1))
    t0 = time.perf_counter()
    H, final = model.encode(src_ids)
    state = model.start(final)
    t1 = time.perf_counter()
    ids, token, first = [], model.special("bos"), 0.0
    for t in range(limit):
        logits, state, _ = model.step(token, state, H, final)
        token = int(torch.argmax(logits))  # first maximal index, as the engine picks
        ids.append(token)
        if t == 0:
            first = time.perf_counter()
        if token == eos:
            break
    t2 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, (first - t0) * 1e3, ids


def greedy(model, src_ids, max_length):
    if isinstance(model, RNNSeq2Seq):
        return greedy_rnn(model, src_ids, max_length)
    c = model.config
    bos, eos = c["special_tokens"]["bos"], c["special_tokens"]["eos"]
    scale = c["embedding_scale"]
    limit = max(1, min(max_length, c["max_positions"] - 1))
    t0 = time.perf_counter()
    memory = model.encode(torch.tensor([src_ids], dtype=torch.long))
    caches = [layer.start_cache(memory) for layer in model.decoder.layers]
    t1 = time.perf_counter()
    ids, token, first = [], bos, 0.0
    for t in range(limit):
        y = model.target_embedding(torch.tensor([[token]], dtype=torch.long)) * scale + model.decoder.positional(t, 1)
        for layer, cache in zip(model.decoder.layers, caches):
            y = layer.step(y, cache, {})
        logits = model.logits(model.decoder.finish(y))[0, 0]
        token = int(torch.argmax(logits))  # first maximal index, as the engine picks
        ids.append(token)
        if t == 0:
            first = time.perf_counter()
        if token == eos:
            break
    t2 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, (first - t0) * 1e3, ids


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--sources", required=True)
    ap.add_argument("--max-length", type=int, default=64)
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    t0 = time.perf_counter()
    model = load_model(args.model)[0]
    load_ms = (time.perf_counter() - t0) * 1e3
    sources = json.loads(Path(args.sources).read_text())["ids"]
    print(json.dumps({"ready": True, "load_ms": load_ms, "torch": torch.__version__,
                      "threads": torch.get_num_threads(), "sentences": len(sources)}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        if words[0] != "greedy":
            print(json.dumps({"error": f"unknown command {line.strip()!r}"}), flush=True)
            continue
        count = int(words[1]) if len(words) > 1 else len(sources)
        out = {"mode": "greedy", "encode_ms": [], "decode_ms": [], "first_token_ms": [], "tokens": [], "ids": []}
        with torch.inference_mode():
            for src in sources[:count]:
                enc, dec, first, ids = greedy(model, src, args.max_length)
                out["encode_ms"].append(enc)
                out["decode_ms"].append(dec)
                out["first_token_ms"].append(first)
                out["tokens"].append(len(ids))
                out["ids"].append(ids)
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
