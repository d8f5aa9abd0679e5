#!/usr/bin/env bash
# The benchmark (`npm run bench`; not part of `npm test`). Builds what it needs,
# exports the model to ONNX (checked against PyTorch) and quantizes the graphs to q8 as
# onnxruntime's quantize_dynamic does (checked against fp32), then runs tests/bench/bench.mjs, which
# prints the tables and writes build/bench/results.json, build/bench/RESULTS.md and
# tests/bench/RESULTS.md (before them, tests/bench/attribution_bench.cpp: the cost of explaining a step,
# build/bench/attribution.txt); then tests/bench/train_bench.mjs (time per toy training epoch in WASM,
# natively and in PyTorch, as ratios; build/bench/train.json). Options go to bench.mjs, e.g.
#   npm run bench -- --sentences 20 --repeats 1     # a quick run
#   npm run bench -- --docs                         # also refresh the table in docs/benchmarks.md
#   npm run bench -- --real-size                    # also the opus-mt-en-de-sized Marian (10-15 minutes more on 2 cores)
#   npm run bench -- --real-size-only [--docs]      # only that (the WASM build, the model, its graphs, bench.mjs)
#   npm run bench -- --gpt2 | --gpt2-only [--docs]  # also, or only, GPT-2 small at real size, and medium in the page (about 20 minutes more)
# At real size the model is models/goldens/make_hf_real_size.py's (build/hf-real/, made when
# missing), exported by export_onnx.py --hf and quantized into build/bench/onnx-opus-mt-en-de-size.
# GPT-2 small is make_hf_gpt2_checkpoints.py --size small's (build/hf-real/gpt2-size/), converted
# by convert_hf.py --f16 and exported into build/bench/onnx-gpt2-size.
set -euo pipefail
cd "$(dirname "$0")/../.."

real_size=none
gpt2=none
for arg in "$@"; do
  case "$arg" in
    --real-size) real_size=also ;;
    --real-size-only) real_size=only ;;
    --gpt2) gpt2=also ;;
    --gpt2-only) gpt2=only ;;
  esac
done

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

ensure_onnx() {
  # quantize_onnx.py rewrites the graphs with Debian's python3-onnx (onnxruntime's Python package is not packaged).
  if ! "$python" -c 'import onnx' >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && [ "$python" = /usr/bin/python3 ]; then
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-onnx
    else
      echo "$python cannot import onnx: install Debian's python3-onnx (sudo apt-get install python3-onnx)" >&2
      exit 1
    fi
  fi
}

