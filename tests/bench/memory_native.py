#!/usr/bin/env python3
"""Peak memory and decoding speed of the native engine on model files (prints numbers; not a test):

    python3 tests/bench/memory_native.py --cli build/native/attnscope-cli \
        --bench build/bench-native/attnscope-bench MODEL.safetensors [MODEL ...] [--repeats 3]

For each file, in fresh processes:
  * peak RSS: `/usr/bin/time -v attnscope-cli translate|generate --model FILE --max-length N TEXT`
    (generate for a file whose config's architecture is decoder_only), the median of
    --repeats runs, and its ratio to the file's size;
  * ms per generated token: attnscope-bench (tests/bench/native/bench_native.cpp) decoding the
    first --sentences lines of --input greedily with capture off, --repeats times in one process;
    the median over runs of (decode time / steps).
Give another build's --cli and --bench to compare two checkouts on the same files (A/B).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MIB = 1 << 20


def is_decoder_only(model):
    with open(model, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
    config = json.loads(header.get("__metadata__", {}).get("config", "{}"))
    return config.get("architecture") == "decoder_only"


def peak_rss_mib(cli, model, text, max_length, generate, flags):
    command = ["/usr/bin/time", "-v", cli, "generate" if generate else "translate", "--model", model,
               "--max-length", str(max_length), *flags, text]
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{run.stderr}")
    kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr).group(1))
    return kib / 1024


def ms_per_token(bench, model, sentences_file, max_length, count, repeats):
    worker = subprocess.Popen([bench, "--model", model, "--input", sentences_file, "--max-length", str(max_length)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ready = json.loads(worker.stdout.readline())
    per_token = []
    for _ in range(repeats):
        worker.stdin.write(f"greedy {count}\n")
        worker.stdin.flush()
        answer = json.loads(worker.stdout.readline())
        if "error" in answer:
            sys.exit(answer["error"])
        runs = answer["runs"]["greedy"]
        per_token.append(sum(runs["decode_ms"]) / max(1, sum(runs["steps"])))
    worker.stdin.write("quit\n")
    worker.stdin.flush()
    worker.wait()
    return statistics.median(per_token), ready["load_ms"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("models", nargs="+")
    p.add_argument("--cli", default=os.path.join(ROOT, "build/native/attnscope-cli"))
    p.add_argument("--bench", default=os.path.join(ROOT, "build/bench-native/attnscope-bench"))
    p.add_argument("--input", default=os.path.join(ROOT, "tests/data/multi30k/val.first40.en"))
    p.add_argument("--sentences", type=int, default=5)
    p.add_argument("--max-length", type=int, default=32)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--f32", action="store_true",
                   help="peak RSS with the CLI's --f32 load option, an F16 file's weights expanded to binary32 "
                        "(ms / token stays the default load's)")
    a = p.parse_args()
    with open(a.input) as f:
        text = f.readline().strip()
    print("| file | MiB | peak RSS MiB | RSS / file | load ms | ms / token |")
    print("|---|---|---|---|---|---|")
    for model in a.models:
        size = os.path.getsize(model) / MIB
        generate = is_decoder_only(model)
        flags = ["--f32"] if a.f32 else []
        rss = statistics.median(peak_rss_mib(a.cli, model, text, a.max_length, generate, flags) for _ in range(a.repeats))
        speed = "-"
        load = "-"
        if os.path.exists(a.bench):
            ms, load_ms = ms_per_token(a.bench, model, a.input, a.max_length, a.sentences, a.repeats)
            speed, load = f"{ms:.2f}", f"{load_ms:.0f}"
        print(f"| {os.path.basename(model)} | {size:.1f} | {rss:.1f} | {rss / size:.2f} | {load} | {speed} |", flush=True)


if __name__ == "__main__":
    main()
