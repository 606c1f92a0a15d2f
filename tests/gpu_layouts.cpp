// The GPU backend's layouts (cuda/layout.cuh), checked with g++: every layout is a valid map of
// threads and registers to elements; reductions' slices are the declared layouts, whatever the
// reduced size (the conversion-free patterns docs/tl.md promises); the mma.sync layouts are the
// fragments the PTX ISA documents; loads get 16-byte vectors along the contiguous axis.

#include <catch2/catch.hpp>

#include <array>
#include <set>
#include <string>

#include "cuda/layout.cuh"
#include "simulator/prefetch.hpp"

namespace {

using namespace tl::layouts;

template <std::size_t R>
bit_shape<R> shape_of(std::array<int, R> log2_dims) {
  bit_shape<R> s;
  s.log2_dims = log2_dims;
  return s;
}

// The flat index that register r of lane l of warp w holds.
long long element(const linear_layout& l, int lane, int warp, int r) {
  long long flat = l.register_bits_of(r);
  for (int i = 0; i < lane_bits; ++i)
    if (l.lane[i] >= 0 && ((lane >> i) & 1)) flat |= 1LL << l.lane[i];
  for (int i = 0; i < l.warp_bits; ++i)
    if (l.warp[i] >= 0 && ((warp >> i) & 1)) flat |= 1LL << l.warp[i];
  return flat;
}

// Every element is held by some thread, and the first copies hold each element exactly once.
bool covers_every_element_once(const linear_layout& l) {
  std::set<long long> seen;
  const unsigned copy_lanes = l.replicated_lanes(), copy_warps = l.replicated_warps();
  for (int w = 0; w < (1 << l.warp_bits); ++w)
    for (int lane = 0; lane < 32; ++lane) {
      if ((lane & copy_lanes) || (w & copy_warps)) continue;
      for (int r = 0; r < l.registers(); ++r)
        if (!seen.insert(element(l, lane, w, r)).second) return false;
    }
  return static_cast<long long>(seen.size()) == (1LL << l.out_bits);
}

}  // namespace

TEST_CASE("blocked and declared layouts are valid for every shape and warp count",
          "[gpu][layout]") {
  for (int warps = 0; warps <= 5; ++warps) {
    for (int a = 0; a <= 9; ++a) {
      INFO("warp bits " << warps << ", [2^" << a << "]");
      const auto b1 = blocked(shape_of<1>({a}), warps);
      CHECK(b1.valid());
      CHECK(covers_every_element_once(b1));
      CHECK(declared(shape_of<1>({a}), warps).valid());
      for (int b = 0; b <= 9 && a + b <= 14; ++b) {
        INFO("[2^" << a << ", 2^" << b << "]");
        const auto b2 = blocked(shape_of<2>({a, b}), warps);
        const auto d2 = declared(shape_of<2>({a, b}), warps);
        CHECK(b2.valid());
        CHECK(d2.valid());
        CHECK(covers_every_element_once(b2));
        CHECK(covers_every_element_once(d2));
        CHECK(blocked(shape_of<3>({1, a, b}), warps).valid());
      }
    }
  }
}

TEST_CASE("a row reduction of a loaded or declared 2-D tile is in the declared 1-D layout, "
          "whatever the number of columns",
          "[gpu][layout]") {
  // So row_max.col() is free, and tl::tile<float, B0> row_max = tl::max<1>(block) never converts.
  for (int warps = 0; warps <= 5; ++warps)
    for (int rows = 0; rows <= 8; ++rows) {
      const auto declared_rows = declared(shape_of<1>({rows}), warps);
      for (int cols = 0; cols <= 10; ++cols) {
        INFO("warp bits " << warps << ", [2^" << rows << ", 2^" << cols << "]");
        const auto b = blocked(shape_of<2>({rows, cols}), warps);
        CHECK(without_bits(b, 0, cols) == declared_rows);
        const auto d = declared(shape_of<2>({rows, cols}), warps);
        CHECK(without_bits(d, 0, cols) == declared_rows);
        // Broadcasting the rows back over the columns reads the slice register for register.
        bit_map rows_of_2d;
        rows_of_2d.bits = rows;
        for (int i = 0; i < rows; ++i) rows_of_2d.from[i] = static_cast<signed char>(cols + i);
        CHECK(same_threads(declared_rows, projected(b, rows_of_2d)));
      }
    }
}

