#!/usr/bin/env python3
"""Writes models/analysis/bleu-by-length.json: BLEU per bin of source length of the shipped
Multi30k en->de translators on test_2016_flickr, for the page's "BLEU by sentence length" card.

    python3 models/evaluation/bleu_by_length_models.py [--data DIR] [--cli build/native/attnscope-cli] [--jobs N]

Every figure is the engine's: each model is decoded and scored by one run of
`attnscope-cli bleu-by-length` (beam 5 with the length penalty its card chose on val). The
translations it writes are then scored again by models/evaluation/bleu_by_length.py, the pure
Python reading, and the script stops if the two disagree anywhere. Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "models" / "tools"))
import shared_data  # noqa: E402
from bleu_by_length import DEFAULT_EDGES, bleu_by_length, read_lines  # noqa: E402

# id, legend label, length penalty (GNMT alpha) chosen on val in models/README.md.
MODELS = [
    ("multi30k-en-de", "Transformer", 1.4),
    ("multi30k-rnn-en-de", "RNN with Bahdanau attention", 1.0),
    ("multi30k-rnn-none-en-de", "RNN without attention", 1.0),
]
BEAM = 5
SPLIT = "test_2016_flickr"
DEST = ROOT / "models" / "analysis" / "bleu-by-length.json"


def agree(a, b, where: str) -> None:
    """Exact for counts and nulls, 1e-9 for the floats (the same double arithmetic, in another order)."""
    if isinstance(a, dict):
        if set(a) != set(b):
            raise SystemExit(f"{where}: the engine gives {sorted(a)}, Python {sorted(b)}")
        for k in a:
            agree(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, list):
        if len(a) != len(b):
            raise SystemExit(f"{where}: {len(a)} items against {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            agree(x, y, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        if not math.isclose(a, b, rel_tol=0, abs_tol=1e-9):
            raise SystemExit(f"{where}: the engine gives {a!r}, Python {b!r}")
    elif a != b:
        raise SystemExit(f"{where}: the engine gives {a!r}, Python {b!r}")


def run_model(cli: Path, tmp: Path, model_id: str, alpha: float) -> tuple[dict, float, list[str]]:
    translations = tmp / f"{model_id}.hyp"
    options = ["--beam", str(BEAM), "--length-penalty", str(alpha)]
    cmd = [str(cli), "bleu-by-length", "--model", str(ROOT / "models" / f"{model_id}.safetensors"),
           "--input", str(tmp / f"{SPLIT}.en"), "--refs", str(tmp / f"{SPLIT}.de"), *options,
           "--translations", str(translations), "--json"]
    start = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}\nexited with status {proc.returncode}:\n{proc.stderr}")
    shown = (f"build/native/attnscope-cli bleu-by-length --model models/{model_id}.safetensors "
             f"--input {SPLIT}.en --refs {SPLIT}.de {' '.join(options)} --json")
    return json.loads(proc.stdout), seconds, [shown, read_lines(str(translations))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    shared_data.add_option(parser)
    parser.add_argument("--cli", type=Path, default=ROOT / "build" / "native" / "attnscope-cli")
    parser.add_argument("--jobs", type=int, default=1, help="models decoded at once (one CLI process each)")
    args = parser.parse_args()
    data = shared_data.folder(args.data, f"multi30k/{SPLIT}.en.gz", f"multi30k/{SPLIT}.de.gz")
    if not args.cli.exists():
        raise SystemExit(f"{args.cli} is missing: build it first (cmake --build build/native)")
    sources = read_lines(str(data / "multi30k" / f"{SPLIT}.en.gz"))
    references = read_lines(str(data / "multi30k" / f"{SPLIT}.de.gz"))
    with tempfile.TemporaryDirectory(prefix="attnscope-bleu-length-") as name:
        tmp = Path(name)
        # The CLI reads plain text; the line splitting is the one both sides share.
        (tmp / f"{SPLIT}.en").write_text("".join(s + "\n" for s in sources), encoding="utf-8")
        (tmp / f"{SPLIT}.de").write_text("".join(r + "\n" for r in references), encoding="utf-8")
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            runs = list(pool.map(lambda m: run_model(args.cli, tmp, m[0], m[2]), MODELS))
    models = []
    for (model_id, label, alpha), (result, seconds, (command, translations)) in zip(MODELS, runs):
        agree(result, bleu_by_length(sources, translations, references, DEFAULT_EDGES), model_id)
        weights = (ROOT / "models" / f"{model_id}.safetensors").read_bytes()
        models.append({"id": model_id, "label": label, "sha256": hashlib.sha256(weights).hexdigest(),
                       "beam": BEAM, "lengthPenalty": alpha,
                       "command": command, "seconds": round(seconds, 1),
                       "bins": result["bins"], "total": result["total"]})
        print(f"{model_id}: " + ", ".join(
            f"{b['minWords']}{'-' + str(b['maxWords']) if b['maxWords'] else '+'} {b['bleu']:.2f} ({b['sentences']})"
            for b in result["bins"])
            + f"; all {result['total']['bleu']:.2f} ({seconds:.0f} s)", file=sys.stderr)
    out = {
        "data": f"Multi30k {SPLIT} ({len(sources):,} pairs, en->de), source length in white-space words",
        "command": "python3 models/evaluation/bleu_by_length_models.py",
        "checked": "every figure equals models/evaluation/bleu_by_length.py on the same translations (to 1e-9)",
        "edges": DEFAULT_EDGES,
        "models": models,
    }
    DEST.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {DEST.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
