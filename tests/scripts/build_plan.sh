#!/usr/bin/env bash
# scripts/build-plan.sh, the plan whose steps scripts/check.sh's "about N min left" weighs, on a
# fresh build of a small CMake project that globs its sources with CONFIGURE_DEPENDS, as tests/
# does: the plan names every compile and link step of the target. The dry run check.sh used before
# (`cmake --build DIR -- -n`) is run too and must show the trap: it plans "Re-running CMake" and
# none of the target's steps, which left the estimate nothing to weigh.
# Usage: build_plan.sh SOURCE_DIR CMAKE
set -euo pipefail
source=$1 cmake=$2
command -v ninja > /dev/null || { echo "skipped: no ninja"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
cat > "$work/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(plan CXX)
file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
add_executable(app ${sources})
CMAKE
echo 'int one() { return 1; }' > "$work/src/one.cpp"
echo 'int one(); int main() { return one() - 1; }' > "$work/src/main.cpp"
"$cmake" -S "$work/src" -B "$work/build" -G Ninja > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }

plan=$(bash "$source/scripts/build-plan.sh" "$work/build" app)
echo "$plan"
fail() { echo "FAILED: $*"; exit 1; }
grep -q '^\[[0-9]*/3\] Building CXX object CMakeFiles/app.dir/one.cpp.o$' <<< "$plan" ||
  fail "the plan does not name one.cpp's compile"
grep -q '^\[[0-9]*/3\] Building CXX object CMakeFiles/app.dir/main.cpp.o$' <<< "$plan" ||
  fail "the plan does not name main.cpp's compile"
grep -q '^\[3/3\] Linking CXX executable app$' <<< "$plan" || fail "the plan does not name the link"
! grep -q 'Re-running CMake' <<< "$plan" || fail "the plan re-runs CMake"
[ -z "$(find "$work/build" -name 'plan-*.ninja')" ] || fail "the copy of the build file is left behind"

old=$("$cmake" --build "$work/build" --target app -- -n 2>&1 || true)
grep -q 'Re-running CMake' <<< "$old" && ! grep -q 'one.cpp.o' <<< "$old" ||
  fail "the old dry run planned the target's steps: this test no longer shows the trap ($old)"
echo "ok"
