#!/usr/bin/env bash
# A puzzle module's compile does not read checker/puzzle_list.def (checker/binding.hpp takes its
# puzzle's line from CMake's defines; the launchers and the modules' precompiled header include
# checker/kernel_signature.hpp, which knows no puzzle), so adding a puzzle's line rebuilds no other
# puzzle's modules. Proved on this build's own dependency log: no module object and not the
# precompiled header lists the list among the files its compile read, while the checker's registry,
# which does read it, lists it (the twin: the log is read right).
#   bash modules_read_no_list.sh BUILD_DIR PUZZLE_COUNT
set -euo pipefail
build=$1 puzzles=$2
cd "$build"
if [ ! -f build.ninja ] || ! command -v ninja > /dev/null; then
  echo "skipped: not a Ninja build"
  exit 77
fi
deps=$(ninja -t deps)
# One line per object: "OBJECT READS-THE-LIST" or "OBJECT clean", from the blocks of `ninja -t deps`.
verdicts=$(awk '
  /^[^ ].*: #deps/ { if (target != "") print target, reads; target = $1; sub(/:$/, "", target); reads = "clean"; next }
  /puzzle_list\.(def|hpp)$/ { reads = "READS-THE-LIST" }
  END { if (target != "") print target, reads }' <<< "$deps")
modules=$(grep -E "/(sim_module\.cpp|gpu_module\.cu)\.o |tilepuzzles_module_pch\.dir/cmake_pch\.hxx\.gch " <<< "$verdicts" || true)
count=$(grep -c "_solution.dir/checker/sim_module.cpp.o " <<< "$modules" || true)
if [ "$count" -lt "$puzzles" ]; then
  echo "the dependency log has $count solution modules' simulator objects, fewer than the $puzzles puzzles: build first" >&2
  exit 1
fi
if grep READS-THE-LIST <<< "$modules"; then
  echo "these module objects read checker/puzzle_list.def: a new puzzle's line would rebuild them" >&2
  exit 1
fi
if ! grep -qE "checker/registry\.cpp\.o READS-THE-LIST" <<< "$verdicts"; then
  echo "the checker's registry does not read checker/puzzle_list.def in this log: the test reads it wrong" >&2
  exit 1
fi
echo "$(wc -l <<< "$modules") module objects read no list of puzzles; the registry reads it"
