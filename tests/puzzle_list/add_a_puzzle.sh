#!/usr/bin/env bash
# Adding a puzzle is its stub, its solution, its spec, its page, its hints and one line of
# checker/puzzle_list.def (docs/ARCHITECTURE.md, "How to add a puzzle"). This test proves it on a
# copy of the project: it adds the next puzzle (N + 1 of the list's N), `negate` (z = -x), with exactly those six changes, builds
# the checker (no CUDA, no tests: what the puzzle needs), and checks that the new puzzle is listed,
# that its solution is solved, that its stub is reported as not solved, that `show` prints its
# page, that `hint` prints its hint, and that scripts/update-puzzle-docs.sh gives it its rows.
#   bash add_a_puzzle.sh SOURCE_DIR WORK_DIR CMAKE GENERATOR
set -euo pipefail
source_dir=$1 work=$2 cmake=$3 generator=$4
tree=$work/add-a-puzzle
rm -rf "$tree"
mkdir -p "$tree"
tar -C "$source_dir" --exclude=./.git --exclude='./build*' -cf - . | tar -C "$tree" -xf -
cd "$tree"
# The number it takes: the one after the list's last (its files are written with 17, then renumbered).
n=$(( $(grep -c '^TP_PUZZLE(' checker/puzzle_list.def) + 1 ))

cat > puzzles/negate.hpp <<'EOF'
// Puzzle 17, negate: z = -x. Check it with `./build/tilepuzzles check 17`; the statement is in
// docs/puzzles/negate.md.
#pragma once

#include "tile/tl.hpp"

namespace puzzles {

template <int B0>
struct Negate {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    // Your code here.
  }
};

}  // namespace puzzles
EOF

cat > solutions/negate.hpp <<'EOF'
#pragma once

#include "tile/tl.hpp"

namespace solutions {

template <int B0>
struct Negate {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::store(z + offsets, -tl::load(x + offsets, offsets < N0), offsets < N0);
  }
};

}  // namespace solutions
EOF

cat > checker/specs/negate.hpp <<'EOF'
// Puzzle 17: z = -x, B0 elements per program.
#pragma once

#include "checker/binding.hpp"

TP_KERNEL_TEMPLATE(Negate, int B0)

namespace tp::bindings {

struct negate : puzzle_binding<negate, puzzles::Negate, solutions::Negate> {
  using signature = void(tl::ptr<const float> x, tl::ptr<float> z, int N0);
  using configs = block_list<blocks<32>, blocks<128>>;
};

}  // namespace tp::bindings

#ifdef TILEPUZZLES_SPEC
#include "checker/specs/common.hpp"

namespace tp::specs::negate {

void describe(puzzle_spec& s) {
  s.summary = "z[i] = -x[i] over N0 elements, B0 per program";
  s.size_names = {"N0"};
  s.block_names = {"B0"};
  s.cases = {{{1}, "One element."}, {{100}, "A partial last block."}};
  s.blocked_sizes = {{0, 0}};
  auto n0 = sizes_at({0});
  s.tensors = {{"x", false, n0, signed_fill()}, {"z", true, n0, nullptr}};
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{(n[0] + b[0] - 1) / b[0], 1, 1};
  };
  s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
    set_from(t[1], Eigen::ArrayXd(-as_array(t[0])));
  };
  s.budgets = {each_element_read_at_most({"x"}, 1), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs::negate
#endif  // TILEPUZZLES_SPEC
EOF

cat > docs/puzzles/negate.md <<'EOF'
# Puzzle 17: negate

Negate a vector: `z[i] = -x[i]` for every `i` in `[0, N0)`.

## Hints

One hint: `./build/tilepuzzles hint 17`.
EOF

cat > docs/hints/negate.md <<'EOF'
# Puzzle 17: negate, the hints

## Hints

<details><summary>Hint 1: gentle</summary>

Puzzle 3 did the same with two inputs.

</details>
EOF

sed -i "s/\b17\b/$n/g" checker/specs/negate.hpp docs/hints/negate.md docs/puzzles/negate.md puzzles/negate.hpp solutions/negate.hpp

echo "TP_PUZZLE($n, negate, \"negate\", \"Negate\", simulator, 1, \"the list of puzzles, grown by one line\")" \
  >> checker/puzzle_list.def

fail() { echo "add_a_puzzle: $*" >&2; exit 1; }
"$cmake" -S . -B build -G "$generator" -DTILEPUZZLES_CUDA=OFF -DTILEPUZZLES_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=None > configure.log 2>&1 || { cat configure.log; fail "configure failed"; }
"$cmake" --build build --target tilepuzzles -j2 > build.log 2>&1 ||
  { tail -30 build.log; fail "the checker did not build with puzzle $n"; }

list=$(./build/tilepuzzles list)
grep -qE "^ *$n +negate +Negate " <<< "$list" || { echo "$list"; fail "list does not show puzzle $n"; }
out=$(./build/tilepuzzles check negate --impl solution 2>&1) ||
  { echo "$out"; fail "the solution of puzzle $n is not solved"; }
grep -q "1 of 1 puzzle solved" <<< "$out" || { echo "$out"; fail "no summary for puzzle $n"; }
if out=$(./build/tilepuzzles check $n 2>&1); then
  echo "$out"; fail "the stub of puzzle $n passed"
fi
grep -qE "$n +negate +not solved" <<< "$out" || { echo "$out"; fail "the stub is not reported as not solved"; }
page=$(./build/tilepuzzles show $n --no-run)
grep -q "Negate a vector" <<< "$page" || { echo "$page"; fail "show does not print the page"; }
hint=$(./build/tilepuzzles hint $n)
grep -q "Puzzle 3 did the same" <<< "$hint" || { echo "$hint"; fail "hint does not print the hint"; }
if bash scripts/update-puzzle-docs.sh --check > /dev/null 2>&1; then
  fail "the docs' tables did not notice puzzle $n"
fi
bash scripts/update-puzzle-docs.sh > /dev/null
grep -qF "| $n | [\`negate\`](docs/puzzles/negate.md) |" README.md || fail "README.md has no row for puzzle $n"
bash scripts/update-puzzle-docs.sh --check || fail "the docs are not up to date after the script"
echo "puzzle $n added with six files and one line: listed, its solution solved, its stub not"
