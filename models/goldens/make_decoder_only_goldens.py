#!/usr/bin/env python3
"""Write the decoder-only family's goldens under tests/golden/decoder_only/ (deterministic; run with
/usr/bin/python3).

    /usr/bin/python3 models/goldens/make_decoder_only_goldens.py           # write
    /usr/bin/python3 models/goldens/make_decoder_only_goldens.py --check   # recompute, compare, write nothing

For each configuration: <name>.safetensors (a small randomly initialised GPT written by
attnscope_ref.gpt.export, "architecture": "decoder_only") and <name>.json, all from gpt.py's full
(non-incremental) forward over the whole context at every step:
  greedy: per step the logits of the last position and the attention of every layer and head
          (step 0: the full causal map over <bos> + prompt, [L][H][T][T]; later steps: the last
          query row over the whole context, [L][H][K]), and the chosen tokens;
  masked: the same greedy decode with one head switched off (gpt.py's head_mask);
  beam:   the n-best of search.py's beam search driven by the same forward.
--check also checks gpt.py's causality alone: a position's logits do not change when a later
token does.
"""

import argparse
import math
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.dirname(HERE)
sys.path[:0] = [HERE, os.path.join(MODELS, "reference")]

from attnscope_ref import gpt, search  # noqa: E402
from attnscope_ref import tokenizer as tk  # noqa: E402
from make_bert_goldens import init_weights as init_peaky  # noqa: E402
from make_goldens import write_json  # noqa: E402
from golden_compare import differences  # noqa: E402

ROOT = os.path.dirname(MODELS)
OUT = os.path.join(ROOT, "tests", "golden", "decoder_only")
TOY = os.path.join(ROOT, "tests", "data", "toy", "eng_de.csv")
SPEC = {"type": "word", "lowercase": True, "split_punctuation": True}
PROMPTS = ["i want to", "we can eat apple and"]
MAX_STEPS = 5
BEAM = {"beam_size": 3, "nbest": 3, "max_length": 4}
MASKED_HEAD = (0, 1)  # (layer, head) switched off in the "masked" decode

CONFIGS = [
    ("pre_learned_gelu_tanh", {"d_model": 16, "n_heads": 2, "d_ff": 32, "n_layers": 2, "activation": "gelu_tanh",
                               "norm": "pre", "positions": "learned", "max_positions": 16, "tied_output": True}),
    ("post_sin_relu_untied", {"d_model": 12, "n_heads": 3, "d_ff": 20, "n_layers": 2, "activation": "relu",
                              "norm": "post", "positions": "sinusoidal", "max_positions": 16,
                              "embedding_scale": math.sqrt(12), "tied_output": False}),
    ("attention_only_gelu", {"d_model": 8, "n_heads": 2, "d_ff": 0, "n_layers": 3, "activation": "gelu",
                             "norm": "pre", "positions": "learned", "max_positions": 12, "tied_output": True}),
]


def init_weights(model, seed):
    """make_bert_goldens' peaky initialisation, with <pad>, <unk> and <s> kept out of the
    continuations and </s> a little less likely, for continuations of a few tokens."""
    init_peaky(model, seed)
    with torch.no_grad():
        for special in ("pad", "unk", "bos"):
            model.output.bias[model.config["special_tokens"][special]] -= 10.0
        model.output.bias[model.config["special_tokens"]["eos"]] -= 2.0


class FullForwardDecoder:
    """search.py's decoder interface (eos, logits(prefix), log_probs(prefix)) over gpt.py's full
    forward of <bos> + prompt + prefix, recomputed for every prefix."""

    def __init__(self, model, prompt_ids, specials, head_mask=None):
        self.model, self.prompt, self.head_mask = model, list(prompt_ids), head_mask
        self.bos, self.eos = specials["bos"], specials["eos"]
        self._cache = {}

    def forward(self, prefix):
        prefix = tuple(prefix)
        if prefix not in self._cache:
            with torch.no_grad():
                self._cache[prefix] = self.model([self.bos] + self.prompt + list(prefix), head_mask=self.head_mask)
        return self._cache[prefix]

    def logits(self, prefix):
        return self.forward(prefix)["logits"][-1].numpy().astype(np.float32)

    def log_probs(self, prefix):
        return torch.log_softmax(self.forward(prefix)["logits"][-1], dim=-1).numpy().astype(np.float32)


