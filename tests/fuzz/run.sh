#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, with ASan + UBSan) in build/fuzz and fuzzes each one for a
# bounded time from the committed seed corpus, then prints how many inputs each target ran:
#   model      any bytes as a .safetensors model file (the loader), then a short decode if it loads
#   tokenizer  any bytes as a sentence (UTF-8, normalisation, word and BPE tokenizers)
#   decode     bytes as choices: a generated tiny model, decoding options and a sequence of API calls
#   sentencepiece  a SentencePiece .model file's bytes, or a sentence for the golden .model files
#   bash tests/fuzz/run.sh [SECONDS_PER_TARGET]     (default 30, or $ATTNSCOPE_FUZZ_SECONDS)
# A crash, a sanitizer report, an uncaught exception or a unit slower than 10 s fails the run and
# leaves the input in <build>/fuzz-artifacts/<target>/. Fix the bug, then copy the input into
# tests/fuzz/regressions/<target>/: ctest replays that folder (fuzz_replay_<target>) in every build.
# $ATTNSCOPE_FUZZ_BUILD names another build folder configured with -DATTNSCOPE_FUZZ=ON to use
# instead of build/fuzz: npm test passes build/asan, which holds the sanitized tests as well, so
# the engine is compiled with the sanitizers once, not twice.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-${ATTNSCOPE_FUZZ_SECONDS:-30}}
# A fixed seed makes a run repeatable: a fresh checkout (CI) walks the same sequence of inputs, so
# a red run is reproducible and never depends on chance. Another seed explores elsewhere:
# ATTNSCOPE_FUZZ_SEED=$RANDOM bash tests/fuzz/run.sh 600
seed=${ATTNSCOPE_FUZZ_SEED:-1}
jobs=$(nproc 2>/dev/null || echo 2)
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [ -z "$cxx" ]; then echo "tests/fuzz/run.sh: clang++ is missing (bash tests/ensure_deps.sh fuzz)" >&2; exit 1; fi

build=${ATTNSCOPE_FUZZ_BUILD:-build/fuzz}
if ! grep -q '^ATTNSCOPE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  CXX=$cxx cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNSCOPE_FUZZ=ON \
    -DATTNSCOPE_BUILD_TESTS=OFF -DATTNSCOPE_BUILD_CLI=OFF >/dev/null
fi
cmake --build "$build" -j "$jobs" --target fuzz_model fuzz_tokenizer fuzz_decode fuzz_sentencepiece

declare -A max_len=([model]=20000 [tokenizer]=4096 [decode]=4096 [sentencepiece]=20000)
# Targets whose input is JSON text (the model file's header and metadata): their dictionary
# gets tests/fuzz/json.dict too (libFuzzer takes one -dict, so the two are joined in $build).
declare -A reads_json=([model]=1)
failed=0
for target in model tokenizer decode sentencepiece; do
  work=$build/fuzz-corpus/$target            # new inputs land here (kept between local runs)
  artifacts=$build/fuzz-artifacts/$target
  log=$build/fuzz_$target.log
  mkdir -p "$work" "$artifacts"
  dict=()
  dict_parts=()
  [ -f "tests/fuzz/$target.dict" ] && dict_parts+=("tests/fuzz/$target.dict")
  [ -n "${reads_json[$target]:-}" ] && dict_parts+=("tests/fuzz/json.dict")
  if [ ${#dict_parts[@]} -gt 0 ]; then
    cat "${dict_parts[@]}" >"$build/fuzz_$target.dict"
    dict=(-dict="$build/fuzz_$target.dict")
  fi
  set +e
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz_$target" -max_total_time="$seconds" -seed="$seed" -timeout=10 -rss_limit_mb=2048 \
    -max_len="${max_len[$target]}" "${dict[@]}" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" "tests/fuzz/corpus/$target" "tests/fuzz/regressions/$target" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(find "$work" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    echo "[fuzz] $target: ${runs:-?} inputs executed in ${seconds} s (seed $seed), no crash (working corpus: $corpus files in $work)"
  else
    failed=1
    echo "[fuzz] $target: FAILED after ${runs:-?} inputs (exit $rc); the input is in $artifacts/:" >&2
    ls -1 "$artifacts" >&2 || true
    grep -E "ERROR|runtime error|FUZZ_CHECK|terminate|SUMMARY|Test unit written" "$log" | head -20 >&2 || true
    echo "full log: $log" >&2
  fi
done
exit $failed
