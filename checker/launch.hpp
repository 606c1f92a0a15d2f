// A launch described at run time, the same for every backend: the grid, the puzzle's tensors (in
// the kernel's argument order) and its sizes (the kernel's int arguments, after the tensors).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tp {

// The element type of a tensor. float32, float16 and bfloat16 tensors keep their values in
// `tensor::values` as floats (a float16 or bfloat16 value is exactly a float); int32, int8 and
// uint8 tensors in `tensor::ints`. The launchers hand the kernel the dtype's own bits.
enum class dtype { float32, float16, bfloat16, int32, int8, uint8 };

inline const char* dtype_name(dtype d) {
  switch (d) {
    case dtype::float16: return "float16";
    case dtype::bfloat16: return "bfloat16";
    case dtype::int32: return "int32";
    case dtype::int8: return "int8";
    case dtype::uint8: return "uint8";
    default: return "float32";
  }
}

// Whether a tensor of this dtype keeps its values in tensor::ints.
inline bool holds_ints(dtype d) {
  return d == dtype::int32 || d == dtype::int8 || d == dtype::uint8;
}

// The bytes of one element in the kernel's memory.
inline std::size_t element_bytes(dtype d) {
  switch (d) {
    case dtype::float16:
    case dtype::bfloat16: return 2;
    case dtype::int8:
    case dtype::uint8: return 1;
    default: return 4;
  }
}

// Whose kernel runs: the learner's stub (puzzles/) or the reference solution (solutions/).
enum class impl { stub, solution };

struct tensor {
  std::string name;
  std::vector<long long> shape;
  std::vector<float> values;       // float32, float16 and bfloat16 tensors
  bool output = false;
  tp::dtype dtype = tp::dtype::float32;
  std::vector<std::int32_t> ints = {};  // int32, int8 and uint8 tensors
  // An output that the host zeroes before the launch (torch.zeros in Triton's tutorials), for a
  // kernel whose atomics add into it: it starts as zeros on both backends instead of poisoned.
  bool zeroed = false;

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
