#!/usr/bin/env python3
"""Translate a test set with attnscope's own C++ engine (attnscope-cli) and print corpus BLEU.

    python3 models/evaluation/evaluate.py --model models/X.safetensors \\
        --src ../shared/data/multi30k/test_2016_flickr.en.gz \\
        --ref ../shared/data/multi30k/test_2016_flickr.de.gz \\
        [--cli build/native/attnscope-cli] [--limit N] [--jobs N] [--out hyps.txt] \\
        [--extra-cli-args="--max-steps 60"] [--json]

Standard library only. The source (plain text or .gz, one sentence a line) is written to a
temporary file and decoded in one run of `attnscope-cli translate --model M --input TMP`;
the CLI prints exactly one line per input line, an empty line where a sentence could not be
translated (exit status 3: counted and reported as a warning, the empty line is scored).
BLEU is sacreBLEU's default (13a tokenizer, mixed case, exp smoothing), see models/evaluation/bleu.py.
Several --ref files give several reference streams.

Relative --model/--src/--ref/--cli paths are looked up from the current directory first and
then from the repository root, so the commands above work from any directory; --out is
relative to the current directory. The decode time is the wall time of the CLI run, model
loading included.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO_ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from bleu import corpus_bleu, format_bleu, signature  # noqa: E402

DEFAULT_CLI = "build/native/attnscope-cli"
BUILD_HINT = ("build it first, from the repository root ({root}):\n"
              "  cmake -S . -B build/native && cmake --build build/native -j")
_CLI_ERROR = re.compile(r"^attnscope-cli: error: ")
_CLI_UNKNOWN = re.compile(r"^attnscope-cli: warning: unknown words:")


class EvalError(Exception):
    pass


def resolve(path: str) -> Path:
    """An existing path as given (absolute, or relative to the current directory), else the
    same path relative to the repository root; if neither exists, the path as given."""
    p = Path(path).expanduser()
    if p.is_absolute() or p.exists():
        return p
    in_repo = REPO_ROOT / p
    return in_repo if in_repo.exists() else p


def read_lines(path: Path) -> list[str]:
    """One segment a line, split on '\\n' only (as sacreBLEU reads files and as the CLI's
    std::getline does); a final newline does not make an extra segment. Gzip is detected by
    its magic bytes."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise EvalError(f"{path}: not UTF-8 ({e})") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def run_cli(cli: Path, model: Path, sources: list[str], extra: list[str]) -> dict:
    with tempfile.TemporaryDirectory(prefix="attnscope-eval-") as tmp:
        src_file = Path(tmp) / "source.txt"
        src_file.write_text("".join(s + "\n" for s in sources), encoding="utf-8")
        cmd = [str(cli), "translate", "--model", str(model), "--input", str(src_file), *extra]
        start = time.perf_counter()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        seconds = time.perf_counter() - start
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode not in (0, 3):
        raise EvalError(f"{' '.join(shlex.quote(c) for c in cmd)}\n"
                        f"exited with status {proc.returncode}:\n{stderr.rstrip()}")
    hyps = proc.stdout.decode("utf-8", errors="replace").split("\n")
    if hyps and hyps[-1] == "":
        hyps.pop()
    if len(hyps) != len(sources):
        raise EvalError(f"the CLI printed {len(hyps)} lines for {len(sources)} input lines; "
                        f"cannot align hypotheses with references")
    err_lines = stderr.splitlines()
    errors = [l for l in err_lines if _CLI_ERROR.match(l)]
    return {
        "command": cmd,
        "returncode": proc.returncode,
        "hypotheses": hyps,
        "seconds": seconds,
        "error_lines": errors,
        "unknown_word_lines": sum(1 for l in err_lines if _CLI_UNKNOWN.match(l)),
    }


def run_sharded(cli: Path, model: Path, sources: list[str], extra: list[str], jobs: int) -> dict:
    """run_cli over `jobs` contiguous shards in parallel (one CLI process each), merged in order."""
    if jobs < 1:
        raise EvalError("--jobs must be at least 1")
    size = -(-len(sources) // jobs)
    shards = [sources[i:i + size] for i in range(0, len(sources), size)]
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=len(shards)) as pool:
        runs = list(pool.map(lambda shard: run_cli(cli, model, shard, extra), shards))
    return {
        "command": runs[0]["command"],
        "returncode": max(r["returncode"] for r in runs),
        "hypotheses": [h for r in runs for h in r["hypotheses"]],
        "seconds": time.perf_counter() - start,
        "error_lines": [l for r in runs for l in r["error_lines"]],
        "unknown_word_lines": sum(r["unknown_word_lines"] for r in runs),
    }


