// A launch described at run time, the same for every backend: the grid, the puzzle's tensors (in
// the kernel's argument order) and its sizes (the kernel's int arguments, after the tensors).
#pragma once

#include <array>
#include <string>
#include <vector>

namespace tp {

// Whose kernel runs: the learner's stub (puzzles/) or the reference solution (solutions/).
enum class impl { stub, solution };

struct tensor {
  std::string name;
  std::vector<long long> shape;
  std::vector<float> values;
  bool output = false;

  long long count() const {
    long long n = 1;
    for (long long d : shape) n *= d;
    return n;
  }
};

struct launch_request {
  std::array<int, 3> grid{1, 1, 1};
  std::vector<tensor>* tensors = nullptr;
  std::vector<int> sizes;
};

}  // namespace tp
