#!/usr/bin/env bash
# The learner's command: installs what is missing, builds the checker, and checks the puzzles.
# Arguments go to `tilepuzzles check`, e.g. scripts/check.sh 2 or scripts/check.sh --impl solution.
# The checker compiles each puzzle's kernel itself, so this is also the edit-and-check loop.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/configure.sh
# nproc is GNU coreutils', which macOS does not have.
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)

# Builds the checker with its output in build/checker-build.log, and shows which step it is at
# and about how long is left, on one line where it can. How long is left weighs each step by its
# CPU time in scripts/build-costs.txt (scripts/build-eta.awk): the steps differ fiftyfold.
build_checker() {
  local log=build/checker-build.log plan=build/checker-build.plan
  # The steps this build will run (Ninja's dry run); with another generator, no estimate.
  bash scripts/build-plan.sh build tilepuzzles > "$plan"
  cmake --build build -j"$cores" --target tilepuzzles > "$log" 2>&1 &
  local pid=$! start=$SECONDS shown=0
  while kill -0 "$pid" 2>/dev/null; do
    sleep 2
    local step done_steps total what elapsed left line
    step=$(grep -oE '^\[[0-9]+/[0-9]+\] .*' "$log" 2>/dev/null | tail -1 || true)
    [ -n "$step" ] || continue
    done_steps=${step#[}; done_steps=${done_steps%%/*}
    total=${step#*/}; total=${total%%]*}
    # "Building CXX object CMakeFiles/tilepuzzles.dir/checker/main.cpp.o" -> checker/main.cpp
    what=$(sed -E 's/^\[[0-9]+\/[0-9]+\] //; s/^Building [A-Z]+ object //; s/^Linking [A-Z]+ [a-z ]+ //; s#([^ ]*/)?CMakeFiles/[^/]*\.dir/##; s/\.o$//' <<< "$step")
    elapsed=$((SECONDS - start))
    line="  step $done_steps of $total, $((elapsed / 60))m$(printf %02d $((elapsed % 60)))s so far"
    left=$(awk -v elapsed="$elapsed" -v jobs="$cores" -f scripts/build-eta.awk scripts/build-costs.txt "$plan" "$log" 2>/dev/null || true)
    if [ -n "$left" ] && [ "$done_steps" -lt "$total" ]; then
      if [ "$left" -lt 60 ]; then line+=", under a minute left"
      else line+=", about $(((left + 59) / 60)) min left"; fi
    fi
    line+=": $what"
    if [ -t 1 ]; then
      printf '\r\033[K%s' "${line:0:$(( $(tput cols 2>/dev/null || echo 100) - 1 ))}"
    elif [ $((elapsed - shown)) -ge 30 ]; then
      echo "$line"; shown=$elapsed
    fi
  done
  [ -t 1 ] && printf '\r\033[K'
  wait "$pid"
}

if [ ! -x build/tilepuzzles ]; then
  echo "Building the checker (the first time takes a few minutes; the compiler's output goes to build/checker-build.log)..."
fi
if ! build_checker; then
  tail -40 build/checker-build.log >&2
  echo >&2
  echo "tilepuzzles: the checker itself did not build (your puzzles are compiled separately," >&2
  echo "when they are checked). The full output is in build/checker-build.log." >&2
  exit 1
fi
exec ./build/tilepuzzles check "$@"
