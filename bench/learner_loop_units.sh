#!/usr/bin/env bash
# The learner's loop with a stub's simulator module compiled as one unit and as two
# (cmake/compile-logged.sh --shards, TILEPUZZLES_STUB_MODULE_UNITS), side by side: two copies of
# the solutions as stubs under build/, each checked with --puzzles, whose modules-only builds are
# configured with 1 and 2 units. Each round edits and checks puzzle N in one copy, then in the
# other, so that whatever else loads the machine falls on both alike. One line a check.
# Usage: bash bench/learner_loop_units.sh ROUNDS NUMBER...   (from the repository root, after a
# build of build/), e.g. `bash bench/learner_loop_units.sh 5 15 16`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift
for units in 1 2; do
  copy=build/bench-units-$units
  mkdir -p "$copy"
  for f in solutions/*.hpp; do
    sed -e 's/^namespace solutions {/namespace puzzles {/' "$f" > "$copy/$(basename "$f")"
  done
  ./build/tilepuzzles check --puzzles "$copy" "$@" > /dev/null 2>&1 || true  # configures its build
  cmake -S . -B "$(ls -d build/puzzle-dirs/bench-units-$units-*/)" \
    -DTILEPUZZLES_STUB_MODULE_UNITS=$units > /dev/null
done
seconds() {  # seconds one command takes, wall clock
  local start=$EPOCHREALTIME
  "$@" > /dev/null 2>&1 || true
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}
for round in $(seq "$rounds"); do
  for number in "$@"; do
    stem=$(./build/tilepuzzles list | awk -v n="$number" '$1 == n && $NF ~ /\.hpp$/ {
      k = split($NF, p, "/"); sub(/\.hpp$/, "", p[k]); print p[k] }')
    for units in 1 2; do
      echo "// edited $(date +%s%N)" >> "build/bench-units-$units/$stem.hpp"
      edit=$(seconds ./build/tilepuzzles check --puzzles "build/bench-units-$units" "$number")
      again=$(seconds ./build/tilepuzzles check --puzzles "build/bench-units-$units" "$number")
      echo "round $round puzzle $number units $units: edit+check $edit s, check only $again s," \
           "load $(cut -d' ' -f1 /proc/loadavg)"
    done
  done
done
