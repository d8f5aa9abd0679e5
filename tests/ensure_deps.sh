#!/usr/bin/env bash
# Makes sure the tools a part of the build needs are installed.
#   ensure_deps.sh native   -> compiler, CMake, Eigen, nlohmann-json, GoogleTest
#   ensure_deps.sh wasm     -> Emscripten (+ acorn), wabt
#   ensure_deps.sh node     -> Node.js and npm
#   ensure_deps.sh browser  -> Debian's Chromium (driven by playwright-core, never downloaded)
#   ensure_deps.sh fuzz     -> clang 14 with its sanitizer and libFuzzer runtimes (build/asan, build/fuzz)
#   ensure_deps.sh torch    -> PyTorch, SentencePiece and OpenBLAS for /usr/bin/python3 (Debian
#                              python3-torch, python3-sentencepiece, libopenblas0-pthread), which the reference
#                              self-checks and the training scripts need (about 1.5 minutes to install)
# As root it installs missing Debian packages with apt-get; otherwise it prints the exact
# command to run and fails.
set -euo pipefail

missing=()
need() {  # need PACKAGE TEST-COMMAND...
  local pkg=$1; shift
  "$@" >/dev/null 2>&1 || missing+=("$pkg")
}

for part in "$@"; do
  case "$part" in
    native)
      need g++ command -v g++
      need cmake command -v cmake
      need libeigen3-dev test -f /usr/include/eigen3/Eigen/Core
      need nlohmann-json3-dev test -f /usr/include/nlohmann/json.hpp
      need googletest test -f /usr/src/googletest/CMakeLists.txt
      ;;
    wasm)
      need emscripten command -v emcc
      need node-acorn test -d /usr/share/nodejs/acorn
      need wabt command -v wasm-objdump
      ;;
    fuzz)
      need clang-14 command -v clang++-14
      need libclang-rt-14-dev sh -c 'ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a'
      ;;
    browser)
      need chromium test -x /usr/bin/chromium
      ;;
    torch)
      need python3-torch /usr/bin/python3 -c 'import torch'
      # The Hugging Face Marian reference (models/reference/hf_marian.py) tokenizes with the real library.
      need python3-sentencepiece /usr/bin/python3 -c 'import sentencepiece'
      # PyTorch's BLAS: OpenBLAS rather than the reference BLAS, so that tests/run.sh's second
      # pass under OPENBLAS_CORETYPE=Prescott really runs another kernel.
      need libopenblas0-pthread dpkg -s libopenblas0-pthread
      ;;
    node)
      need nodejs command -v node
      need npm command -v npm
      ;;
    *) echo "ensure_deps.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
done

[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  echo "== installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  $cmd
else
  echo "Missing Debian packages: ${missing[*]}" >&2
  echo "Install them with:  sudo $cmd" >&2
  exit 1
fi
