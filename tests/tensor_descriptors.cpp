// Tensor descriptors in the simulator (tile/descriptor.hpp, simulator/descriptor.hpp): the copy
// engine's rule (zeros outside the shape, nothing written past it), each of a descriptor's own
// checks with a planted bug and its correct twin, the usual checks through a descriptor, the
// counters the budgets read, and the access trace. The two compile-time rules (a store through a
// descriptor of a const tensor, a block narrower than 16 bytes) are tests/compile/ snippets; the
// GPU backend's blocks are compared with these in tests/gpu/parity.cpp.

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "simulator/trace.hpp"
#include "tile/tl.hpp"

namespace {

using tl::sim::diagnostic;
using program_id3 = std::array<int, 3>;

tl::sim::buffer input(const char* name, std::vector<float>& data, std::vector<long long> shape) {
  return tl::sim::buffer(name, shape, "float32", sizeof(float), data.data(), true);
}
tl::sim::buffer output(const char* name, std::vector<float>& data, std::vector<long long> shape) {
  return tl::sim::buffer(name, shape, "float32", sizeof(float), data.data(), false);
}

std::vector<float> ramp(int n) {
  std::vector<float> v(n);
  for (int i = 0; i < n; ++i) v[i] = 1.0f + static_cast<float>(i);
  return v;
}

std::string at_line(int line) { return "tensor_descriptors.cpp:" + std::to_string(line); }

#define REQUIRE_CLEAN(result)                                                         \
  do {                                                                                \
    INFO(((result).error ? (result).error->message : std::string("no diagnostic")));  \
    REQUIRE_FALSE((result).error.has_value());                                        \
  } while (0)

constexpr int M = 10, N = 13;  // x and z are [M, N]; blocks [4, 8] overlap both far edges

}  // namespace

// ---------------------------------------------------------------------------------------------
// The copy engine's rule

TEST_CASE("a descriptor's blocks copy a tensor whose sizes are not multiples of the block",
          "[sim][descriptor]") {
  auto x = ramp(M * N);
  std::vector<float> z(M * N, -1.0f);
  auto bx = input("x", x, {M, N});
  auto bz = output("z", z, {M, N});
  const auto r = tl::sim::run_grid({3, 2, 1}, {}, {&bx, &bz}, [&] {
    auto xd = tl::make_tensor_descriptor(tl::ptr<const float>{&bx}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
    auto zd = tl::make_tensor_descriptor(tl::ptr<float>{&bz}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
    const int i = tl::program_id(0) * 4, j = tl::program_id(1) * 8;
    zd.store({i, j}, xd.load({i, j}) * 2.0f);
  });
  REQUIRE_CLEAN(r);
  for (int e = 0; e < M * N; ++e) {
    INFO("element " << e);
    CHECK(z[e] == 2.0f * x[e]);
  }
  CHECK(bz.unwritten_count() == 0);
}

TEST_CASE("a block's elements outside the shape read as zero, before its start too, and a store "
          "writes none of them",
          "[sim][descriptor]") {
  constexpr int R = 5, C = 6;
  auto x = ramp(R * C);
  std::vector<float> z(R * C, -1.0f), seen(4 * 8, -1.0f);
  auto bx = input("x", x, {R, C});
  auto bz = output("z", z, {R, C});
  auto bs = output("seen", seen, {4, 8});
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz, &bs}, [&] {
    auto xd = tl::make_tensor_descriptor(tl::ptr<const float>{&bx}, {R, C}, {C, 1}, tl::block_shape<4, 8>);
    auto block = xd.load({-2, -3});  // rows -2 to 1, columns -3 to 4
    tl::store(tl::ptr<float>{&bs} + tl::arange<4>().col() * 8 + tl::arange<8>().row(), block);
    auto zd = tl::make_tensor_descriptor(tl::ptr<float>{&bz}, {R, C}, {C, 1}, tl::block_shape<4, 8>);
    zd.store({3, 2}, block);  // rows 3 to 6, columns 2 to 9: rows 3, 4 and columns 2 to 5 land
  });
  REQUIRE_CLEAN(r);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      const int row = i - 2, col = j - 3;
      const bool inside = row >= 0 && row < R && col >= 0 && col < C;
      INFO("block element [" << i << ", " << j << "]");
      CHECK(seen[i * 8 + j] == (inside ? x[row * C + col] : 0.0f));
    }
  }
  for (int row = 0; row < R; ++row) {
    for (int col = 0; col < C; ++col) {
      INFO("z[" << row << ", " << col << "]");
      const bool stored = row >= 3 && col >= 2;
      CHECK(z[row * C + col] == (stored ? seen[(row - 3) * 8 + (col - 2)] : -1.0f));
    }
  }
  CHECK(bz.unwritten_count() == R * C - 2 * 4);
}

