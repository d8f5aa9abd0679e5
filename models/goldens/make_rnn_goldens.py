#!/usr/bin/env python3
"""Write the RNN family's goldens under tests/golden/rnn/ (deterministic; run with /usr/bin/python3).

For each configuration: <name>.safetensors (a small randomly initialised RNN encoder-decoder in
the attnscope format, "architecture": "rnn") and <name>.json (tokenisation and every logit,
log-probability, attention weight, energy, context and decoder state of a greedy decode by the
PyTorch reference models/reference/attnscope_ref/rnn.py). Covers every cell (GRU, LSTM) x every score
function (additive, dot, scaled dot, general, cosine) x both styles (Bahdanau, Luong; Luong with
and without input feeding alternately), Luong's location score (a softmax over one fully connected
layer) for every cell x style, local-p windows, bidirectional and stacked encoders and decoders,
and the no-attention baseline for both cells. Schema: tests/golden/README.md ("RNN").
"""

import argparse
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref import tokenizer as tk  # noqa: E402
from attnscope_ref.export import export  # noqa: E402
from attnscope_ref.rnn import RNNSeq2Seq, complete_config  # noqa: E402
from make_goldens import write_json  # noqa: E402

ROOT = os.path.dirname(MODELS)
OUT = os.path.join(ROOT, "tests", "golden", "rnn")
TOY = os.path.join(ROOT, "tests", "data", "toy", "eng_de.csv")
MAX_STEPS = 5
SENTENCES = ["i can eat apple", "we want to drink beer"]
CELLS = ("gru", "lstm")
# Models decoded again under each intervention (tests/golden/rnn_interventions.json).
INTERVENED = ("gru_bahdanau_additive", "lstm_luong_dot_feed_local", "gru_luong_general", "lstm_none",
              "gru_luong_location_feed")
INTERVENTIONS = ("uniform", "beginning", "end", "mean", "last")
SCORES = ("additive", "dot", "scaled_dot", "general", "cosine")


