#!/usr/bin/env bash
# The steps a build of TARGET in BUILD_DIR will run, one a line, as Ninja's dry run prints them
# ("[3/40] Building CXX object CMakeFiles/x.dir/checker/main.cpp.o"): scripts/check.sh's plan,
# which scripts/build-eta.awk weighs. Prints nothing where the build is not Ninja's.
#   bash scripts/build-plan.sh BUILD_DIR TARGET
#
# Why not `cmake --build BUILD_DIR -- -n`: a CMake build with a CONFIGURE_DEPENDS glob (the tests'
# sources) has a step that checks the globs before anything else, and a dry run cannot know that
# this step changes nothing, so it plans to re-run CMake and stops there: two steps, "Re-checking
# globbed directories" and "Re-running CMake", for every build. A copy of the build file under
# another name is not the manifest Ninja keeps up to date, so its dry run plans the target's own
# steps.
set -euo pipefail
dir=$1 target=$2
[ -f "$dir/build.ninja" ] && command -v ninja > /dev/null || exit 0
copy=$(mktemp "$dir/plan-XXXXXX.ninja")
trap 'rm -f "$copy"' EXIT
cp "$dir/build.ninja" "$copy"
(cd "$dir" && ninja -f "$(basename "$copy")" -n "$target" 2> /dev/null) || true