TEST_CASE("1-D and 3-D descriptors, and a transposed view through its strides",
          "[sim][descriptor]") {
  auto x = ramp(2 * 3 * 8);
  std::vector<float> z1(24, -1.0f), z3(2 * 4 * 8, -1.0f), zt(8 * 4, -1.0f);
  auto bx = input("x", x, {2, 3, 8});
  auto b1 = output("z1", z1, {24});
  auto b3 = output("z3", z3, {2, 4, 8});
  auto bt = output("zt", zt, {8, 4});
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &b1, &b3, &bt}, [&] {
    const tl::ptr<const float> xp{&bx};
    auto x1 = tl::make_tensor_descriptor(xp, {20}, {1}, tl::block_shape<8>);
    auto d1 = tl::make_tensor_descriptor(tl::ptr<float>{&b1}, {24}, {1}, tl::block_shape<8>);
    for (int o = 0; o < 24; o += 8) d1.store({o}, x1.load({o - 2}));
    auto x3 = tl::make_tensor_descriptor(xp, {2, 3, 8}, {24, 8, 1}, tl::block_shape<2, 4, 8>);
    auto h = tl::expand_dims<1>(tl::expand_dims<1>(tl::arange<2>()));  // [2, 1, 1]
    auto i = tl::expand_dims<0>(tl::expand_dims<1>(tl::arange<4>()));  // [1, 4, 1]
    auto j = tl::expand_dims<0>(tl::expand_dims<0>(tl::arange<8>()));  // [1, 1, 8]
    tl::store(tl::ptr<float>{&b3} + h * 32 + i * 8 + j, x3.load({0, 0, 0}));
    // x's first 24 elements as an [8, 3] matrix stored by columns: element (i, j) is x[j * 8 + i];
    // the block's 4th column is outside the shape.
    auto xt = tl::make_tensor_descriptor(xp, {8, 3}, {1, 8}, tl::block_shape<8, 4>);
    tl::store(tl::ptr<float>{&bt} + tl::arange<8>().col() * 4 + tl::arange<4>().row(), xt.load({0, 0}));
  });
  REQUIRE_CLEAN(r);
  for (int o = 0; o < 24; ++o) {
    INFO("z1[" << o << "]");
    CHECK(z1[o] == (o >= 2 && o < 22 ? x[o - 2] : 0.0f));
  }
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 8; ++j) CHECK(z3[(h * 4 + i) * 8 + j] == (i < 3 ? x[(h * 3 + i) * 8 + j] : 0.0f));
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) CHECK(zt[i * 4 + j] == (j < 3 ? x[j * 8 + i] : 0.0f));
}

// ---------------------------------------------------------------------------------------------
// A descriptor's own checks, each with its correct twin

TEST_CASE("a descriptor whose shape or strides reach outside its buffer is out-of-bounds, at the "
          "line that made it",
          "[sim][descriptor][out-of-bounds]") {
  auto x = ramp(M * N);
  auto bx = input("x", x, {M, N});
  int line = 0;
  auto make = [&](int rows, int cols, int row_stride, int col_stride, int start) {
    return tl::sim::run_grid({1, 1, 1}, {}, {&bx}, [&] {
      line = __LINE__; auto d = tl::make_tensor_descriptor(tl::ptr<const float>{&bx} + start, {rows, cols}, {row_stride, col_stride}, tl::block_shape<4, 8>);
      (void)d.load({0, 0});
    });
  };
  SECTION("a shape one row past the buffer") {
    const auto r = make(M + 1, N, N, 1, 0);
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(d.program == program_id3{0, 0, 0});
    CHECK_THAT(d.source, Catch::EndsWith(at_line(line)));
    CHECK_THAT(d.message, Catch::Contains("the tensor descriptor made here over x reaches outside x"));
    CHECK_THAT(d.message, Catch::Contains("shape [11, 13] with strides [13, 1], from offset 0, "
                                          "reaches offsets 0 to 142: its element [10, 12] is at "
                                          "offset 142, past the buffer's last offset 129"));
  }
  SECTION("a stride that skips past the buffer (the row stride one too large)") {
    const auto r = make(M, N, N + 1, 1, 0);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "out-of-bounds");
    CHECK_THAT(r.error->message, Catch::Contains("strides [14, 1]") && Catch::Contains("offset 138"));
  }
  SECTION("a base pointer before the buffer's start") {
    const auto r = make(M, N, N, 1, -1);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "out-of-bounds");
    CHECK_THAT(r.error->message, Catch::Contains("from offset -1") &&
                                     Catch::Contains("its element [0, 0] is at offset -1, before "
                                                     "the buffer's start"));
  }
  SECTION("a shape with no elements along an axis") {
    const auto r = make(0, N, N, 1, 0);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "out-of-bounds");
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
    CHECK_THAT(r.error->message, Catch::Contains("has 0 elements along axis 0"));
  }
  SECTION("the twins: the whole buffer, a part of it, its columns as rows") {
    REQUIRE_CLEAN(make(M, N, N, 1, 0));
    REQUIRE_CLEAN(make(M - 1, N - 1, N, 1, N + 1));  // from x[1, 1] to x[9, 12]
    REQUIRE_CLEAN(make(N, M, 1, N, 0));              // xᵀ
  }
}

