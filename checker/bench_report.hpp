// What `tilepuzzles bench` prints and writes from its measured rows: a table per puzzle, the CSV
// of bench/README.md, and (checker/svg_plot.hpp) the plot. No GPU needed: the tests feed it rows.
#pragma once

#include <string>
#include <vector>

namespace tp::bench {

struct row {
  std::string benchmark, variant, size, dtype;
  std::string causal;  // "yes" or "no" for attention, empty otherwise
  double x = 0;  // the sweep's abscissa
  std::string x_name;
  double time_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
  int launches_per_sample = 1;
  bool graph = false;  // the launches of a sample were one CUDA graph's replay
  double bytes = 0, flops = 0;
  double max_error = 0;
  std::string problem;  // empty, or why the row has no time

  bool timed() const { return problem.empty() && time_ms > 0; }
  double gbps() const { return timed() && bytes > 0 ? bytes / time_ms / 1e6 : 0; }
  double tflops() const { return timed() && flops > 0 ? flops / time_ms / 1e9 : 0; }
};

struct run_info {
  std::string gpu, commit, command;
  double ceiling_gbps = 0;  // the device-to-device copy of the same run
};

// The ceiling's GB/s from the run's `copy` row, or 0.
double ceiling_gbps(const std::vector<row>& rows);

// The table (and plot) a row belongs to: its benchmark, but cuBLAS's rows go with matmul's.
std::string table_of(const std::string& benchmark);

// The tables of `rows` in the order they first appear, the copy left out.
std::vector<std::string> benchmarks_in(const std::vector<row>& rows);

// The baseline a row of counted flops is measured against: cuBLAS's row of the same size and
// dtype, or null.
const row* baseline_of(const row& r, const std::vector<row>& rows);

// One puzzle's table: variant, size, ms (median, min, max), launches per sample, then GB/s and % of
// the copy, or for rows that count flops TFLOP/s and the ratio to cuBLAS; and the error.
std::string table(const std::string& benchmark, const std::vector<row>& rows, const run_info& info);

// bench/README.md's CSV: `#` comment lines (the command, the GPU, the commit), a header, a row
// per measurement.
std::string csv(const std::vector<row>& rows, const run_info& info);

}  // namespace tp::bench
