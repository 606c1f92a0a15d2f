#!/usr/bin/env bash
# The learner's loop, timed: change one puzzle's stub, then `tilepuzzles check N`, which rebuilds
# that puzzle's module through the project's build and checks it (the target: at most 5 s on the
# 2-core machine). The stubs are full kernels (the reference solutions, copied into a directory of
# their own under build/, checked with --puzzles), so the compile is as long as a finished
# puzzle's. For each puzzle it prints the median of RUNS rounds, and beside it the median of the
# same command with nothing to rebuild, measured in the same run.
# Usage: bash bench/learner_loop.sh [RUNS [NUMBER...]]   (from the repository root, after a build
# of build/); with NUMBERs, only those puzzles (e.g. `bash bench/learner_loop.sh 3 15 16`).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
shift || true
only=" $* "
copy=build/bench-learner-loop
mkdir -p "$copy"
for f in solutions/*.hpp; do
  sed -e 's/^namespace solutions {/namespace puzzles {/' "$f" > "$copy/$(basename "$f")"
done
./build/tilepuzzles check --puzzles "$copy" > /dev/null || true   # build everything once

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
seconds() {  # seconds one command takes, wall clock
  local start=$EPOCHREALTIME
  "$@" > /dev/null || true
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", b - a }'
}
# A yardstick of the machine's speed (docs/ARCHITECTURE.md: the same compile took three times as
# long on one day's machine as on another's), printed so that tables from different days compare.
yardstick=$(python3 -c 'import time; t = time.time(); sum(i * i for i in range(20_000_000)); print(f"{time.time() - t:.2f}")' 2>/dev/null || echo "?")
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), yardstick ${yardstick} s, $runs rounds each, median seconds"
printf '%-4s %-24s %12s %12s\n' "#" "stub" "edit+check" "check only"
number=0
# One row a puzzle: the lines that begin with its number (not the summary's "Next: ... edit ...").
for stem in $(./build/tilepuzzles list | awk '/^ *[0-9]+ / && $NF ~ /\.hpp$/ { n = split($NF, p, "/"); sub(/\.hpp$/, "", p[n]); print p[n] }'); do
  number=$((number + 1))
  if [ "$only" != "  " ] && [[ "$only" != *" $number "* ]]; then continue; fi
  edit=() again=()
  for _ in $(seq "$runs"); do
    echo "// edited $(date +%s%N)" >> "$copy/$stem.hpp"
    edit+=("$(seconds ./build/tilepuzzles check --puzzles "$copy" "$number")")
    again+=("$(seconds ./build/tilepuzzles check --puzzles "$copy" "$number")")
  done
  printf '%-4s %-24s %12.2f %12.2f\n' "$number" "$stem" \
    "$(printf '%s\n' "${edit[@]}" | median)" "$(printf '%s\n' "${again[@]}" | median)"
done
