#!/usr/bin/env python3
"""The head-importance sweep of a shipped model on Multi30k val, precomputed for the page.

    python3 models/evaluation/head_sweep.py --model models/multi30k-en-de.safetensors --src en --tgt de [--sentences 100] [--data DIR]

Runs `attnscope-cli heads --bleu` (our C++ engine) on the first N val pairs of Multi30k (from
--data DIR, default ../shared/data beside the checkout) and writes models/analysis/<model>.heads.json:
the CLI's JSON (base log-likelihood per token and greedy BLEU; for every head alone masked,
Δ log-likelihood per token and Δ BLEU) plus what it was computed on. Only the figures are
written; the sentences stay in the data directory. Standard library only.
"""

import argparse
import gzip
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "models" / "tools"))
import shared_data  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--src", default="en")
    p.add_argument("--tgt", default="de")
    p.add_argument("--sentences", type=int, default=100)
    p.add_argument("--cli", default=str(ROOT / "build" / "native" / "attnscope-cli"))
    shared_data.add_option(p)
    args = p.parse_args()
    data = shared_data.folder(args.data, f"multi30k/val.{args.src}.gz", f"multi30k/val.{args.tgt}.gz") / "multi30k"

    def first(lang):
        with gzip.open(data / f"val.{lang}.gz", "rt", encoding="utf-8") as f:
            return [next(f).rstrip("\n") for _ in range(args.sentences)]

    with tempfile.TemporaryDirectory() as tmp:
        src, ref = Path(tmp) / "src.txt", Path(tmp) / "ref.txt"
        src.write_text("\n".join(first(args.src)) + "\n", encoding="utf-8")
        ref.write_text("\n".join(first(args.tgt)) + "\n", encoding="utf-8")
        t0 = time.time()
        out = subprocess.run([args.cli, "heads", "--model", args.model, "--input", str(src), "--refs", str(ref), "--bleu"],
                             check=True, capture_output=True, text=True)
        seconds = time.time() - t0
    sweep = json.loads(out.stdout)
    model = Path(args.model).name
    sweep = {"model": model, "data": f"Multi30k val, first {args.sentences} pairs ({args.src}->{args.tgt})",
             "command": f"python3 models/evaluation/head_sweep.py --model models/{model} --src {args.src} --tgt {args.tgt} "
                        f"--sentences {args.sentences}",
             "seconds": round(seconds, 1), **sweep}
    dest = ROOT / "models" / "analysis" / (Path(model).stem + ".heads.json")
    dest.write_text(json.dumps(sweep, indent=1) + "\n")
    ranked = sorted(sweep["heads"], key=lambda h: h["delta_log_likelihood"])
    print(f"{dest.relative_to(ROOT)}: base log-likelihood {sweep['base_log_likelihood']:.4f}/token, BLEU {sweep['base_bleu']:.2f}, "
          f"{seconds:.0f}s", file=sys.stderr)
    for label, heads in (("most important", ranked[:3]), ("least important", ranked[-3:])):
        for h in heads:
            print(f"{label}: {h['site']} layer {h['layer']} head {h['head']}: "
                  f"Δ log-likelihood {h['delta_log_likelihood']:+.4f}, Δ BLEU {h['delta_bleu']:+.2f}")


if __name__ == "__main__":
    main()
