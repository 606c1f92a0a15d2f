// The host's half of a puzzle benchmarked through its spec (tp_bench_host's make_case and judge,
// checker/bench_module_abi.hpp): the case `check` would make, at a benchmark's sizes, and one
// launch's outputs judged by the spec's reference and tolerance, as `check --gpu` judges them.
#pragma once

#include <string>
#include <vector>

#include "checker/bench_module_abi.hpp"
#include "checker/check.hpp"

namespace tp::bench {

class spec_cases {
 public:
  // The case of `puzzle` (an id) at `sizes` with block sizes `blocks`: its tensors' bytes (seed 0)
  // and grid, valid until the next call; null with `*problem` set where the puzzle has no spec or
  // the sizes do not fit it.
  const tp_bench_case* make(const char* puzzle, const int* sizes, int size_count,
                            const int* blocks, int block_count, const char** problem);
  // The last case's outputs as a launch wrote them (`outputs[i]` for tensor i, null for an
  // input): `*problem` is the checker's diagnostic where they differ from the reference beyond
  // the spec's tolerance, null where they agree. Returns the largest error of an element relative
  // to the largest magnitude of its output.
  double judge(const void* const* outputs, const char** problem);

 private:
  const puzzle_spec* spec_ = nullptr;
  std::vector<int> sizes_;
  case_data data_;
  std::vector<tensor> expected_;  // the reference's outputs, made by the first judge
  std::vector<std::vector<unsigned char>> bytes_;
  std::vector<tp_bench_tensor> tensors_;
  tp_bench_case view_{};
  std::string problem_;
};

}  // namespace tp::bench
