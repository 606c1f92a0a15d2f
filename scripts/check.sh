#!/usr/bin/env bash
# The learner's command: installs what is missing, builds, and checks the puzzles.
# Arguments go to `tilepuzzles check`, e.g. scripts/check.sh 2 or scripts/check.sh --impl solution.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ ! -f build/CMakeCache.txt ]; then
  # The CUDA path is built only where it can run: with a GPU. CI compiles it through the tests.
  cuda=OFF
  if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then cuda=ON; fi
  cmake -S . -B build -DTILEPUZZLES_CUDA=$cuda > build-configure.log 2>&1 ||
    { cat build-configure.log; exit 1; }
  rm -f build-configure.log
fi
if ! cmake --build build -j"$(nproc)" --target tilepuzzles; then
  echo >&2
  echo "compile-error: the build failed; the compiler's first error is above. If it points into" >&2
  echo "puzzles/, fix that kernel (docs/tl.md lists what tl offers) and run this again." >&2
  exit 1
fi
./build/tilepuzzles check "$@"
