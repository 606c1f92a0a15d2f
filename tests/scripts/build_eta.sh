#!/usr/bin/env bash
# scripts/check.sh's "about N min left" on a real build: a fresh build of the checker on the
# 2-core machine (tests/data/build_eta: its steps as `ninja -n` printed them, and when each ended,
# from its .ninja_log), replayed as check.sh polls it, every 2 s. scripts/build-costs.txt was
# measured on another fresh build. From a third of the way on, each estimate must be within 40%
# (or 15 s) of the time that was in fact left. The estimate check.sh gave before, which counted
# steps, is replayed too and must miss that mark: the steps that come first are the cheap ones.
# Usage: build_eta.sh SOURCE_DIR
set -euo pipefail
source=$1
data=$source/tests/data/build_eta
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

total_ms=$(sort -k2 -n "$data/steps.txt" | tail -1 | cut -d' ' -f2)
steps=$(grep -c '^\[' "$data/plan.txt")
new_misses=0 old_misses=0 polls=0
for ((t = 2; t * 1000 < total_ms; t += 2)); do
  # What the build's log holds at t: a "[k/N] ..." line for each step ended by then.
  awk -v t="$t" -v n="$steps" '$2 <= t * 1000 { printf "[%d/%d] Building CXX object %s\n", ++k, n, $3 }' \
    <(sort -k2 -n "$data/steps.txt") > "$work/log"
  done_steps=$(grep -c '^\[' "$work/log" || true)
  left=$(( (total_ms - t * 1000) / 1000 ))
  [ "$t" -ge $(( total_ms / 3000 )) ] && [ "$done_steps" -ge 3 ] && [ "$done_steps" -lt "$steps" ] || continue
  polls=$((polls + 1))
  new=$(awk -v elapsed="$t" -v jobs=2 -f "$source/scripts/build-eta.awk" "$source/scripts/build-costs.txt" \
          "$data/plan.txt" "$work/log")
  old=$(( t * (steps - done_steps) / done_steps ))
  off() { local d=$(( $1 - left )); d=${d#-}; [ "$d" -gt 15 ] && [ $(( d * 10 )) -gt $(( left * 4 )) ]; }
  if off "$new"; then new_misses=$((new_misses + 1)); echo "at ${t}s: estimate ${new}s, ${left}s left"; fi
  if off "$old"; then old_misses=$((old_misses + 1)); fi
done
echo "$polls polls from a third of the way on: the estimate missed by over 40% $new_misses times;" \
     "counting steps, $old_misses times"
[ "$polls" -gt 10 ] || { echo "FAILED: too few polls to judge"; exit 1; }
[ "$old_misses" -gt 0 ] || { echo "FAILED: the replay cannot tell a step count from an estimate"; exit 1; }
[ "$new_misses" -eq 0 ] || { echo "FAILED: the estimate missed"; exit 1; }
echo "ok"
