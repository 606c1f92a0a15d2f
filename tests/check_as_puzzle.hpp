// Checking a kernel as if it were the learner's answer to a puzzle: the known-wrong tests run
// their kernels, and the solutions as their twins, through the checker's own path.
#pragma once

#include <catch2/catch.hpp>

#include <deque>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checker/check.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "checker/spec.hpp"

namespace as_puzzle {

// Every block size the puzzle is checked with, or its first few. The checker runs a puzzle's
// block sizes in order and stops at the first failure, so a known-wrong kernel needs only the block
// sizes up to the one it fails on: those after it never run, and compiling them is most of what
// these tests would cost to build. A wrong kernel given too few fails its test ("the wrong kernel
// passed"), and its correct twin always gets them all.
inline constexpr std::size_t all_configs = std::size_t(-1);

// One entry for each of the first `Count` block sizes of the puzzle, both launchers running
// Kernel, instantiated with those block sizes only.
template <template <int...> class Kernel, class Binding, std::size_t Count, class... Blocks>
std::vector<tp::kernel_entry> entries_for(tp::block_list<Blocks...>) {
  std::vector<tp::kernel_entry> entries;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          if constexpr (I < Count) {
            using B = std::tuple_element_t<I, std::tuple<Blocks...>>;
            using K = tp::instantiate_t<Kernel, B>;
            tp::check_kernel_signature<K, typename Binding::signature>();
            entries.push_back(
                tp::kernel_entry{B::values(), B::dtype, &tp::sim_launch<K>, &tp::sim_launch<K>});
          }
        }(),
        ...);
  }(std::index_sequence_for<Blocks...>{});
  return entries;
}

// The same for a kernel templated on its element type first (template <class T, int...>).
template <template <class, int...> class Kernel, class Binding, std::size_t Count,
          class... Blocks>
std::vector<tp::kernel_entry> typed_entries_for(tp::block_list<Blocks...>) {
  std::vector<tp::kernel_entry> entries;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&] {
          if constexpr (I < Count) {
            using B = std::tuple_element_t<I, std::tuple<Blocks...>>;
            using K = tp::instantiate_typed_t<Kernel, B>;
            tp::check_kernel_signature<K, tp::signature_of_t<Binding, B>>();
            entries.push_back(
                tp::kernel_entry{B::values(), B::dtype, &tp::sim_launch<K>, &tp::sim_launch<K>});
          }
        }(),
        ...);
  }(std::index_sequence_for<Blocks...>{});
  return entries;
}

// The puzzle's own kernel entries must begin with these: the same block sizes, in order.
inline void require_leading_entries(const tp::puzzle_spec& original, const tp::puzzle_spec& spec) {
  REQUIRE(!spec.kernels.empty());
  REQUIRE(spec.kernels.size() <= original.kernels.size());
  for (std::size_t i = 0; i < spec.kernels.size(); ++i) {
    REQUIRE(spec.kernels[i].blocks == original.kernels[i].blocks);
    REQUIRE(spec.kernels[i].dtype == original.kernels[i].dtype);
  }
}

// A copy of the puzzle whose kernels are Kernel, with the puzzle's own block sizes (its first
// `Count` of them).
template <template <int...> class Kernel, class Binding, std::size_t Count = all_configs>
tp::puzzle_spec puzzle_with(const char* id) {
  const tp::puzzle_spec* original = tp::find_puzzle(id);
  REQUIRE(original != nullptr);
  tp::puzzle_spec spec = *original;
  spec.kernels = entries_for<Kernel, Binding, Count>(typename Binding::configs{});
  require_leading_entries(*original, spec);
  if (Count == all_configs) REQUIRE(spec.kernels.size() == original->kernels.size());
  return spec;
}

