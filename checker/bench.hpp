// `tilepuzzles bench [PUZZLE...]`: the benchmarked puzzles' solutions on the GPU (the sweeps of
// checker/bench_catalogue.hpp, run by the GPU benchmark module bench/gpu_benchmarks.cu), a table per
// puzzle, and optionally the CSV and the SVG plot.
#pragma once

#include <string>
#include <vector>

namespace tp::bench {

struct bench_args {
  std::vector<std::string> puzzles;  // numbers or ids; empty: every benchmarked puzzle
  std::string csv_file, plot_file;
  int warmup = 5, runs = 50;
  std::string command_line;  // as typed, for the CSV's comment
};

// 0: every row measured and checked; 1: no GPU, a GPU error or a wrong result; 2: a bad argument.
int run_bench(const bench_args& args);

}  // namespace tp::bench