TEST_CASE("a declared 2-D tile of at least 16 x 8 is mma.sync's accumulator", "[gpu][layout]") {
  CHECK(declared(shape_of<2>({7, 6}), 2) == mma_accumulator(7, 6, 2));
  CHECK(declared(shape_of<2>({4, 3}), 0) == mma_accumulator(4, 3, 0));
  CHECK(declared(shape_of<2>({3, 6}), 2) == blocked(shape_of<2>({3, 6}), 2));  // 8 rows: too few
  CHECK(declared(shape_of<2>({5, 2}), 2) == blocked(shape_of<2>({5, 2}), 2));  // 4 columns
}

TEST_CASE("the mma.sync m16n8k16 layouts hold the fragments of the PTX ISA", "[gpu][layout]") {
  // PTX ISA, "Matrix Fragments for mma.m16n8k16": groupID = lane / 4, threadID_in_group = lane % 4.
  const auto acc = mma_accumulator(4, 3, 0);      // one 16 x 8 tile, one warp
  const auto a = mma_operand_a(4, 4, 0);          // 16 x 16
  const auto b = mma_operand_b(4, 3, 4, 0);       // 16 x 8
  REQUIRE(acc.valid());
  REQUIRE(a.valid());
  REQUIRE(b.valid());
  for (int lane = 0; lane < 32; ++lane) {
    const int group = lane / 4, in_group = lane % 4;
    INFO("lane " << lane);
    for (int i = 0; i < 4; ++i) {  // c0..c3: row group (+8 for c2, c3), column 2 q + (i & 1)
      const long long e = element(acc, lane, 0, i);
      CHECK(e / 8 == group + 8 * (i >= 2));
      CHECK(e % 8 == in_group * 2 + (i & 1));
    }
    for (int i = 0; i < 8; ++i) {  // a0..a7: row group (+8 for a2 a3, a6 a7), col 2 q + (i & 1) (+8 for a4..a7)
      const long long e = element(a, lane, 0, i);
      CHECK(e / 16 == group + 8 * ((i >> 1) & 1));
      CHECK(e % 16 == in_group * 2 + (i & 1) + 8 * (i >= 4));
    }
    for (int i = 0; i < 4; ++i) {  // b0..b3: row (k) 2 q + (i & 1) (+8 for b2, b3), column group
      const long long e = element(b, lane, 0, i);
      CHECK(e / 8 == in_group * 2 + (i & 1) + 8 * (i >= 2));
      CHECK(e % 8 == group);
    }
  }
  // With 4 warps on a 64 x 32 accumulator: warps split the rows, 16 each.
  const auto acc4 = mma_accumulator(6, 5, 2);
  REQUIRE(acc4.valid());
  for (int w = 0; w < 4; ++w) CHECK(element(acc4, 0, w, 0) / 32 == 16 * w);
  // B's warps follow the accumulator's columns: on 16 x 64 with 4 warps, 8 columns... each.
  const auto acc_wide = mma_accumulator(4, 6, 2);
  const auto b_wide = mma_operand_b(4, 6, 4, 2);
  REQUIRE(b_wide.valid());
  for (int w = 0; w < 4; ++w) CHECK(element(acc_wide, 0, w, 0) % 64 == element(b_wide, 0, w, 0) % 64);
}

TEST_CASE("loads get 16-byte vectors along the contiguous axis, coalesced across lanes",
          "[gpu][layout]") {
  const auto l = blocked(shape_of<1>({10}), 2);  // 1024 elements, 4 warps
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 4; ++r) CHECK(element(l, lane, w, r) == 4 * (32 * w + lane) + r);
  for (int rows = 0; rows <= 6; ++rows) {
    const auto b = blocked(shape_of<2>({rows, 7}), 2);
    CHECK(b.reg[0] == 0);
    CHECK(b.reg[1] == 1);
    CHECK(b.lane[0] == 2);  // the next lanes continue the row: 64 contiguous bytes or more
    CHECK(b.lane[1] == 3);
  }
}