TEST_CASE("a block wholly outside a descriptor's shape is out-of-bounds at its load or store, and one "
          "that overlaps the edge is not",
          "[sim][descriptor][out-of-bounds]") {
  auto x = ramp(M * N);
  std::vector<float> z(M * N, -1.0f);
  auto bx = input("x", x, {M, N});
  auto bz = output("z", z, {M, N});
  int load_line = 0, store_line = 0, made_line = 0;
  // `programs` programs, each on the block of rows pid * 4 (and columns 0 to 7).
  auto copy_rows = [&](int programs, bool past_end_on_store) {
    return tl::sim::run_grid({programs, 1, 1}, {}, {&bx, &bz}, [&] {
      made_line = __LINE__; auto xd = tl::make_tensor_descriptor(tl::ptr<const float>{&bx}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
      auto zd = tl::make_tensor_descriptor(tl::ptr<float>{&bz}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
      const int row = tl::program_id(0) * 4;
      load_line = __LINE__; auto block = xd.load({past_end_on_store ? 0 : row, 0});
      store_line = __LINE__; zd.store({row, 0}, block);
    });
  };
  SECTION("a load: one program more than the rows have blocks") {
    const auto r = copy_rows(4, false);
    REQUIRE(r.error.has_value());
    const diagnostic& d = *r.error;
    INFO(d.message);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(d.program == program_id3{3, 0, 0});
    CHECK_THAT(d.source, Catch::EndsWith(at_line(load_line)));
    CHECK_THAT(d.message, Catch::Contains("desc.load of the block at [12, 0], which lies wholly "
                                          "outside the tensor of the descriptor over x made at"));
    CHECK_THAT(d.message, Catch::Contains(at_line(made_line)));
    CHECK_THAT(d.message, Catch::Contains("along axis 0 the block covers 12 to 15, the tensor 0 to 9"));
    CHECK_THAT(d.message, Catch::Contains("not block indices"));
  }
  SECTION("a store") {
    const auto r = copy_rows(4, true);
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "out-of-bounds");
    CHECK(r.error->buffer == "z");
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(store_line)));
    CHECK_THAT(r.error->message, Catch::Contains("desc.store of the block at [12, 0]"));
  }
  SECTION("the twin: as many programs as blocks, the last overlapping the edge") {
    REQUIRE_CLEAN(copy_rows(3, false));
    for (int row = 0; row < M; ++row)
      for (int col = 0; col < 8; ++col) CHECK(z[row * N + col] == x[row * N + col]);
  }
}

// ---------------------------------------------------------------------------------------------
// The usual checks and counters, through a descriptor

