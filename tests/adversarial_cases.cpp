// The puzzles' cases are designed to break whole classes of wrong kernels: every case says what
// it is there to catch, every puzzle has a case whose blocks are all ragged with every set of
// block sizes, and a 2-D grid is never only square. These hold for a puzzle added later too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "checker/check.hpp"
#include "checker/registry.hpp"

namespace {

// Whether every blocked size of the case leaves a partial last block with these block sizes.
bool ragged_everywhere(const tp::puzzle_spec& spec, const std::vector<int>& sizes,
                       const std::vector<int>& blocks) {
  for (const auto& [size, block] : spec.blocked_sizes)
    if (blocks[block] > 1 && sizes[size] % blocks[block] == 0) return false;
  return true;
}

}  // namespace

// A failing kernel's report ends with "About this case: ...": it must say what the case holds, and
// never read as the cause ("catches a batch offset left out" under a failure of another cause).
bool worded_as_a_cause(const std::string& about) {
  std::string lower = about;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
  for (const char* cause : {"catch", "left out", "forgot", "swapped", "missing", "wrong"})
    if (lower.find(cause) != std::string::npos) return true;
  return false;
}

TEST_CASE("Every case of every puzzle says what it holds, not what a failure means", "[cases]") {
  CHECK(worded_as_a_cause("Four batches of 32 x 32: catches a batch offset left out."));
  CHECK_FALSE(worded_as_a_cause("Four batches of 32 x 32."));
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    for (const auto& c : spec->cases) {
      INFO(spec->id << ", case " << tp::case_label(*spec, c.sizes, {}, "") << ": " << c.about);
      CHECK(c.sizes.size() == spec->size_names.size());
      CHECK(c.about.size() > 10);
      CHECK(c.about.back() == '.');
      CHECK_FALSE(worded_as_a_cause(c.about));
      for (const auto& [name, fill] : c.fills) {
        const bool is_input = std::any_of(spec->tensors.begin(), spec->tensors.end(),
                                          [&](const auto& t) { return t.name == name && !t.output; });
        CHECK(is_input);
      }
    }
  }
}

TEST_CASE("Every puzzle has a case where every set of block sizes sees a ragged last block",
          "[cases]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    INFO(spec->id);
    if (spec->blocked_sizes.empty()) {
      // Only where one program covers the whole input (N0 = B0): no last block to be ragged.
      CHECK(spec->case_fits);
      continue;
    }
    const bool found = std::any_of(spec->cases.begin(), spec->cases.end(), [&](const auto& c) {
      return std::all_of(spec->kernels.begin(), spec->kernels.end(), [&](const auto& k) {
        return spec->runs(c.sizes, k.blocks) && ragged_everywhere(*spec, c.sizes, k.blocks);
      });
    });
    CHECK(found);
  }
}

TEST_CASE("A puzzle with a 2-D grid is checked on grids that are not square", "[cases]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    for (const auto& k : spec->kernels) {
      bool two_axes = false, not_square = false;
      for (const auto& c : spec->cases) {
        if (!spec->runs(c.sizes, k.blocks)) continue;
        const auto grid = spec->grid(c.sizes, k.blocks);
        if (grid[0] > 1 && grid[1] > 1) two_axes = true;
        if (grid[0] > 1 && grid[1] > 1 && grid[0] != grid[1]) not_square = true;
      }
      INFO(spec->id << " with blocks " << tp::case_label(*spec, {}, k.blocks, ""));
      CHECK(not_square == two_axes);
    }
  }
}

TEST_CASE("The cases against a class of kernels give inputs of the values they promise",
          "[cases]") {
  SECTION("softmax rows far below zero and far above") {
    for (const char* id : {"long-softmax-3loop", "long-softmax-2loop", "softmax-fused"}) {
      const tp::puzzle_spec* spec = tp::find_puzzle(id);
      REQUIRE(spec != nullptr);
      int below = 0, above = 0;
      for (std::size_t c = 0; c < spec->cases.size(); ++c) {
        if (spec->cases[c].about.find("lies far") == std::string::npos) continue;
        for (std::uint64_t seed : {0, 1, 2}) {
          const auto data = tp::make_case(*spec, spec->cases[c], seed, c);
          const auto& x = data.tensors[0].values;
          const float hi = *std::max_element(x.begin(), x.end());
          const float lo = *std::min_element(x.begin(), x.end());
          INFO(id << " case " << c << " seed " << seed << ": x in [" << lo << ", " << hi << "]");
          // Every element far enough from zero that exp(x) underflows or overflows in float.
          if (hi < 0) {
            CHECK(hi < -104.0f);
            ++below;
          } else {
            CHECK(lo > 89.0f);
            ++above;
          }
        }
      }
      CHECK(below > 0);
      CHECK(above > 0);
    }
  }
  SECTION("flash attention: each query's scores all far below zero or all far above") {
    const tp::puzzle_spec* spec = tp::find_puzzle("flash-attention-simple");
    REQUIRE(spec != nullptr);
    bool found = false;
    for (std::size_t c = 0; c < spec->cases.size(); ++c) {
      if (spec->cases[c].about.find("lies far from zero") == std::string::npos) continue;
      found = true;
      for (std::uint64_t seed : {0, 1, 2}) {
        const auto data = tp::make_case(*spec, spec->cases[c], seed, c);
        const auto& q = data.tensors[0].values;
        const auto& k = data.tensors[1].values;
        int below = 0, above = 0;
        for (float qi : q) {
          double lo = INFINITY, hi = -INFINITY;
          for (float kj : k) {
            lo = std::min(lo, double(qi) * kj);
            hi = std::max(hi, double(qi) * kj);
          }
          if (hi < -104) ++below;
          else if (lo > 89) ++above;
        }
        INFO("seed " << seed);
        CHECK(below + above == static_cast<int>(q.size()));
        CHECK(below > 0);
        CHECK(above > 0);
      }
    }
    CHECK(found);
  }
}
