// RowAxpy in the CPU simulator (g++): tl::simulate with every check on, its diagnostic flattened
// for Python. Compiled with -std=c++20 -ffp-contract=off (the flags tilepuzzles::tl carries) and
// linked with the installed libtilepuzzles_simulator.so.
#include <span>
#include <stdexcept>

#include "planted_bug.hpp"
#include "row_axpy.hpp"  // examples/row_axpy/: the kernel the GPU runs too
#include "row_axpy_host.hpp"
#include "simulator/simulate.hpp"

namespace row_axpy {
namespace {

tl::sim::order order_named(const std::string& name) {
  if (name == "forward") return tl::sim::order::forward;
  if (name == "reverse") return tl::sim::order::reverse;
  if (name == "shuffle") return tl::sim::order::shuffle;
  throw std::invalid_argument("row_axpy: the program order is forward, reverse or shuffle, not '" +
                              name + "'");
}

template <class Kernel>
tl::simulation run(const float* alpha, const float* x, const float* y, float* z, int rows,
                   int cols, const tl::sim::launch_options& options) {
  const long long n = 1LL * rows * cols;
  // The names and shapes are what the diagnostics print: x[36, 64].
  return tl::simulate<Kernel>(
      tl::grid{tl::cdiv(rows, block_rows)}, options,
      tl::sim::input("alpha", std::span<const float>(alpha, rows)),
      tl::sim::input("x", std::span<const float>(x, n), {rows, cols}),
      tl::sim::input("y", std::span<const float>(y, n), {rows, cols}),
      tl::sim::output("z", std::span<float>(z, n), {rows, cols}), rows, cols);
}

}  // namespace

simulated simulate(kernel which, const float* alpha, const float* x, const float* y, float* z,
                   int rows, int cols, const std::string& order, unsigned long long seed) {
  tl::sim::launch_options options;
  options.order = order_named(order);
  options.seed = seed;
  const tl::simulation s =
      which == kernel::row_axpy
          ? run<RowAxpy<block_rows, block_cols>>(alpha, x, y, z, rows, cols, options)
          : run<RowAxpyMaskingColumnsOnly<block_rows, block_cols>>(alpha, x, y, z, rows, cols,
                                                                   options);
  simulated out;
  out.clean = s.clean();
  out.kind = s.kind();
  out.report = s.report();
  if (s.error) {
    out.program = s.error->program;
    out.buffer = s.error->buffer;
    out.source = s.error->source;
  }
  out.programs_run = s.programs_run;
  out.x_loads = s.tensor("x").counters.loads;
  out.z_stores = s.tensor("z").counters.stores;
  return out;
}

}  // namespace row_axpy