TEST_CASE("loads and stores of 16-bit elements get 8 consecutive elements per thread (16 bytes), "
          "and their row reductions are the declared 1-D layout too",
          "[gpu][layout][half]") {
  const auto l = blocked(shape_of<1>({10}), 2, 3);  // 1024 halves, 4 warps
  for (int w = 0; w < 4; ++w)
    for (int lane = 0; lane < 32; ++lane)
      for (int r = 0; r < 8; ++r) CHECK(element(l, lane, w, r) == 8 * (32 * w + lane) + r);
  for (int warps = 0; warps <= 5; ++warps)
    for (int rows = 0; rows <= 8; ++rows)
      for (int cols = 0; cols <= 10 && rows + cols <= 14; ++cols) {
        INFO("warp bits " << warps << ", [2^" << rows << ", 2^" << cols << "]");
        const auto b = blocked(shape_of<2>({rows, cols}), warps, 3);
        CHECK(b.valid());
        CHECK(covers_every_element_once(b));
        for (int v = 0; v < 3 && v < cols; ++v) CHECK(b.reg[v] == v);
        CHECK(without_bits(b, 0, cols) == declared(shape_of<1>({rows}), warps));
      }
}

TEST_CASE("the simulator's count of a load's registers per thread, which sizes the GPU's "
          "prefetch stages it replays (simulator/prefetch.hpp), is the blocked layout's",
          "[gpu][layout][range]") {
  for (int vector : {2, 3})
    for (int warps = 0; warps <= 5; ++warps)
      for (int rows = 0; rows <= 10; ++rows)
        for (int cols = 0; cols <= 12 && rows + cols <= 16; ++cols) {
          INFO("vector bits " << vector << ", warp bits " << warps << ", [2^" << rows << ", 2^" << cols << "]");
          CHECK(tl::sim::blocked_register_bits(rows, cols, warps, vector) ==
                blocked(shape_of<2>({rows, cols}), warps, vector).reg_bits);
          if (rows == 0)
            CHECK(tl::sim::blocked_register_bits(0, cols, warps, vector) ==
                  blocked(shape_of<1>({cols}), warps, vector).reg_bits);
        }
}

TEST_CASE("tl::trans of a tile in any layout is that layout with its output bits relabelled: "
          "register r of each thread holds element (j, i) where the tile's held (i, j)",
          "[gpu][layout][trans]") {
  for (int warps = 0; warps <= 5; ++warps)
    for (int rows = 0; rows <= 8; ++rows)
      for (int cols = 0; cols <= 8 && rows + cols <= 14; ++cols) {
        INFO("warp bits " << warps << ", [2^" << rows << ", 2^" << cols << "]");
        for (const auto& l : {blocked(shape_of<2>({rows, cols}), warps, 3),
                              declared(shape_of<2>({rows, cols}), warps)}) {
          const auto t = transposed(l, rows, cols);
          CHECK(t.valid());
          CHECK(covers_every_element_once(t));
          CHECK(transposed(t, cols, rows) == l);
          for (int w = 0; w < (1 << warps); w += 1 + (1 << warps) / 3)
            for (int lane = 0; lane < 32; lane += 5)
              for (int r = 0; r < l.registers(); r += 1 + l.registers() / 5) {
                const long long e = element(l, lane, w, r), te = element(t, lane, w, r);
                const long long i = e >> cols, j = e & ((1LL << cols) - 1);
                CHECK(te == (j << rows | i));  // [2^cols, 2^rows], row j, column i
              }
        }
        // The twin: a tile that is not square seen as its transpose without relabelling holds
        // other elements (a reshape, not a transpose).
        if (rows != cols && rows > 0 && cols > 0) {
          const auto l = blocked(shape_of<2>({rows, cols}), warps, 3);
          CHECK_FALSE(transposed(l, rows, cols) == l);
        }
      }
}
