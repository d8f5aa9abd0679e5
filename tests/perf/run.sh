#!/usr/bin/env bash
# Profiles a greedy decode of the Multi30k model, natively and in WASM (Node), with
# tests/perf/profile_decode.cpp (performance work; not part of npm test).
# With BASE=<git revision>, also builds that revision's src/ and runs old and new in
# alternating rounds, so the before/after ratios are measured under the same machine load,
# and prints the median per-round ratio of each figure. "new" is the working tree, or the
# revision NEW=<git revision>.
#   bash tests/perf/run.sh [sentences=50] [repeats=3] [rounds=3]
#   BASE=HEAD~3 bash tests/perf/run.sh 50 3 3
#   BASE=HEAD~2 NEW=HEAD~1 bash tests/perf/run.sh 30 3 3
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
sentences=${1:-50}
repeats=${2:-3}
rounds=${3:-3}
jobs=${JOBS:-2}
model=$root/models/multi30k-en-de.safetensors
data=${ATTNSCOPE_DATA:-$root/../shared/data}
text=$root/build/perf/val.en.txt
mkdir -p build/perf
[ -f "$text" ] || gunzip -c "$data/multi30k/val.en.gz" >"$text"
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # Debian's emscripten finds acorn there

build() {  # build <name> <engine root>
  local name=$1 engine=$2
  cmake -S tests/perf -B "build/perf/$name-native" -DATTNSCOPE_ROOT="$engine" >/dev/null
  cmake --build "build/perf/$name-native" -j "$jobs" >/dev/null
  emcmake cmake -S tests/perf -B "build/perf/$name-wasm" -DATTNSCOPE_ROOT="$engine" >/dev/null
  cmake --build "build/perf/$name-wasm" -j "$jobs" >/dev/null
}

checkout() {  # checkout <name> <revision>: its src/ under build/perf/<name>-src
  rm -rf "build/perf/$1-src"
  mkdir -p "build/perf/$1-src"
  git archive "$2" src | tar -x -C "build/perf/$1-src"
  # git archive dates every file at the commit time, which can be older than the objects of an
  # earlier checkout in the same build folder: make would keep those.
  find "build/perf/$1-src" -type f -exec touch {} +
}

names=(new)
if [ -n "${NEW:-}" ]; then
  checkout new "$NEW"
  build new "$root/build/perf/new-src"
else
  build new "$root"
fi
if [ -n "${BASE:-}" ]; then
  checkout base "$BASE"
  build base "$root/build/perf/base-src"
  names=(base new)
fi

run() {  # run <name> <target>
  if [ "$2" = native ]; then
    "build/perf/$1-native/profile_decode" "$model" "$text" "$sentences" "$repeats"
  else  # Emscripten 3.1.6's loader would fetch() the .wasm path under Node 18+
    node --no-experimental-fetch "build/perf/$1-wasm/profile_decode.cjs" "$model" "$text" "$sentences" "$repeats"
  fi
}

log=build/perf/run.log
: >"$log"
for target in native wasm; do
  for round in $(seq "$rounds"); do
    for name in "${names[@]}"; do
      echo "=== $name ($target), round $round" | tee -a "$log"
      # The breakdown once per build and target; the other rounds time whole decodes only.
      if [ "$round" = 1 ]; then run "$name" "$target"; else PROFILE_DECODE_ONLY=1 run "$name" "$target"; fi | tee -a "$log"
    done
  done
done

if [ ${#names[@]} = 2 ]; then
  echo "=== new / base, median over $rounds rounds (below 1: new is faster)"
  python3 - "$log" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    if m := re.match(r"=== (\w+) \((\w+)\), round (\d+)", line):
        key = m.groups()
    elif line.startswith("RESULT"):
        runs[key] = dict(kv.split("=") for kv in line.split()[1:])
for target in ("native", "wasm"):
    rounds = sorted({r for (_, t, r) in runs if t == target})
    for fig in ("encode_ms", "decode_ms", "capture_ms", "beam4_ms", "beam4_over_greedy"):
        if fig not in runs["base", target, rounds[0]]:
            continue
        ratios = [float(runs["new", target, r][fig]) / float(runs["base", target, r][fig]) for r in rounds]
        print(f"{target:7} {fig:11} {statistics.median(ratios):.3f}  (per round: {' '.join(f'{x:.3f}' for x in ratios)})")
    for r in rounds:
        for sum in ("checksum", "beam_checksum"):
            if sum in runs["base", target, r] and runs["new", target, r][sum] != runs["base", target, r][sum]:
                print(f"{target} round {r}: the tokens differ ({sum})")
PY
fi