TEST_CASE("through a descriptor, the simulator's checks of every load and store hold",
          "[sim][descriptor]") {
  auto x = ramp(M * N);
  std::vector<float> z(M * N, -1.0f);
  auto bx = input("x", x, {M, N});
  auto bz = output("z", z, {M, N});
  int line = 0;
  SECTION("two programs writing one element: race-write-write, at the store") {
    const auto r = tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto zd = tl::make_tensor_descriptor(tl::ptr<float>{&bz}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
      line = __LINE__; zd.store({tl::program_id(0) * 3, 0}, 1.0f);  // rows 0-3 and 3-6
    });
    REQUIRE(r.error.has_value());
    INFO(r.error->message);
    CHECK(r.error->kind == "race-write-write");
    CHECK(r.error->buffer == "z");
    CHECK(r.error->program == program_id3{1, 0, 0});
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
  }
  SECTION("reading an output nothing wrote: uninitialized-read") {
    const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
      auto zd = tl::make_tensor_descriptor(tl::ptr<const float>{&bz}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
      line = __LINE__; (void)zd.load({0, 0});
    });
    REQUIRE(r.error.has_value());
    CHECK(r.error->kind == "uninitialized-read");
    CHECK_THAT(r.error->source, Catch::EndsWith(at_line(line)));
  }
  SECTION("the twins: blocks side by side, an output read after this program wrote it") {
    REQUIRE_CLEAN(tl::sim::run_grid({2, 1, 1}, {}, {&bx, &bz}, [&] {
      auto zd = tl::make_tensor_descriptor(tl::ptr<float>{&bz}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
      zd.store({tl::program_id(0) * 4, 0}, 1.0f);
      (void)zd.load({tl::program_id(0) * 4, 0});
    }));
  }
}

TEST_CASE("a descriptor's loads and stores are counted as the elements inside the shape, by the "
          "line of the load or store",
          "[sim][descriptor]") {
  auto x = ramp(M * N);
  std::vector<float> z(M * N, -1.0f);
  auto bx = input("x", x, {M, N});
  auto bz = output("z", z, {M, N});
  int load_line = 0, store_line = 0;
  const auto r = tl::sim::run_grid({3, 2, 1}, {}, {&bx, &bz}, [&] {
    auto xd = tl::make_tensor_descriptor(tl::ptr<const float>{&bx}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
    auto zd = tl::make_tensor_descriptor(tl::ptr<float>{&bz}, {M, N}, {N, 1}, tl::block_shape<4, 8>);
    const int i = tl::program_id(0) * 4, j = tl::program_id(1) * 8;
    load_line = __LINE__; auto block = xd.load({i, j});
    store_line = __LINE__; zd.store({i, j}, block);
  });
  REQUIRE_CLEAN(r);
  // 6 blocks of 32 lanes cover [12, 16]: 130 inside the shape, 62 outside.
  CHECK(bx.counters.loads == M * N);
  CHECK(bx.counters.masked_loads == 6 * 32 - M * N);
  CHECK(bx.counters.max_element_reads == 1);
  CHECK(bx.counters.max_program_loads == 32);
  CHECK(bz.counters.stores == M * N);
  CHECK(bz.counters.masked_stores == 6 * 32 - M * N);
  REQUIRE(bx.by_line.size() == 1);
  CHECK(bx.by_line[0].where.line() == static_cast<unsigned>(load_line));
  CHECK(bx.by_line[0].calls == 6);
  REQUIRE(bz.by_line.size() == 1);
  CHECK(bz.by_line[0].where.line() == static_cast<unsigned>(store_line));
}

TEST_CASE("the access trace records a descriptor's elements inside the shape only, where a "
          "masked load records its masked-off lanes' addresses",
          "[sim][descriptor][trace]") {
  constexpr int R = 3, C = 6;
  auto x = ramp(R * C);
  auto bx = input("x", x, {R, C});
  auto traced = [&](bool through_descriptor) {
    tl::sim::access_trace trace;
    tl::sim::launch_options options;
    options.trace = &trace;
    const auto r = tl::sim::run_grid({1, 1, 1}, options, {&bx}, [&] {
      if (through_descriptor) {
        auto xd = tl::make_tensor_descriptor(tl::ptr<const float>{&bx}, {R, C}, {C, 1}, tl::block_shape<2, 8>);
        (void)xd.load({0, 0});
      } else {
        auto rows = tl::arange<2>();
        auto cols = tl::arange<8>();
        (void)tl::load(tl::ptr<const float>{&bx} + rows.col() * C + cols.row(), (cols < C).row(), 0.0f);
      }
    });
    INFO((r.error ? r.error->message : std::string("no diagnostic")));
    REQUIRE_FALSE(r.error.has_value());
    return trace.entries();
  };
  const auto through_descriptor = traced(true);
  REQUIRE(through_descriptor.size() == 2 * C);
  for (const auto& e : through_descriptor) {
    INFO("offset " << e.offset);
    CHECK(e.what == tl::sim::traced_load);
    CHECK(e.offset < 2 * C);
  }
  // The masked load's lanes past column 5 point into the next row (and past the buffer): traced.
  const auto masked = traced(false);
  bool any_masked = false;
  for (const auto& e : masked) any_masked |= (e.what & tl::sim::traced_masked_load) != 0;
  CHECK(any_masked);
}
