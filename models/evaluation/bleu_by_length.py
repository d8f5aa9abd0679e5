#!/usr/bin/env python3
"""BLEU by source length, in pure Python: the sentences binned by the number of words of their
source and each bin scored with corpus BLEU (bleu.py, sacreBLEU's default: 13a, mixed case, exp
smoothing). The independent reading of src/analysis/bleu_by_length.h that the engine's figures
are checked against (models/goldens/make_bleu_by_length_goldens.py, tests/python/test_bleu_by_length.py).

    python3 models/evaluation/bleu_by_length.py --src SOURCES --hyp TRANSLATIONS --ref REFERENCES [--bins 8,12,16,20]

Standard library only; files are plain text or .gz, one sentence a line. Prints one JSON object
in the shape of `attnscope-cli bleu-by-length --json`: {edges, bins: [{minWords, maxWords (null:
no upper bound), sentences, bleu (null for an empty bin), precisions, brevityPenalty, hypLen,
refLen}], total: {sentences, bleu, ...}}.

A source's length is len(source.split()): its white-space separated words as written. Bin k
holds the sentences of edges[k-1] + 1 .. edges[k] words (1 .. edges[0] for the first, more than
the last edge for the last).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bleu import corpus_bleu  # noqa: E402

DEFAULT_EDGES = [8, 12, 16, 20]


def _figures(result: dict) -> dict:
    return {"bleu": result["score"], "precisions": list(result["precisions"]),
            "brevityPenalty": result["bp"], "hypLen": result["hyp_len"], "refLen": result["ref_len"]}


def bleu_by_length(sources: list[str], hypotheses: list[str], references: list[str],
                   edges: list[int] = DEFAULT_EDGES) -> dict:
    if not edges or any(e < 1 for e in edges) or any(b <= a for a, b in zip(edges, edges[1:])):
        raise ValueError(f"the edges must be increasing positive word counts, got {edges}")
    if not len(sources) == len(hypotheses) == len(references):
        raise ValueError(f"{len(sources)} sources, {len(hypotheses)} translations, {len(references)} references")
    if not sources:
        raise ValueError("no sentences")
    members: list[list[int]] = [[] for _ in range(len(edges) + 1)]
    for i, source in enumerate(sources):
        words = len(source.split())
        if words == 0:
            raise ValueError(f"source {i + 1} has no words")
        members[sum(1 for e in edges if words > e)].append(i)
    bins = []
    for k, idx in enumerate(members):
        entry = {"minWords": 1 if k == 0 else edges[k - 1] + 1,
                 "maxWords": edges[k] if k < len(edges) else None,
                 "sentences": len(idx)}
        if idx:
            entry.update(_figures(corpus_bleu([hypotheses[i] for i in idx], [[references[i] for i in idx]])))
        else:
            entry["bleu"] = None
        bins.append(entry)
    total = {"sentences": len(sources), **_figures(corpus_bleu(hypotheses, [references]))}
    return {"edges": list(edges), "bins": bins, "total": total}


def read_lines(path: str) -> list[str]:
    """One sentence a line, split on '\\n' only (a final newline makes no extra line); .gz by its magic bytes."""
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    lines = data.decode("utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Corpus BLEU per bin of source length (words).")
    parser.add_argument("--src", required=True, help="sources, one a line (.gz ok)")
    parser.add_argument("--hyp", required=True, help="translations, one a line (.gz ok)")
    parser.add_argument("--ref", required=True, help="references, one a line (.gz ok)")
    parser.add_argument("--bins", default=",".join(map(str, DEFAULT_EDGES)), help="bin edges (default 8,12,16,20)")
    args = parser.parse_args(argv)
    try:
        edges = [int(e) for e in args.bins.split(",")]
        result = bleu_by_length(read_lines(args.src), read_lines(args.hyp), read_lines(args.ref), edges)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        print(f"bleu_by_length.py: error: {e}", file=sys.stderr)
        return 1
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