def evaluate(args: argparse.Namespace) -> dict:
    cli = resolve(args.cli)
    if not cli.exists():
        raise EvalError(f"attnscope-cli not found at {cli}; "
                        + BUILD_HINT.format(root=REPO_ROOT))
    if not os.access(cli, os.X_OK) or cli.is_dir():
        raise EvalError(f"{cli} is not an executable file")
    model = resolve(args.model)
    if not model.is_file():
        raise EvalError(f"model file not found: {args.model}")
    src_path = resolve(args.src)
    ref_paths = [resolve(r) for r in args.ref]
    for p, given in [(src_path, args.src)] + list(zip(ref_paths, args.ref)):
        if not p.is_file():
            raise EvalError(f"file not found: {given}")

    extra = shlex.split(args.extra_cli_args or "")
    for flag in ("--json", "--input", "--model"):
        if flag in extra:
            raise EvalError(f"{flag} cannot be passed through --extra-cli-args")

    sources = read_lines(src_path)
    refs = [read_lines(p) for p in ref_paths]
    for p, stream in zip(ref_paths, refs):
        if len(stream) != len(sources):
            raise EvalError(f"{p} has {len(stream)} lines, {src_path} has {len(sources)}")
    if args.limit is not None:
        if args.limit < 1:
            raise EvalError("--limit must be at least 1")
        sources = sources[:args.limit]
        refs = [stream[:args.limit] for stream in refs]
    if not sources:
        raise EvalError(f"{src_path} is empty")

    run = run_sharded(cli, model, sources, extra, args.jobs)
    hyps = run["hypotheses"]
    failed = len(run["error_lines"])
    if run["returncode"] == 3 and failed == 0:
        # exit status 3 but no recognisable error line: count the empty outputs instead
        failed = sum(1 for h in hyps if h == "")

    if args.out:
        out = Path(args.out).expanduser()
        out.write_text("".join(h + "\n" for h in hyps), encoding="utf-8")

    bleu = corpus_bleu(hyps, refs)
    # What papers on Multi30k report: lowercased, tokenised BLEU (here sacreBLEU's -lc with 13a).
    bleu_lc = corpus_bleu(hyps, refs, lowercase=True)
    n = len(sources)
    return {
        "bleu": bleu["score"],
        "formatted": format_bleu(bleu),
        "signature": signature(bleu),
        "bleu_lowercase": bleu_lc["score"],
        "formatted_lowercase": format_bleu(bleu_lc),
        "signature_lowercase": signature(bleu_lc),
        "precisions": bleu["precisions"],
        "bp": bleu["bp"],
        "ratio": bleu["ratio"],
        "hyp_len": bleu["hyp_len"],
        "ref_len": bleu["ref_len"],
        "counts": bleu["counts"],
        "totals": bleu["totals"],
        "sentences": n,
        "failed": failed,
        "empty_hypotheses": sum(1 for h in hyps if h == ""),
        "unknown_word_warnings": run["unknown_word_lines"],
        "cli_exit_status": run["returncode"],
        "decode_seconds": run["seconds"],
        "sentences_per_second": n / run["seconds"] if run["seconds"] > 0 else None,
        "model": str(model),
        "src": str(src_path),
        "ref": [str(p) for p in ref_paths],
        "cli": str(cli),
        "cli_command": run["command"][:5] + ["<source>"] + run["command"][6:],
        "out": str(Path(args.out).expanduser()) if args.out else None,
        "error_lines": run["error_lines"],
    }


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Decode a test set with attnscope-cli and print corpus BLEU "
                    "(sacreBLEU defaults: 13a, mixed case, exp smoothing).")
    p.add_argument("--model", required=True, help="model file (.safetensors)")
    p.add_argument("--src", required=True, help="source sentences, one a line (.gz or plain)")
    p.add_argument("--ref", required=True, action="append",
                   help="reference translations, aligned with --src (.gz or plain); "
                        "repeat for several reference streams")
    p.add_argument("--cli", default=DEFAULT_CLI,
                   help=f"attnscope-cli binary (default: {DEFAULT_CLI} in the repository)")
    p.add_argument("--limit", type=int, help="only the first N sentences")
    p.add_argument("--jobs", type=int, default=1, help="decode in N parallel CLI processes (same output)")
    p.add_argument("--out", help="write the hypotheses here, one a line")
    p.add_argument("--extra-cli-args", default="",
                   help='more arguments for "attnscope-cli translate", split like a shell '
                        'would, e.g. --extra-cli-args="--max-steps 60" (write it with "=" when '
                        'the value is a single option such as --extra-cli-args=--flag)')
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        r = evaluate(args)
    except EvalError as e:
        print(f"evaluate.py: error: {e}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(r, ensure_ascii=False, indent=1))
        warn_failures(r)
        return 0
    print(r["formatted"])
    print(f"signature: {r['signature']}")
    print(f"lowercase: {r['formatted_lowercase']}  ({r['signature_lowercase']})")
    print(f"sentences: {r['sentences']}  failed: {r['failed']}  "
          f"empty hypotheses: {r['empty_hypotheses']}  "
          f"unknown-word warnings: {r['unknown_word_warnings']}")
    rate = r["sentences_per_second"]
    print(f"decode: {r['decode_seconds']:.2f} s"
          + (f", {rate:.2f} sentences/s" if rate is not None else "")
          + " (one CLI run, model loading included)")
    if r["out"]:
        print(f"hypotheses written to {r['out']}")
    warn_failures(r)
    return 0


def warn_failures(r: dict) -> None:
    if not r["failed"]:
        return
    sys.stdout.flush()
    print(f"evaluate.py: warning: {r['failed']} of {r['sentences']} sentences could not be "
          f"translated (the CLI exited with status 3; they are scored as empty), e.g.:",
          file=sys.stderr)
    for line in r["error_lines"][:3]:
        print(f"  {line}", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())
