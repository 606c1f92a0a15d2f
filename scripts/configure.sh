#!/usr/bin/env bash
# Configures build/ the one way that scripts/check.sh and scripts/test.sh share, whichever runs
# first: Ninja, Release, and the CUDA path wherever nvcc is installed (`tilepuzzles check` without
# --gpu never waits for nvcc: the GPU modules are built only for --gpu and by the full build).
# An existing build/ is kept as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -f build/CMakeCache.txt ]; then
  exit 0
fi
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
if ! cmake -S . -B build "${generator[@]}" > build-configure.log 2>&1; then
  cat build-configure.log
  rm -f build-configure.log
  exit 1
fi
rm -f build-configure.log
