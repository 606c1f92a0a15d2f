// The size bounds (puzzle_spec::size_bounds): every spec states the sizes a real user may pass,
// and the checker runs every kernel at their corners without buffers (a dry launch), so that an
// index that leaves int32 only at sizes no case can allocate is reported, with the sizes. Planted
// overflows that pass every case are caught there; every solution and the correct twins pass.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "check_as_puzzle.hpp"
#include "checker/registry.hpp"
#include "checker/specs/long_softmax_2loop.hpp"
#include "checker/specs/matmul.hpp"
#include "checker/specs/vector_add.hpp"
#include "corpus.hpp"
#include "simulator/launch.hpp"
#include "tests/kernels/rows.hpp"
#include "tile/tl.hpp"

namespace wrong {

// Offsets in bytes, "as in C", and back to elements: offsets * 4 leaves int32 past 2^29
// elements, which no case allocates.
template <int B0>
struct VectorAddThroughByteOffsets {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto bytes = offsets * 4;
    auto sum = tl::load(x + bytes / 4, mask) + tl::load(y + bytes / 4, mask);
    tl::store(z + offsets, sum, mask);
  }
};

// The 2-loop softmax with its offsets doubled and halved: row * T * 2 leaves int32 once x has
// 2^30 elements.
template <int B0, int B1>
struct Softmax2LoopThroughDoubledOffsets {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto row_mask = rows < N0;
    tl::tile<float, B0> row_max = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1) {
      auto cols = j + tl::arange<B1>();
      auto mask = row_mask.col() & (cols < T).row();
      auto block = tl::load(x + (rows.col() * T * 2 + cols.row() * 2) / 2, mask, -INFINITY);
      auto new_max = tl::maximum(row_max, tl::max<1>(block));
      row_sum = row_sum * tl::exp(row_max - new_max) + tl::sum<1>(tl::exp(block - new_max.col()));
      row_max = new_max;
    }
    rows::store_softmax<B1>(x, z, rows, N0, T, T, row_max, row_sum);
  }
};

// Matmul whose x offsets are computed for a batch of all of x at once: (batch * N0 + rows) *
// MID in one tile is fine, but a tile of offsets into the whole of x, not just its batch,
// times 2 and halved again, leaves int32 once x has 2^30 elements.
template <int B0, int B1, int B_MID>
struct MatmulThroughDoubledOffsets {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto cols = tl::program_id(1) * B1 + tl::arange<B1>();
    int batch = tl::program_id(2);
    tl::tile<float, B0, B1> acc = 0.0f;
    for (int k = 0; k < MID; k += B_MID) {
      auto ks = k + tl::arange<B_MID>();
      auto a = tl::load(x + batch * N0 * MID + (rows.col() * MID * 2 + ks.row() * 2) / 2,
                        (rows < N0).col() & (ks < MID).row(), 0.0f);
      auto b = tl::load(y + batch * MID * N1 + ks.col() * N1 + cols.row(),
                        (ks < MID).col() & (cols < N1).row(), 0.0f);
      acc = tl::dot(a, b, acc);
    }
    tl::store(z + batch * N0 * N1 + rows.col() * N1 + cols.row(), acc,
              (rows < N0).col() & (cols < N1).row());
  }
};

}  // namespace wrong

namespace twin {

// The block's start as a pointer advance (a 64-bit address on the GPU), and the tile's offsets
// only the lanes': proven at N0 = 2^31 - 1 like the solution's.
template <int B0>
struct VectorAddAdvancingThePointers {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    const int start = tl::program_id(0) * B0;
    auto lanes = tl::arange<B0>();
    auto mask = lanes < N0 - start;
    tl::store(z + start + lanes, tl::load(x + start + lanes, mask) + tl::load(y + start + lanes, mask),
              mask);
  }
};

}  // namespace twin

TP_CORPUS_GROUP("size bounds");
TP_WRONG(VectorAddThroughByteOffsets, vector_add, "index-overflow", "size bound N0=2147483647");
TP_WRONG(Softmax2LoopThroughDoubledOffsets, long_softmax_2loop, "index-overflow", "size bound");
TP_WRONG(MatmulThroughDoubledOffsets, matmul, "index-overflow", "size bound");
TP_TWIN(VectorAddAdvancingThePointers, vector_add);
TP_CORPUS_TESTS("size bounds")

namespace {
constexpr long long int32_max = std::numeric_limits<int>::max();
}

TEST_CASE("Every puzzle states its size bounds: every tensor within int32's element count, "
          "every grid within the GPU's, and past 2^30 elements where the sizes are free",
          "[size-bounds]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    INFO(spec->id);
    REQUIRE_FALSE(spec->size_bounds.empty());
    CHECK(spec->size_bounds_rule.size() > 5);
    long long largest = 0;
    for (const auto& bound : spec->size_bounds) {
      INFO(tp::case_label(*spec, bound, {}, ""));
      REQUIRE(bound.size() == spec->size_names.size());
      // A size may be a flag (flash attention's CAUSAL = 0); every tensor is non-empty.
      for (int n : bound) CHECK(n >= 0);
      for (const auto& t : spec->tensors) {
        long long count = 1;
        for (long long d : t.shape(bound)) {
          CHECK(d >= 1);
          count *= d;
        }
        CHECK(count <= int32_max);
        largest = std::max(largest, count);
      }
      for (const auto& k : spec->kernels) {
        if (!spec->runs(bound, k.blocks)) continue;
        const auto grid = spec->grid(bound, k.blocks);
        CHECK(grid[0] >= 1);
        CHECK(grid[1] >= 1);
        CHECK(grid[1] <= 65535);
        CHECK(grid[2] >= 1);
        CHECK(grid[2] <= 65535);
        CHECK(1LL * grid[0] * grid[1] * grid[2] <= int32_max);
      }
    }
    for (const auto& k : spec->kernels) {
      const bool fits = std::any_of(spec->size_bounds.begin(), spec->size_bounds.end(),
                                    [&](const auto& b) { return spec->runs(b, k.blocks); });
      CHECK(fits);  // every block set is run at some bound
    }
    // Where the sizes are not tied to the blocks (N0 = B0), the bounds reach int32's scale.
    if (!spec->case_fits || spec->id == "softmax-fused" || spec->id == "flash-attention")
      CHECK(largest >= (1LL << 30));
  }
}

