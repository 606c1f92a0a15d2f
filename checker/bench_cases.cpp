#include "checker/bench_cases.hpp"

#include <algorithm>
#include <cmath>

#include "checker/device_tensors.hpp"
#include "checker/registry.hpp"

namespace tp::bench {

const tp_bench_case* spec_cases::make(const char* puzzle, const int* sizes, int size_count,
                                      const int* blocks, int block_count, const char** problem) {
  const puzzle_spec* spec = find_puzzle(puzzle);
  const std::vector<int> new_sizes(sizes, sizes + size_count);
  const std::vector<int> block_sizes(blocks, blocks + block_count);
  // The same puzzle at the same sizes with other block sizes (a sweep's next configuration): the
  // same inputs and reference, another grid.
  const bool same_case = spec && spec == spec_ && new_sizes == sizes_ && view_.tensors &&
                         block_sizes.size() == spec->block_names.size() &&
                         !(spec->case_fits && !spec->case_fits(sizes_, block_sizes));
  if (same_case) {
    const auto grid = spec_->grid(sizes_, block_sizes);
    view_.grid[0] = grid[0], view_.grid[1] = grid[1], view_.grid[2] = grid[2];
    *problem = nullptr;
    return &view_;
  }
  *this = spec_cases{};
  spec_ = spec;
  sizes_ = new_sizes;
  if (!spec_) {
    problem_ = std::string("no puzzle '") + puzzle + "'";
  } else if (sizes_.size() != spec_->size_names.size() ||
             block_sizes.size() != spec_->block_names.size()) {
    problem_ = "puzzle " + spec_->id + " takes " + std::to_string(spec_->size_names.size()) +
               " sizes and " + std::to_string(spec_->block_names.size()) + " block sizes";
  } else if (spec_->case_fits && !spec_->case_fits(sizes_, block_sizes)) {
    problem_ = "these sizes do not fit these block sizes: " + spec_->case_fits_rule;
  }
  if (!problem_.empty()) {
    *problem = problem_.c_str();
    return nullptr;
  }
  const test_case the_case(sizes_, "a benchmark's size");
  data_ = make_case(*spec_, the_case, 0, 0, dtype::float32, /*with_reference=*/false);
  for (const tensor& t : data_.tensors) bytes_.push_back(device_tensors::bytes_of(t));
  for (std::size_t i = 0; i < bytes_.size(); ++i)
    tensors_.push_back({data_.tensors[i].name.c_str(), data_.tensors[i].output ? 1 : 0,
                        bytes_[i].data(), static_cast<long long>(bytes_[i].size())});
  const auto grid = spec_->grid(sizes_, block_sizes);
  view_ = {{grid[0], grid[1], grid[2]}, static_cast<int>(tensors_.size()), tensors_.data()};
  *problem = nullptr;
  return &view_;
}

double spec_cases::judge(const void* const* outputs, const char** problem) {
  *problem = nullptr;
  // The reference once per case: a sweep judges each block-size set's launch against it.
  if (expected_.empty()) {
    expected_ = data_.tensors;
    spec_->reference(sizes_, expected_);
  }
  const std::vector<tensor>& expected = expected_;
  std::vector<tensor> got = data_.tensors;
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!got[i].output) continue;
    device_tensors::read_back(got[i], static_cast<const unsigned char*>(outputs[i]));
    const bool ints = holds_ints(got[i].dtype);
    auto at = [ints](const tensor& t, long long k) -> double {
      const auto index = static_cast<std::size_t>(k);
      return ints ? t.ints[index] : t.values[index];
    };
    double largest = 0, difference = 0;
    for (long long k = 0; k < got[i].count(); ++k) {
      const double want = at(expected[i], k), have = at(got[i], k);
      if (std::isnan(want) && std::isnan(have)) continue;
      largest = std::max(largest, std::abs(want));
      difference = std::max(difference, std::isfinite(have) ? std::abs(have - want) : INFINITY);
    }
    worst = std::max(worst, difference / std::max(largest, 1e-30));
  }
  if (auto d = compare_outputs(*spec_, got, expected, "at the benchmark's size")) {
    problem_ = d->message;
    *problem = problem_.c_str();
  }
  return worst;
}

}  // namespace tp::bench
