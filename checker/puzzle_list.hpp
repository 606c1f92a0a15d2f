// The puzzles of checker/puzzle_list.def as C++: the entries in curriculum order, and for each
// puzzle the declarations of its binding (tp::bindings::STEM, defined at the top of
// checker/specs/STEM.hpp) with its place in the list, and of its spec (tp::specs::STEM::spec()). Compiled by
// g++ and nvcc alike (the GPU tests iterate over the puzzles too): plain constexpr data.
#pragma once

#include <cstddef>
#include <iterator>
#include <string_view>

namespace tp {

struct puzzle_entry {
  int number;
  std::string_view stem;   // puzzles/STEM.hpp, solutions/STEM.hpp, checker/specs/STEM.hpp
  std::string_view id;     // the CLI's name, docs/puzzles/ID.md
  std::string_view title;
  bool gpu;                // the CUDA backend runs its kernels
  int points;              // `tilepuzzles grade`'s default for a solved puzzle
  std::string_view teaches;
};

namespace puzzle_list_detail {
inline constexpr bool gpu = true;
inline constexpr bool simulator = false;
}  // namespace puzzle_list_detail

inline constexpr puzzle_entry puzzle_entries[] = {
#define TP_PUZZLE(number, stem, id, title, backend, points, teaches) \
  {number, #stem, id, title, puzzle_list_detail::backend, points, teaches},
#include "checker/puzzle_list.def"
#undef TP_PUZZLE
};

inline constexpr std::size_t puzzle_count = std::size(puzzle_entries);

// Each puzzle's binding (defined in its spec header) and its place in the list. `entry_of<B>` is
// the list's line of binding B: a binding whose stem has no line does not compile.
template <class Binding>
inline constexpr const puzzle_entry* entry_of = nullptr;

namespace bindings {
#define TP_PUZZLE(number, stem, ...) struct stem;
#include "checker/puzzle_list.def"
#undef TP_PUZZLE
}  // namespace bindings

#define TP_PUZZLE(number, stem, ...)                                                     \
  template <>                                                                            \
  inline constexpr const puzzle_entry* entry_of<bindings::stem> = &puzzle_entries[number - 1];
#include "checker/puzzle_list.def"
#undef TP_PUZZLE

// Each puzzle's spec, made by its spec header (checker/specs/STEM.hpp) in the checker.
struct puzzle_spec;
namespace specs {
#define TP_PUZZLE(number, stem, ...) \
  namespace stem {                   \
  const puzzle_spec& spec();         \
  }
#include "checker/puzzle_list.def"
#undef TP_PUZZLE
}  // namespace specs

// The list is numbered 1, 2, 3, ... in its order, which entry_of relies on.
constexpr bool numbered_in_order() {
  for (std::size_t i = 0; i < puzzle_count; ++i)
    if (puzzle_entries[i].number != static_cast<int>(i) + 1) return false;
  return true;
}
static_assert(numbered_in_order(),
              "checker/puzzle_list.def: number the puzzles 1, 2, 3, ... in the order of the lines");

}  // namespace tp