TEST_CASE("Every solution is proven in int32 at every size bound, every block set",
          "[size-bounds][solutions]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    INFO(spec->id);
    tp::check_options options;
    options.which = tp::impl::solution;
    options.orders = {tl::sim::order::forward};
    options.large_tier = false;
    const auto report = tp::check_puzzle(*spec, options);
    INFO(tp::report_details(report));
    REQUIRE(report.passed());
    int expected = 0;
    for (const auto& k : spec->kernels)
      for (const auto& b : spec->size_bounds) expected += spec->runs(b, k.blocks);
    CHECK(report.bound_runs == expected);
  }
}

TEST_CASE("An index that leaves int32 only past every case's sizes is reported at the size "
          "bound, with the sizes, the step and its line",
          "[size-bounds][known-wrong]") {
  const auto report =
      as_puzzle::check(as_puzzle::puzzle_with<wrong::VectorAddThroughByteOffsets,
                                              tp::bindings::vector_add, 1>("vector-add"));
  const auto& d = as_puzzle::the_diagnostic(report);
  CHECK(d.kind == "index-overflow");
  // Every case passed, the large tier's 2^20 + 3 elements too: the bound caught it.
  const tp::puzzle_spec* spec = tp::find_puzzle("vector-add");
  int runs = 0;
  for (const auto& c : spec->cases) runs += c.large ? 1 : 3;
  CHECK(report.runs == runs);
  CHECK(report.case_index == -1);
  CHECK(report.sizes == std::vector<int>{2147483647});
  const int line = as_puzzle::line_of("tests/size_bounds.cpp", "auto bytes = offsets * 4;");
  CHECK_THAT(d.source, Catch::EndsWith("size_bounds.cpp:" + std::to_string(line)));
  CHECK_THAT(d.message, Catch::Contains("multiplication") &&
                            Catch::Contains("size bound N0=2147483647, B0=32") &&
                            Catch::Contains("N0 < 2^31"));
  // The last program of the grid: 67108863 * 32 + lanes, times 4.
  CHECK(d.program == std::array<int, 3>{67108863, 0, 0});
}

TEST_CASE("A dry launch checks offsets against a buffer without data, of any size, and runs "
          "only the programs asked for",
          "[size-bounds][sim]") {
  tl::sim::buffer x("x", {2147483647}, "float32", 4, tl::sim::buffer::without_data_t{});
  tl::sim::launch_options dry;
  dry.dry = true;
  dry.programs = {0, 67108863};
  std::vector<int> ran;
  SECTION("in bounds and in int32: clean, and loads give zeros") {
    const auto r = tl::sim::run_grid({67108864, 1, 1}, dry, {&x}, [&] {
      ran.push_back(tl::program_id(0));
      auto offsets = tl::program_id(0) * 32 + tl::arange<32>();
      auto v = tl::load(tl::ptr<const float>{&x} + offsets, offsets < 2147483647);
      CHECK(float(tl::sum(v)) == 0.0f);
    });
    INFO((r.error ? r.error->message : ""));
    CHECK_FALSE(r.error.has_value());
    CHECK(ran == std::vector<int>{0, 67108863});
    CHECK(r.programs_run == 2);
  }
  SECTION("an integer step past int32 is index-overflow, an offset past the end out-of-bounds") {
    for (int bug : {0, 1}) {
      const auto r = tl::sim::run_grid({67108864, 1, 1}, dry, {&x}, [&] {
        auto offsets = tl::program_id(0) * 32 + tl::arange<32>();
        if (bug == 0) (void)tl::load(tl::ptr<const float>{&x} + offsets * 2 / 2);
        else (void)tl::load(tl::ptr<const float>{&x} + offsets);
      });
      REQUIRE(r.error.has_value());
      INFO(r.error->message);
      CHECK(r.error->kind == (bug == 0 ? "index-overflow" : "out-of-bounds"));
      CHECK(r.error->program == std::array<int, 3>{67108863, 0, 0});
    }
  }
}

TEST_CASE("tl::cdiv rounds up without leaving int32 near 2^31, and agrees with (a + b - 1) / b "
          "wherever that stays in int32",
          "[size-bounds]") {
  // The fast matmul's grouped program order takes cdiv(N0, B0) at N0 = 2^31 - 1, the matmul's
  // size bound: (a + b - 1) / b wrapped there and sent its blocks to negative rows.
  constexpr int max = std::numeric_limits<int>::max();
  STATIC_REQUIRE(tl::cdiv(max, 16) == 134217728);
  STATIC_REQUIRE(tl::cdiv(max, 1) == max);
  STATIC_REQUIRE(tl::cdiv(max - 15, 16) == 134217727);
  int differ = 0;
  for (int a = -40; a <= 40; ++a)
    for (int b = 1; b <= 9; ++b) {
      const int expected = a >= 0 ? (a + b - 1) / b : -((-a) / b);  // the ceiling, either sign
      differ += tl::cdiv(a, b) != expected;
    }
  CHECK(differ == 0);
}