echo "== npm packages (onnxruntime-web)"
if [ ! -d node_modules/onnxruntime-web ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

echo "== WebAssembly build (web/wasm)"
bash web/build-wasm.sh

echo "== WASM SIMD roofline microbenchmark (emcc -O3 -msimd128)"
roofline=build/bench/roofline/simd_peak.js
mkdir -p build/bench/roofline
echo '{"type": "commonjs"}' > build/bench/roofline/package.json  # the emcc output is CommonJS
if [ ! -f $roofline ] || [ tests/bench/roofline/simd_peak.cpp -nt $roofline ]; then
  NODE_PATH=${NODE_PATH:-/usr/share/nodejs} emcc -O3 -msimd128 -std=c++17 -sENVIRONMENT=node -sALLOW_MEMORY_GROWTH=1 \
    -sSINGLE_FILE=1 -sMODULARIZE=1 -sEXPORT_NAME=createRoofline -sINVOKE_RUN=0 -sEXPORTED_RUNTIME_METHODS=callMain \
    -sEXPORTED_FUNCTIONS=_main,_setup,_decoder_step_gflops tests/bench/roofline/simd_peak.cpp -o $roofline
fi

if [ "$real_size" != none ]; then
  ensure_onnx
  echo "== real size: an opus-mt-en-de-sized Marian (build/hf-real), its ONNX graphs checked against models/reference/hf_marian.py, q8"
  real=build/hf-real
  real_model=$real/opus-mt-en-de-size.safetensors
  real_onnx=build/bench/onnx-opus-mt-en-de-size
  if [ ! -f $real_model ] || [ models/goldens/make_hf_real_size.py -nt $real_model ]; then
    "$python" models/goldens/make_hf_real_size.py $real --which marian
  fi
  if [ ! -f $real_onnx/check.json ] || [ $real_model -nt $real_onnx/check.json ] || [ tests/bench/export_onnx.py -nt $real_onnx/check.json ] \
     || [ tests/bench/hf_marian_onnx.py -nt $real_onnx/check.json ] || [ models/reference/hf_marian.py -nt $real_onnx/check.json ] \
     || [ tests/bench/ort_engine.mjs -nt $real_onnx/check.json ] || [ package-lock.json -nt $real_onnx/check.json ]; then
    rm -f $real_onnx/check.json
    "$python" tests/bench/export_onnx.py --hf $real/opus-mt-en-de-size --model $real_model --out $real_onnx --check-steps 16
  fi
  if [ ! -f $real_onnx/quantize.json ] || [ $real_onnx/check.json -nt $real_onnx/quantize.json ] || [ tests/bench/quantize_onnx.py -nt $real_onnx/quantize.json ]; then
    "$python" tests/bench/quantize_onnx.py --onnx $real_onnx
  fi
fi

gpt2_page_check() {
  echo "== GPT-2 small opened by URL in the page (Chromium), one step against the engine in Node"
  ATTNSCOPE_GPT2_SIZE=1 npx vitest run --config tests/js/vitest.config.js tests/browser/gpt2-size.test.js
  echo "== GPT-2 medium (355 M parameters, 710 MB as F16) opened by URL in the page, one step against the engine in Node"
  ATTNSCOPE_GPT2_SIZE=medium npx vitest run --config tests/js/vitest.config.js tests/browser/gpt2-size.test.js
}

if [ "$gpt2" != none ]; then
  echo "== GPT-2 small at real size (build/hf-real/gpt2-size), its ONNX graphs checked against models/reference/hf_gpt2.py"
  gpt2_model=build/hf-real/gpt2-size.safetensors
  gpt2_onnx=build/bench/onnx-gpt2-size
  if [ ! -f $gpt2_model ] || [ models/goldens/make_hf_gpt2_checkpoints.py -nt $gpt2_model ]; then
    "$python" models/goldens/make_hf_gpt2_checkpoints.py --size small build/hf-real
    "$python" models/convert/convert_hf.py build/hf-real/gpt2-size $gpt2_model --f16
  fi
  if [ ! -f $gpt2_onnx/check.json ] || [ $gpt2_model -nt $gpt2_onnx/check.json ] || [ tests/bench/export_onnx.py -nt $gpt2_onnx/check.json ] \
     || [ tests/bench/hf_gpt2_onnx.py -nt $gpt2_onnx/check.json ] || [ models/reference/hf_gpt2.py -nt $gpt2_onnx/check.json ] \
     || [ tests/bench/ort_engine.mjs -nt $gpt2_onnx/check.json ] || [ package-lock.json -nt $gpt2_onnx/check.json ]; then
    rm -f $gpt2_onnx/check.json
    "$python" tests/bench/export_onnx.py --hf build/hf-real/gpt2-size --model $gpt2_model --out $gpt2_onnx --check-steps 8
  fi
fi

if [ "$real_size" = only ] || [ "$gpt2" = only ]; then
  echo "== benchmark, real size only"
  node tests/bench/bench.mjs "$@"
  [ "$gpt2" = none ] || gpt2_page_check
  exit 0
fi

echo "== native build for the benchmark (build/bench-native: g++ -O3 -march=native; the CLI for the training benchmark)"
cmake -S . -B build/bench-native -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-O3 -march=native" \
  -DATTNSCOPE_BUILD_TESTS=OFF -DATTNSCOPE_BUILD_CLI=ON >/dev/null
cmake --build build/bench-native -j "$jobs" --target attnscope attnscope-cli
bench=build/bench-native/attnscope-bench
if [ ! -x $bench ] || [ tests/bench/native/bench_native.cpp -nt $bench ] || [ build/bench-native/libattnscope.a -nt $bench ]; then
  g++ -std=c++17 -O3 -march=native -DNDEBUG -DEIGEN_NO_DEBUG -DEIGEN_MPL2_ONLY -Isrc -isystem /usr/include/eigen3 \
    -isystem build/bench-native/third_party_include tests/bench/native/bench_native.cpp build/bench-native/libattnscope.a -o $bench
fi

echo "== attribution: gradient x input of one step against that step's forward (native, prints numbers)"
attribution_bench=build/bench-native/attnscope-attribution-bench
if [ ! -x $attribution_bench ] || [ tests/bench/attribution_bench.cpp -nt $attribution_bench ] || [ build/bench-native/libattnscope.a -nt $attribution_bench ]; then
  g++ -std=c++17 -O3 -march=native -DNDEBUG -DEIGEN_NO_DEBUG -DEIGEN_MPL2_ONLY -Isrc -isystem /usr/include/eigen3 \
    -isystem build/bench-native/third_party_include tests/bench/attribution_bench.cpp build/bench-native/libattnscope.a -o $attribution_bench
fi
$attribution_bench --model models/multi30k-en-de.safetensors "A man in a blue shirt is standing on a ladder." \
  "Two young girls are playing in the sand near the water." "A dog runs through the snow." | tee build/bench/attribution.txt

echo "== ONNX export (build/bench/onnx), checked against PyTorch"
model=models/multi30k-en-de.safetensors
onnx=build/bench/onnx
if [ ! -f $onnx/check.json ] || [ $model -nt $onnx/check.json ] || [ tests/bench/export_onnx.py -nt $onnx/check.json ] \
   || [ tests/bench/ort_engine.mjs -nt $onnx/check.json ] || [ package-lock.json -nt $onnx/check.json ]; then
  rm -f $onnx/check.json
  "$python" tests/bench/export_onnx.py --model $model --out $onnx
fi

echo "== ONNX q8 graphs (build/bench/onnx/*.q8.onnx, as onnxruntime's dynamic quantization), checked against fp32"
ensure_onnx
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

[ "$gpt2" = none ] || gpt2_page_check

echo "== training benchmark (time per toy epoch, WASM vs native vs PyTorch)"
node tests/bench/train_bench.mjs --cli build/bench-native/attnscope-cli --python "$python"

