#!/usr/bin/env python3
"""The head-ablation map of a shipped encoder-only (BERT) model on Multi30k val, precomputed for
the page.

    python3 models/evaluation/bert_ablation.py --model models/multi30k-en-mlm.safetensors [--sentences 200] [--text TEXT] [--data DIR]

Runs `attnscope-cli bert-study --sentences FILE --json TEXT` (our C++ engine) on the first N
English val sentences of Multi30k (from --data DIR, default ../shared/data beside the checkout) and writes
models/analysis/<model>.ablation.json: the CLI's JSON (the ablation: base masked-token accuracy,
masked positions, correct counts and Δ accuracy per layer x head; and for TEXT, the example of
web/models.js, the heads' pattern classes and the attention shares), how often each pattern class
occurs over the sentences x heads (patternCounts) and each head's most frequent class
(headMajorityPattern), plus what it was computed on and the command. Only the figures are written; the sentences stay in the data directory.
Standard library only.
"""

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models" / "tools"))
import shared_data  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--sentences", type=int, default=200)
    p.add_argument("--text", default="a man is riding a [MASK] .")
    p.add_argument("--cli", default=str(ROOT / "build" / "native" / "attnscope-cli"))
    shared_data.add_option(p)
    args = p.parse_args()
    data = shared_data.folder(args.data, "multi30k/val.en.gz") / "multi30k"
    with gzip.open(data / "val.en.gz", "rt", encoding="utf-8") as f:
        sentences = [next(f).rstrip("\n") for _ in range(args.sentences)]

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sentences.txt"
        path.write_text("\n".join(sentences) + "\n", encoding="utf-8")
        t0 = time.time()
        out = subprocess.run([args.cli, "bert-study", "--model", args.model, "--sentences", str(path), "--json", args.text],
                             check=True, capture_output=True, text=True)
        seconds = time.time() - t0
    study = json.loads(out.stdout)
    # Every head's pattern class on every sentence of the set (one CLI run each): how often each
    # class occurs, over sentences x layers x heads.
    tally, per_head = Counter(), {}
    for sentence in sentences:
        run = subprocess.run([args.cli, "bert-study", "--model", args.model, "--json", sentence],
                             capture_output=True, text=True)
        if run.returncode != 0:
            continue
        for l, row in enumerate(json.loads(run.stdout)["patterns"]):
            for h, p in enumerate(row):
                tally[p] += 1
                per_head.setdefault((l, h), Counter())[p] += 1
    study["patternCounts"] = dict(tally.most_common())
    study["headMajorityPattern"] = [[per_head[(l, h)].most_common(1)[0][0] for h in range(len(study["patterns"][0]))]
                                    for l in range(len(study["patterns"]))]
    model = Path(args.model).name
    result = {"model": model, "data": f"Multi30k val English, first {args.sentences} sentences",
              "command": f"python3 models/evaluation/bert_ablation.py --model models/{model} --sentences {args.sentences} "
                         f"(attnscope-cli bert-study --model models/{model} --sentences FILE --json TEXT)",
              "seconds": round(seconds, 1), **study}
    dest = ROOT / "models" / "analysis" / (Path(model).stem + ".ablation.json")
    dest.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    a = study["ablation"]
    heads = [(d, l, h) for l, row in enumerate(a["delta"]) for h, d in enumerate(row)]
    print(f"{dest.relative_to(ROOT)}: base masked-token accuracy {a['baseAccuracy']:.4f} on {a['positions']} pieces, {seconds:.0f}s",
          file=sys.stderr)
    for d, l, h in sorted(heads)[:5]:
        print(f"most important: layer {l} head {h}: Δ accuracy {d:+.4f}")
    counts = Counter(p for row in study["patterns"] for p in row)
    total = sum(counts.values())
    print("pattern classes of '" + args.text + "': " + ", ".join(f"{k} {v}/{total}" for k, v in counts.most_common()))
    total = sum(tally.values())
    print(f"pattern classes over the {args.sentences} sentences x heads: "
          + ", ".join(f"{k} {v / total:.1%}" for k, v in tally.most_common()))
    majority = Counter(p for row in study["headMajorityPattern"] for p in row)
    print("each head's most frequent class: " + ", ".join(f"{k} {v}" for k, v in majority.most_common()))


if __name__ == "__main__":
    main()