template <template <class, int...> class Kernel, class Binding, std::size_t Count = all_configs>
tp::puzzle_spec typed_puzzle_with(const char* id) {
  const tp::puzzle_spec* original = tp::find_puzzle(id);
  REQUIRE(original != nullptr);
  tp::puzzle_spec spec = *original;
  spec.kernels = typed_entries_for<Kernel, Binding, Count>(typename Binding::configs{});
  require_leading_entries(*original, spec);
  if (Count == all_configs) REQUIRE(spec.kernels.size() == original->kernels.size());
  return spec;
}

inline tp::puzzle_report check(const tp::puzzle_spec& spec, tp::check_options options = {}) {
  tp::puzzle_report report = tp::check_puzzle(spec, options);
  UNSCOPED_INFO("report: " << tp::report_line(report) << "\n" << tp::report_details(report));
  return report;
}

// Checks Kernel as the answer to puzzle `id` (the binding gives its block sizes). The spec lives
// as long as the test process, so the report's `spec` stays valid.
template <template <int...> class Kernel, class Binding, std::size_t Count = all_configs>
tp::puzzle_report check_as(const char* id, tp::check_options options = {}) {
  static std::deque<tp::puzzle_spec> specs;
  specs.push_back(puzzle_with<Kernel, Binding, Count>(id));
  return check(specs.back(), options);
}

// Checks Kernel, templated on its element type and block sizes, as the answer to puzzle `id`.
template <template <class, int...> class Kernel, class Binding, std::size_t Count = all_configs>
tp::puzzle_report check_typed_as(const char* id, tp::check_options options = {}) {
  static std::deque<tp::puzzle_spec> specs;
  specs.push_back(typed_puzzle_with<Kernel, Binding, Count>(id));
  return check(specs.back(), options);
}

// A known-wrong kernel, with the block sizes up to the one it fails on: the first `Count`.
template <template <int...> class Kernel, class Binding, std::size_t Count = 1>
tp::puzzle_report check_wrong(const char* id, tp::check_options options = {}) {
  return check_as<Kernel, Binding, Count>(id, options);
}
template <template <class, int...> class Kernel, class Binding, std::size_t Count = 1>
tp::puzzle_report check_typed_wrong(const char* id, tp::check_options options = {}) {
  return check_typed_as<Kernel, Binding, Count>(id, options);
}

// The reference solution of puzzle `id`, from its module (the build's own), as the correct twin
// of the wrong kernels next to it.
inline tp::puzzle_report check_solution(const char* id, tp::check_options options = {}) {
  const tp::puzzle_spec* spec = tp::find_puzzle(id);
  REQUIRE(spec != nullptr);
  options.which = tp::impl::solution;
  return check(*spec, options);
}

// The one diagnostic of a failed report.
inline const tl::sim::diagnostic& the_diagnostic(const tp::puzzle_report& report) {
  REQUIRE(report.status == tp::status::failed);
  REQUIRE(report.diagnostics.size() == 1);
  return report.diagnostics[0];
}

inline std::size_t case_index(const tp::puzzle_spec& spec, const std::vector<int>& sizes) {
  for (std::size_t c = 0; c < spec.cases.size(); ++c)
    if (spec.cases[c].sizes == sizes) return c;
  FAIL("the report's case is not one of the puzzle's");
  return 0;
}

// The number of the one line of a project file (relative to the project) that starts with `code`
// (after its indentation): where a budget report must say a buffer is loaded.
inline int line_of(const std::string& file, const std::string& code) {
  std::ifstream in(std::string(TILEPUZZLES_SOURCE_DIR) + "/" + file);
  REQUIRE(in);
  int found = 0, number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const std::size_t indent = line.find_first_not_of(' ');
    if (indent == std::string::npos || line.compare(indent, code.size(), code) != 0) continue;
    INFO(file << " has `" << code << "` on lines " << found << " and " << number);
    REQUIRE(found == 0);
    found = number;
  }
  INFO(file << " has no line with `" << code << "`");
  REQUIRE(found != 0);
  return found;
}

}  // namespace as_puzzle
