#!/usr/bin/env bash
# The benchmark (`npm run bench`; not part of `npm test`). Builds what it needs,
# exports the model to ONNX (checked against PyTorch) and quantizes the graphs to q8 as
# onnxruntime's quantize_dynamic does (checked against fp32), then runs tests/bench/bench.mjs, which
# prints the tables and writes build/bench/results.json, build/bench/RESULTS.md and
# tests/bench/RESULTS.md; then tests/bench/train_bench.mjs (time per toy training epoch in WASM,
# natively and in PyTorch, as ratios; build/bench/train.json). Options go to bench.mjs, e.g.
#   npm run bench -- --sentences 20 --repeats 1     # a quick run
#   npm run bench -- --docs                         # also refresh the table in docs/benchmarks.md
set -euo pipefail
cd "$(dirname "$0")/../.."

jobs=$(nproc 2>/dev/null || echo 2)
bash tests/ensure_deps.sh native wasm node
python=${ATTNSCOPE_TORCH_PYTHON:-/usr/bin/python3}
if ! "$python" -c 'import torch' >/dev/null 2>&1; then
  # The ONNX export and the PyTorch figures need Debian's python3-torch (no PyPI here).
  if [ "$(id -u)" -eq 0 ] && [ "$python" = /usr/bin/python3 ]; then
    echo "== installing python3-torch"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-torch
  else
    echo "$python cannot import torch: install Debian's python3-torch (sudo apt-get install python3-torch)" >&2
    exit 1
  fi
fi

echo "== npm packages (onnxruntime-web)"
if [ ! -d node_modules/onnxruntime-web ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

echo "== WebAssembly build (web/wasm)"
bash web/build-wasm.sh

echo "== native build for the benchmark (build/bench-native: g++ -O3 -march=native; the CLI for the training benchmark)"
cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-O3 -march=native" \
  -DATTNSCOPE_BUILD_TESTS=OFF -DATTNSCOPE_BUILD_CLI=ON >/dev/null
cmake --build build/bench-native -j "$jobs" --target attnscope attnscope-cli
bench=build/bench-native/attnscope-bench
if [ ! -x $bench ] || [ tests/bench/native/bench_native.cpp -nt $bench ] || [ build/bench-native/libattnscope.a -nt $bench ]; then
  g++ -std=c++17 -O3 -march=native -DNDEBUG -DEIGEN_NO_DEBUG -DEIGEN_MPL2_ONLY -Isrc -isystem /usr/include/eigen3 \
    -isystem build/bench-native/third_party_include tests/bench/native/bench_native.cpp build/bench-native/libattnscope.a -o $bench
fi

echo "== WASM SIMD roofline microbenchmark (emcc -O3 -msimd128)"
roofline=build/bench/roofline/simd_peak.js
mkdir -p build/bench/roofline
echo '{"type": "commonjs"}' > build/bench/roofline/package.json  # the emcc output is CommonJS
if [ ! -f $roofline ] || [ tests/bench/roofline/simd_peak.cpp -nt $roofline ]; then
  NODE_PATH=${NODE_PATH:-/usr/share/nodejs} emcc -O3 -msimd128 -std=c++17 -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 \
    -sSINGLE_FILE=1 -sMODULARIZE=1 -sEXPORT_NAME=createRoofline -sINVOKE_RUN=0 -sEXPORTED_RUNTIME_METHODS=callMain \
    -sEXPORTED_FUNCTIONS=_main,_setup,_decoder_step_gflops tests/bench/roofline/simd_peak.cpp -o $roofline
fi

echo "== ONNX export (build/bench/onnx), checked against PyTorch"
model=models/multi30k-en-de.safetensors
onnx=build/bench/onnx
if [ ! -f $onnx/check.json ] || [ $model -nt $onnx/check.json ] || [ tests/bench/export_onnx.py -nt $onnx/check.json ] \
   || [ tests/bench/ort_engine.mjs -nt $onnx/check.json ] || [ package-lock.json -nt $onnx/check.json ]; then
  rm -f $onnx/check.json
  "$python" tests/bench/export_onnx.py --model $model --out $onnx
fi

echo "== ONNX q8 graphs (build/bench/onnx/*.q8.onnx, as onnxruntime's dynamic quantization), checked against fp32"
if ! "$python" -c 'import onnx' >/dev/null 2>&1; then
  # quantize_onnx.py rewrites the graphs with Debian's python3-onnx (onnxruntime's Python package is not packaged).
  if [ "$(id -u)" -eq 0 ] && [ "$python" = /usr/bin/python3 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-onnx
  else
    echo "$python cannot import onnx: install Debian's python3-onnx (sudo apt-get install python3-onnx)" >&2
    exit 1
  fi
fi
if [ ! -f $onnx/q8_check.json ] || [ $onnx/check.json -nt $onnx/q8_check.json ] || [ tests/bench/quantize_onnx.py -nt $onnx/q8_check.json ] \
   || [ tests/bench/check_onnx.mjs -nt $onnx/q8_check.json ] || [ tests/bench/ort_engine.mjs -nt $onnx/q8_check.json ]; then
  rm -f $onnx/q8_check.json
  "$python" tests/bench/quantize_onnx.py --onnx $onnx
  node tests/bench/check_onnx.mjs $onnx --q8
fi

echo "== page latency in Chromium and the head-importance sweep on 1, 2, 4 workers (build/bench/page.json,"
echo "   which bench.mjs then puts into results.json and RESULTS.md)"
node web/build-page.mjs  # the page the latency run loads (index.html runs these bundles)
node tests/bench/page_latency.mjs

echo "== benchmark"
node tests/bench/bench.mjs "$@"

echo "== training benchmark (time per toy epoch, WASM vs native vs PyTorch)"
node tests/bench/train_bench.mjs --cli build/bench-native/attnscope-cli --python "$python"

