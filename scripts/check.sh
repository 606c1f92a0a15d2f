#!/usr/bin/env bash
# The learner's command: installs what is missing, builds the checker, and checks the puzzles.
# Arguments go to `tilepuzzles check`, e.g. scripts/check.sh 2 or scripts/check.sh --impl solution.
# The checker compiles each puzzle's kernel itself, so this is also the edit-and-check loop.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/configure.sh
if [ ! -x build/tilepuzzles ]; then
  echo "Building the checker (the first time takes a few minutes)..."
fi
if ! cmake --build build -j"$(nproc)" --target tilepuzzles > build/checker-build.log 2>&1; then
  tail -40 build/checker-build.log >&2
  echo >&2
  echo "tilepuzzles: the checker itself did not build (your puzzles are compiled separately," >&2
  echo "when they are checked). The full output is in build/checker-build.log." >&2
  exit 1
fi
exec ./build/tilepuzzles check "$@"