def greedy_steps(dec):
    """Greedy decode (arg-max, lowest id on ties) of at most MAX_STEPS tokens, stopping after </s>."""
    tokens, steps = [], []
    while len(tokens) < MAX_STEPS:
        out = dec.forward(tokens)
        logits = out["logits"][-1]
        attention = out["attention"] if not tokens else out["attention"][:, :, -1, :]
        steps.append({"logits": logits.tolist(), "attention": attention.tolist()})
        t = int(np.flatnonzero(logits.numpy() == logits.numpy().max())[0])
        tokens.append(t)
        if t == dec.eos:
            break
    return tokens, steps


class Limits:
    """What search.py's limit reads from a model: its context."""

    def __init__(self, max_positions):
        self.config = {"max_positions": max_positions}


def goldens():
    """-> {name: (model, config, vocab, golden json)}"""
    lines = [line.split(",")[0] for line in open(TOY, encoding="utf-8") if line.strip()]
    vocab = tk.build_word_vocab(lines)
    tokenizer = tk.Tokenizer(SPEC, vocab)
    out = {}
    for seed, (name, partial) in enumerate(CONFIGS):
        config = gpt.complete_config(dict(partial, special_tokens={"pad": 0, "unk": 1, "bos": 2, "eos": 3}))
        torch.manual_seed(seed)
        model = gpt.DecoderOnly(config, len(vocab)).eval()
        init_weights(model, 300 + seed)
        specials = config["special_tokens"]
        mask = torch.ones(config["n_layers"], config["n_heads"])
        mask[MASKED_HEAD] = 0.0
        cases = []
        for text in PROMPTS:
            pieces, ids = tokenizer.encode(text)[:2]
            dec = FullForwardDecoder(model, ids, specials)
            tokens, steps = greedy_steps(dec)
            masked_tokens, masked_steps = greedy_steps(FullForwardDecoder(model, ids, specials, mask))
            beam = search.beam_search(Limits(config["max_positions"]), ids, BEAM["beam_size"], BEAM["nbest"],
                                      max_length=BEAM["max_length"], decoder=dec)
            cases.append({
                "prompt": text, "prompt_tokens": pieces, "prompt_ids": ids, "max_steps": MAX_STEPS,
                "greedy": {"tokens": tokens, "steps": steps},
                "masked": {"layer": MASKED_HEAD[0], "head": MASKED_HEAD[1], "tokens": masked_tokens,
                           "steps": [{"logits": s["logits"]} for s in masked_steps]},
                "beam": dict(BEAM, nbest_results=[{"tokens": h["tokens"], "score": h["score"]}
                                                   for h in beam["nbest"]]),
            })
        out[name] = (model, config, vocab, {"model": name + ".safetensors", "config": config, "cases": cases})
    return out


def compare(made, committed, where, fail):
    """What the reference makes now against the committed golden, by golden_compare's rule."""
    for d in differences(made, committed, where=where):
        fail(d)


def check_causality(name, model, config, fail):
    """gpt.py alone: changing the last token leaves every earlier position's logits as they were."""
    ids = [config["special_tokens"]["bos"], 5, 6, 7, 8]
    with torch.no_grad():
        a = model(ids)["logits"]
        b = model(ids[:-1] + [9])["logits"]
    if not torch.equal(a[:-1], b[:-1]) or torch.equal(a[-1], b[-1]):
        fail(f"{name}: gpt.py's forward is not causal")


def main(check=False):
    import json

    torch.set_num_threads(1)
    made = goldens()
    failures = []
    if check:
        for name, (model, config, _vocab, golden) in made.items():
            with open(os.path.join(OUT, name + ".json"), encoding="utf-8") as f:
                compare(json.loads(json.dumps(golden)), json.load(f), name, failures.append)
            check_causality(name, model, config, failures.append)
        for f in failures[:20]:
            print("FAIL", f)
        print(f"decoder-only goldens: {len(made)} models, {len(failures)} failures")
        sys.exit(1 if failures else 0)
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for name, (model, config, vocab, golden) in made.items():
        path = os.path.join(OUT, name + ".safetensors")
        gpt.export(model, config, SPEC, vocab, path, name=name,
                   description="randomly initialised attnscope decoder-only test model "
                               "(models/goldens/make_decoder_only_goldens.py)")
        write_json(os.path.join(OUT, name + ".json"), golden)
        size = os.path.getsize(path) + os.path.getsize(os.path.join(OUT, name + ".json"))
        total += size
        print(f"{name:24s} {size:7d} B  " + " | ".join(str(c["greedy"]["tokens"]) for c in golden["cases"]))
    print(f"{total} bytes in all")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the committed goldens and write nothing")
    main(parser.parse_args().check)
