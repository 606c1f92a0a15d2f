// A puzzle's binding, the top of checker/specs/STEM.hpp: its kernel template declared in both
// namespaces, its line of the list (id, number) and its stub and solution instantiated with a set
// of block sizes. Compiled by g++ (simulator) and nvcc (GPU) alike.
#pragma once

#include "checker/kernel_signature.hpp"
#ifndef TILEPUZZLES_PUZZLE_ID
#include "checker/puzzle_list.hpp"
#endif

// Declares a puzzle's kernel template for its binding, as the stub's (puzzles::Name) and the
// solution's (solutions::Name): TP_KERNEL_TEMPLATE(VectorAdd, int B0). Declared, not included:
// each kernel compiles in its own module (checker/sim_module.cpp), so a stub that does not compile
// costs only its own puzzle.
#define TP_KERNEL_TEMPLATE(Name, ...) \
  namespace puzzles {                 \
  template <__VA_ARGS__>              \
  struct Name;                        \
  }                                   \
  namespace solutions {               \
  template <__VA_ARGS__>              \
  struct Name;                        \
  }

namespace tp {

// What every binding has from its line of checker/puzzle_list.def: its id and number.
#ifdef TILEPUZZLES_PUZZLE_ID
// A puzzle module's compile is given its one line by CMake (cmake/puzzle_modules.cmake), which
// makes modules only for the list's lines: it does not read the list, so that adding another
// puzzle's line leaves every module's compile as it was (nothing rebuilds but the new puzzle's).
template <class Binding>
struct listed_puzzle {
  static constexpr const char* id = TILEPUZZLES_PUZZLE_ID;
  static constexpr int number = TILEPUZZLES_PUZZLE_NUMBER;
};
#else
template <class Binding>
struct listed_puzzle {
  static_assert(entry_of<Binding> != nullptr,
                "this binding's puzzle is not in checker/puzzle_list.def: add its line there");
  static constexpr const char* id = entry_of<Binding>->id.data();
  static constexpr int number = entry_of<Binding>->number;
};
#endif

// The base of a puzzle's binding (the top of checker/specs/STEM.hpp): its id and number from the
// list, and its stub and solution instantiated with one set of block sizes. Binding is the binding
// itself (tp::bindings::STEM); Stub and Solution are the kernel template in both namespaces.
template <class Binding, template <int...> class Stub, template <int...> class Solution>
struct puzzle_binding : listed_puzzle<Binding> {
  template <class Blocks>
  using stub = instantiate_t<Stub, Blocks>;
  template <class Blocks>
  using solution = instantiate_t<Solution, Blocks>;
};

// The same for a kernel templated on its element type first (typed_blocks configurations).
template <class Binding, template <class, int...> class Stub,
          template <class, int...> class Solution>
struct typed_puzzle_binding : listed_puzzle<Binding> {
  template <class Blocks>
  using stub = instantiate_typed_t<Stub, Blocks>;
  template <class Blocks>
  using solution = instantiate_typed_t<Solution, Blocks>;
};

}  // namespace tp
