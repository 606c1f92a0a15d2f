#!/usr/bin/env bash
# Builds everything (the CUDA path too, where nvcc is installed) and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
bash scripts/configure.sh
# nproc is GNU coreutils', which macOS does not have.
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)
cmake --build build -j"$cores"
ctest --test-dir build --output-on-failure -j"$cores"
