// A puzzle as the checker sees it: its tensors and sizes, the cases it is checked on, the block
// sizes its kernel is instantiated with, the reference, the tolerance and the budgets.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checker/inputs.hpp"
#include "checker/launch.hpp"
#include "checker/sim_launch.hpp"
#include "simulator/diagnostic.hpp"

namespace tp {

const char* impl_name(impl which);

// One instantiation of the puzzle's kernel: its block sizes and, where they are known when the spec
// is made, its simulator launchers. The puzzles' specs leave them empty: the kernels come from the
// puzzle's modules (checker/modules.hpp), loaded when the puzzle is checked. Tests fill them in
// to check a kernel of their own as if it were a puzzle's.
struct kernel_entry {
  std::vector<int> blocks;
  // The element type the kernel is instantiated with (a binding's typed_blocks); float32 for
  // kernels templated on block sizes only. Tensors without a dtype of their own take this one.
  tp::dtype dtype = tp::dtype::float32;
  sim_launcher stub = nullptr;
  sim_launcher solution = nullptr;
  sim_launcher get(impl which) const { return which == impl::stub ? stub : solution; }
};

// Everything a budget check may look at after a clean run.
struct run_facts {
  const std::vector<int>& sizes;
  const std::vector<int>& blocks;
  std::array<int, 3> grid;
  const std::vector<tl::sim::buffer>& buffers;  // same order as the puzzle's tensors
  const tl::sim::buffer& buffer(const std::string& name) const;
};

struct budget {
  std::string description;  // what the budget demands, for `show` and the docs
  // Returns a complaint when the run breaks the budget.
  std::function<std::optional<std::string>(const run_facts&)> check;
};

// Fills an input tensor's values from a seeded generator.
using fill_fn = std::function<void(std::vector<float>& values, rng& random)>;

struct tensor_spec {
  std::string name;
  bool output = false;
  std::function<std::vector<long long>(const std::vector<int>& sizes)> shape;
  // Fills an input; outputs are left alone. Float tensors use `fill` (the values are then rounded
  // to the tensor's dtype), int32, int8 and uint8 tensors `fill_ints` (an 8-bit tensor's values
  // within its dtype: one outside is the spec's error, thrown when the tensor is passed).
  fill_fn fill;
  // Unset: the dtype of the kernel entry being checked (float32 for most puzzles; a typed
  // binding checks the same puzzle in float16 and bfloat16).
  std::optional<tp::dtype> dtype = std::nullopt;
  std::function<void(std::vector<std::int32_t>& values, rng& random)> fill_ints = nullptr;
  // An int32 input whose values depend on the case's sizes (class indices below V, say); used
  // instead of fill_ints where set.
  std::function<void(std::vector<std::int32_t>& values, const std::vector<int>& sizes, rng& random)>
      fill_ints_for_sizes = nullptr;
  // An output that starts as zeros rather than poisoned (the host zeroes it before the launch,
  // as torch.zeros): for kernels whose atomics accumulate into it (tl::atomic_add). Last, so
  // that the specs' aggregate initializers stay as they are.
  bool zeroed = false;
  // An input a correct kernel reads only in part (paged-attention's caches: pages past a
  // sequence's length, and spare pages, are no one's). Unset: a solution reads every element.
  bool read_in_part = false;

  tp::dtype dtype_for(const kernel_entry& kernel) const { return dtype.value_or(kernel.dtype); }
};

// Fills one input of one case; it may use the tensor's shape (to put a peak at the end of every
// row, say).
using case_fill =
    std::function<void(std::vector<float>& values, const std::vector<long long>& shape, rng&)>;

// One case a puzzle is checked on: its sizes, what it contains, and, for a case built against a
// class of wrong kernels, the values some inputs take instead of their usual fill (rows far below
// zero, say). `about` is shown to the learner when a kernel fails on the case, after the
// diagnostic: it says what the case holds (a tail of 1, rows far below zero), never what went
// wrong, since a kernel may fail a case for a reason the case was not made for.
struct test_case {
  std::vector<int> sizes;
  std::string about;
  // Tensor name, this case's fill; for an integer tensor the fill makes whole numbers, which
  // become its ints.
  std::vector<std::pair<std::string, case_fill>> fills;
  // A case of the large tier: sizes past every bound a kernel could hard-code (loops, fixed
  // arrays), up to the puzzle's benchmark sizes. The checker runs the large tier after every
  // small case passed, so that a learner's first failures stay small and readable.
  bool large = false;