def configs():
    """(name, config) for every case; the shape options rotate so each appears several times."""
    out = []
    k = 0
    for cell in CELLS:
        for score in SCORES:
            for style in ("bahdanau", "luong"):
                bi = k % 2 == 1
                d_hidden = 6
                c = {
                    "cell": cell, "attention": style, "score": score, "d_embed": 4,
                    "d_encoder": 3 if bi else 6, "d_hidden": d_hidden, "bidirectional": bi,
                    "n_encoder_layers": 1 + (k // 2) % 2, "n_decoder_layers": 1 + (k // 3) % 2,
                    "d_attention": 4 if score == "additive" else 0,
                    "input_feeding": style == "luong" and (k // 2) % 2 == 0,
                    "local_window": 2 if k in (3, 6, 13, 16) else 0,
                    "max_positions": 16,
                }
                name = f"{cell}_{style}_{score}" + ("_feed" if c["input_feeding"] else "") + (
                    "_local" if c["local_window"] else "")
                out.append((name, c))
                k += 1
    for cell in CELLS:
        out.append((f"{cell}_none", {"cell": cell, "attention": "none", "d_embed": 4, "d_encoder": 3, "d_hidden": 6,
                                     "bidirectional": cell == "lstm", "n_encoder_layers": 2, "n_decoder_layers": 1,
                                     "max_positions": 16}))
    # Luong's location score, a_t = softmax(W_a q) with W_a [max_positions, d_hidden] cut to the
    # source length: every cell x style (after the cases above, so their seeds stay as they were).
    for cell in CELLS:
        for style in ("bahdanau", "luong"):
            bi = cell == "lstm"
            c = {"cell": cell, "attention": style, "score": "location", "d_embed": 4, "d_encoder": 3 if bi else 5,
                 "d_hidden": 6, "bidirectional": bi, "n_encoder_layers": 1, "n_decoder_layers": 2 if bi else 1,
                 "input_feeding": style == "luong" and cell == "gru",
                 "local_window": 2 if (cell, style) == ("lstm", "bahdanau") else 0, "max_positions": 16}
            out.append((f"{cell}_{style}_location" + ("_feed" if c["input_feeding"] else "") +
                        ("_local" if c["local_window"] else ""), c))
    return out


def init_weights(model, seed):
    """Larger than PyTorch's default so that attention is peaky and the logits O(1..10)."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            r = torch.randn(p.shape, generator=g)
            if "embed" in name:
                p.copy_(r)
            elif name == "output.bias":
                p.copy_(0.5 * r)
            elif "bias" in name:
                p.copy_(0.2 * r)
            else:
                p.copy_(2.0 / math.sqrt(p.shape[1]) * r)
        model.output.bias[model.special("pad")] -= 10.0  # keep <pad> and <s> out of the outputs
        model.output.bias[model.special("bos")] -= 10.0


def toy_vocabs():
    pairs = []
    with open(TOY, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                pairs.append(line.strip().split(","))
    return tk.build_word_vocab([en for en, _ in pairs]), tk.build_word_vocab([de for _, de in pairs])


def main():
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)
    src_vocab, tgt_vocab = toy_vocabs()
    spec = {"type": "word", "lowercase": True, "split_punctuation": True}
    src_tok = tk.Tokenizer(spec, src_vocab)
    tgt_tok = tk.Tokenizer(spec, tgt_vocab)
    total = 0
    intervened = []
    for seed, (name, config) in enumerate(configs()):
        torch.manual_seed(seed)
        model = RNNSeq2Seq(config, len(src_vocab), len(tgt_vocab)).eval()
        init_weights(model, 100 + seed)
        cfg = complete_config(config)
        eos = cfg["special_tokens"]["eos"]
        cases = []
        for text in SENTENCES:
            pieces, ids, unknown = src_tok.encode_source(text, cfg["src_append_eos"], eos)
            trace = model.greedy_decode(ids, MAX_STEPS)
            out_ids = trace["output_ids"]
            cases.append({
                "source": text, "src_tokens": pieces, "src_ids": ids, "unknown_words": unknown,
                "max_steps": MAX_STEPS, "output_ids": out_ids,
                "output_text": tgt_tok.decode(out_ids[:-1] if out_ids and out_ids[-1] == eos else out_ids),
                "encoder_states": trace["encoder_states"], "encoder_final": trace["encoder_final"],
                "steps": trace["steps"],
            })
        path = os.path.join(OUT, name + ".safetensors")
        export(model, cfg, spec, src_vocab, tgt_vocab, path, name=name,
               description="randomly initialised attnscope RNN test model (models/goldens/make_rnn_goldens.py)")
        write_json(os.path.join(OUT, name + ".json"), {"model": name + ".safetensors", "config": cfg, "cases": cases})
        if name in INTERVENED:
            text = SENTENCES[1]
            ids = src_tok.encode_source(text, cfg["src_append_eos"], eos)[1]
            for iv in INTERVENTIONS:
                if cfg["attention"] == "none" and iv not in ("mean", "last"):
                    continue
                trace = model.greedy_decode(ids, MAX_STEPS, iv)
                intervened.append({"model": name + ".safetensors", "source": text, "intervention": iv,
                                   "max_steps": MAX_STEPS, "output_ids": trace["output_ids"],
                                   "steps": [{k: st[k] for k in ("logits", "attention", "context") if k in st}
                                             for st in trace["steps"]]})
        size = os.path.getsize(path) + os.path.getsize(os.path.join(OUT, name + ".json"))
        total += size
        print(f"{name:34s} {size:7d} B  " + " | ".join(c["output_text"] for c in cases))
    path = os.path.join(ROOT, "tests", "golden", "rnn_interventions.json")
    write_json(path, {"cases": intervened})
    print(f"{total + os.path.getsize(path)} bytes in all")


if __name__ == "__main__":
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    main()
