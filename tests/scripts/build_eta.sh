#!/usr/bin/env bash
# scripts/check.sh's "about N min left" on a real build: a fresh build of the checker of commit
# 76e2ab4 on the 2-core machine (tests/data/build_eta/old-checker/: its 54 steps as Ninja's dry
# run printed them, and when each ended, from its .ninja_log), replayed as check.sh polls it, every
# 2 s, with the costs measured then on another fresh build (costs.txt). From a third of the way
# on, each estimate of scripts/build-eta.awk must be within 40% (or 15 s) of the time that was in
# fact left. The estimate check.sh gave before, which counted steps, is replayed too and must miss
# that mark: the steps that come first are the cheap ones.
# (Today's checker has other steps, weighed by scripts/build-costs.txt. A replay of today's build
# is not here: the shared machine's load changed within each fresh build recorded, by up to 40%,
# and any estimate from the time elapsed misses by as much.)
# Usage: build_eta.sh SOURCE_DIR
set -euo pipefail
source=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# replay NAME COSTS COUNTING_MUST_MISS: the recording tests/data/build_eta/NAME with the table
# COSTS; COUNTING_MUST_MISS (yes or no): whether counting steps must miss at least once.
replay() {
  local data=$source/tests/data/build_eta/$1 costs=$2 counting_must_miss=$3
  local total_ms steps new_misses=0 old_misses=0 polls=0 t done_steps left new old
  total_ms=$(sort -k2 -n "$data/steps.txt" | tail -1 | cut -d' ' -f2)
  steps=$(grep -c '^\[' "$data/plan.txt")
  for ((t = 2; t * 1000 < total_ms; t += 2)); do
    # What the build's log holds at t: a "[k/N] ..." line for each step ended by then.
    awk -v t="$t" -v n="$steps" '$2 <= t * 1000 { printf "[%d/%d] Building CXX object %s\n", ++k, n, $3 }' \
      <(sort -k2 -n "$data/steps.txt") > "$work/log"
    done_steps=$(grep -c '^\[' "$work/log" || true)
    left=$(( (total_ms - t * 1000) / 1000 ))
    [ "$t" -ge $(( total_ms / 3000 )) ] && [ "$done_steps" -ge 3 ] && [ "$done_steps" -lt "$steps" ] || continue
    polls=$((polls + 1))
    new=$(awk -v elapsed="$t" -v jobs=2 -f "$source/scripts/build-eta.awk" "$costs" "$data/plan.txt" "$work/log")
    old=$(( t * (steps - done_steps) / done_steps ))
    off() { local d=$(( $1 - left )); d=${d#-}; [ "$d" -gt 15 ] && [ $(( d * 10 )) -gt $(( left * 4 )) ]; }
    if off "$new"; then new_misses=$((new_misses + 1)); echo "  at ${t}s: estimate ${new}s, ${left}s left"; fi
    if off "$old"; then old_misses=$((old_misses + 1)); fi
  done
  echo "$1: $polls polls from a third of the way on: the estimate missed by over 40%" \
       "$new_misses times; counting steps, $old_misses times"
  [ "$polls" -gt 10 ] || { echo "FAILED: too few polls to judge"; failed=1; }
  if [ "$counting_must_miss" = yes ] && [ "$old_misses" -eq 0 ]; then
    echo "FAILED: the replay cannot tell a step count from an estimate"; failed=1
  fi
  [ "$new_misses" -eq 0 ] || { echo "FAILED: the estimate missed"; failed=1; }
}

replay old-checker "$source/tests/data/build_eta/old-checker/costs.txt" yes
[ "$failed" -eq 0 ] || exit 1
echo "ok"