  test_case(std::initializer_list<int> s) : sizes(s) {}
  test_case(std::vector<int> s, std::string what_it_holds = {},
            std::vector<std::pair<std::string, case_fill>> input_fills = {})
      : sizes(std::move(s)), about(std::move(what_it_holds)), fills(std::move(input_fills)) {}

  // This case's fill for the named tensor, or null for the tensor's usual one.
  const case_fill* fill_for(const std::string& tensor) const {
    for (const auto& [name, fill] : fills)
      if (name == tensor) return &fill;
    return nullptr;
  }
};

// The comparison tolerance of outputs of one dtype.
struct dtype_tolerance {
  tp::dtype dtype;
  double rtol, atol;
};

struct puzzle_spec {
  std::string id;
  int number = 0;
  std::string title;
  std::string summary;       // one line: what the kernel computes
  std::string stub_file;     // e.g. "puzzles/vector_add.hpp"
  std::string solution_file; // e.g. "solutions/vector_add.hpp"
  std::string doc_file;      // e.g. "docs/puzzles/vector-add.md"
  // Why the GPU backend cannot run this puzzle yet ("it needs tl::dot, ..."), shown by `check
  // --gpu`; empty for a puzzle built for the GPU (`gpu` in its line of checker/puzzle_list.def).
  std::string not_on_gpu_because;
  std::vector<std::string> size_names;   // the kernel's int parameters, in order
  std::vector<std::string> block_names;  // the kernel template's parameters, in order
  std::vector<test_case> cases;
  // The sizes that blocks tile, as (index in size_names, index in block_names): (T, B1) for a
  // loop over T in steps of B1. The tests hold every puzzle to one case where each of these
  // leaves a ragged last block with every set of block sizes.
  std::vector<std::pair<int, int>> blocked_sizes;
  // Which block sets a case runs with, for puzzles whose sizes are tied to the blocks (one
  // program that covers the whole input: N0 == B0). Unset: every case runs with every block set.
  std::function<bool(const std::vector<int>& sizes, const std::vector<int>& blocks)> case_fits;
  std::string case_fits_rule;  // the rule in words, for `show`: "N0 = B0"
  // The size bounds: the sizes a real user may pass, at their extremes, as a list of corners
  // (every tensor up to 2^31 - 1 elements, the GPU's grid within 65535 on axes 1 and 2, loops
  // the simulator runs in milliseconds). After the large tier the checker runs every kernel
  // entry at every corner it fits without buffers (tl::sim::launch_options::dry), in the
  // programs at the corners of its grid: every load, store and integer step of the index
  // expressions, on every active lane and in every loop iteration, must stay in int32 and in
  // bounds there (`index-overflow` otherwise, with the sizes). size_bounds_rule says them in
  // words: "N0 * T < 2^31, T <= 2^20".
  std::vector<std::vector<int>> size_bounds;
  std::string size_bounds_rule;
  std::vector<tensor_spec> tensors;      // the kernel's pointer parameters, in order
  // Sets the inputs that a forward pass derives from other inputs (a layer norm's saved mean and
  // rstd of each row of x), after every input is filled and before the reference runs: a backward
  // pass is checked on the statistics its forward pass would have saved, not on unrelated ones.
  // Unset for most puzzles.
  std::function<void(const std::vector<int>& sizes, std::vector<tensor>& tensors)> derive_inputs;
  std::function<std::array<int, 3>(const std::vector<int>& sizes, const std::vector<int>& blocks)>
      grid;
  // Computes every output tensor's expected values (in double, rounded to float) from the inputs.
  std::function<void(const std::vector<int>& sizes, std::vector<tensor>& tensors)> reference;
  double rtol = 1e-5;
  double atol = 1e-6;
  // Outputs of these dtypes compare with their own tolerance instead (float16, bfloat16).
  std::vector<dtype_tolerance> tolerances;
  std::vector<budget> budgets;
  std::vector<kernel_entry> kernels;

  bool runs(const std::vector<int>& sizes, const std::vector<int>& blocks) const {
    return !case_fits || case_fits(sizes, blocks);
  }
};

// The kernel entries of a binding (the top of checker/specs/STEM.hpp): one per set of block sizes.
template <class Binding, class... Blocks>
std::vector<kernel_entry> make_kernel_entries(block_list<Blocks...>) {
  return {kernel_entry{Blocks::values(), Blocks::dtype}...};
}

template <class Binding>
std::vector<kernel_entry> make_kernel_entries() {
  return make_kernel_entries<Binding>(typename Binding::configs{});
}

}  // namespace tp
