#!/usr/bin/env bash
# A generated class for `tilepuzzles grade` (tests/grade.cpp, and the timing in docs/instructors.md):
#   bash tests/grading/make_class.sh OUT [COUNT]
# writes COUNT (default 30) students' copies of puzzles/ into OUT/student-NN, made from the shipped
# stubs and the reference solutions:
#   every 5th from the 5th   every puzzle solved
#   1 mod 5                  puzzles 1 to 3 solved, the rest as shipped
#   2 mod 5                  the same, but constant-add adds 11 instead of 10 (wrong-result)
#   3 mod 5                  as shipped: nothing solved
#   4 mod 5                  puzzles 1 to 8 solved, but vector-add without its mask (out-of-bounds)
#   the last but one         puzzles 1 to 3 solved, vector-add missing a ';' (compile-error)
#   the last                 every puzzle solved, but constant-add also writes a file outside its
#                            directory (sandbox): OUT/hostile-was-here must never appear
# Files are written only when their content changes, so that grading again compiles nothing new.
set -euo pipefail
out=$1
count=${2:-30}
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The puzzles in curriculum order: the lines of checker/puzzle_list.def.
stems=$(sed -n 's/^TP_PUZZLE([0-9]*, *\([a-z0-9_]*\),.*/\1/p' "$root/checker/puzzle_list.def")

put() {  # put FILE: stdin into FILE, unless it holds that already
  local text
  text=$(cat)
  if [ ! -f "$1" ] || [ "$(cat "$1")" != "$text" ]; then printf '%s\n' "$text" > "$1"; fi
}
solved() {  # the reference solution as a stub
  sed -e 's/^namespace solutions {/namespace puzzles {/' -e 's|}  // namespace solutions|}  // namespace puzzles|' \
    "$root/solutions/$1.hpp"
}

for i in $(seq 1 "$count"); do
  dir=$out/student-$(printf '%02d' "$i")
  mkdir -p "$dir"
  role=$((i % 5))
  if [ "$i" -eq "$count" ]; then role=hostile; elif [ "$i" -eq $((count - 1)) ]; then role=broken; fi
  n=0
  for stem in $stems; do
    n=$((n + 1))
    case $role in
      0|hostile) upto=99 ;;
      1|2|broken) upto=3 ;;
      3) upto=0 ;;
      4) upto=8 ;;
    esac
    if [ "$n" -le "$upto" ]; then solved "$stem"; else cat "$root/puzzles/$stem.hpp"; fi |
      case "$role/$stem" in
        2/constant_add) sed 's/+ 10.0f/+ 11.0f/' ;;
        4/vector_add) sed -e 's/, mask)/)/g' -e 's/sum, mask)/sum)/' ;;
        broken/vector_add) sed 's/auto mask = offsets < N0;/auto mask = offsets < N0/' ;;
        hostile/constant_add)
          sed -e 's|#include "tile/tl.hpp"|#include <cstdio>\n#include "tile/tl.hpp"|' \
              -e "s|    auto offsets = tl::arange<B0>();|    if (FILE* f = std::fopen(\"$out/hostile-was-here\", \"w\")) std::fclose(f);\n    auto offsets = tl::arange<B0>();|" ;;
        *) cat ;;
      esac | put "$dir/$stem.hpp"
  done
done
