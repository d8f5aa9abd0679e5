#!/usr/bin/env bash
# Builds the WebAssembly engine into web/wasm/ (attnscope-wasm.js + attnscope-wasm.wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/ensure_deps.sh native wasm
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}  # Debian's emscripten finds acorn there
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/wasm -j "$(nproc 2>/dev/null || echo 2)"
mkdir -p web/wasm
cp build/wasm/attnscope-wasm.js build/wasm/attnscope-wasm.wasm web/wasm/
echo "web/wasm/attnscope-wasm.wasm: $(stat -c %s web/wasm/attnscope-wasm.wasm) bytes, $(gzip -9c web/wasm/attnscope-wasm.wasm | wc -c) gzipped"
simd=$(wasm-objdump -d web/wasm/attnscope-wasm.wasm | grep -cE '\b(v128|f32x4|i32x4|i16x8|i8x16|f64x2|i64x2)\.' || true)
arith=$(wasm-objdump -d web/wasm/attnscope-wasm.wasm | grep -cE '\bf32x4\.(add|mul|sub|div|min|max|fma|splat)' || true)
echo "SIMD instructions: $simd (f32x4 arithmetic: $arith)"
