#!/usr/bin/env bash
# The whole test suite built with clang and LLVM's libc++ instead of g++ and libstdc++ (the
# toolchain of a Mac), in build-clang/, the CUDA path off (nvcc's host compiler stays g++).
# Installs clang-N and libc++-N-dev from Debian's packages (N: TILEPUZZLES_CLANG_VERSION, 16 by
# default, Debian 12's; the project needs 16 or later for libc++'s std::source_location).
set -euo pipefail
cd "$(dirname "$0")/.."
version=${TILEPUZZLES_CLANG_VERSION:-16}
bash scripts/install-deps.sh --clang
if [ ! -f build-clang/CMakeCache.txt ]; then
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  CC=clang-$version CXX=clang++-$version cmake -S . -B build-clang "${generator[@]}" \
    -DTILEPUZZLES_CUDA=OFF -DCMAKE_CXX_FLAGS=-stdlib=libc++
fi
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
cmake --build build-clang -j"$cores"
ctest --test-dir build-clang --output-on-failure -j"$cores"
