// The simulator's bulk path (whole tiles at once: simulator/batch.hpp, the shadow state per chunk,
// the vectorized dot and exp) computes, counts and reports exactly what the lane-by-lane
// reference does (tl::sim::launch_options::lane_by_lane): the same output bits, the same counters,
// the same shadow state element by element, the same diagnostics.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "checker/check.hpp"
#include "checker/inputs.hpp"
#include "checker/registry.hpp"
#include "checker/sim_launch.hpp"
#include "simulator/dot.hpp"
#include "simulator/exp.hpp"
#include "simulator/float_rows.hpp"
#include "simulator/launch.hpp"
#include "solutions/flash_attention_simple.hpp"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/matmul.hpp"
#include "solutions/vector_add.hpp"
#include "tile/tl.hpp"

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
float float_of(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

// Float vectors equal bit for bit (NaN payloads and the sign of zero included).
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void check_same_counters(const tl::sim::buffer& bulk, const tl::sim::buffer& reference) {
  INFO("buffer " << bulk.name());
  const auto& a = bulk.counters;
  const auto& b = reference.counters;
  CHECK(a.loads == b.loads);
  CHECK(a.stores == b.stores);
  CHECK(a.load_bytes == b.load_bytes);
  CHECK(a.store_bytes == b.store_bytes);
  CHECK(a.masked_loads == b.masked_loads);
  CHECK(a.masked_stores == b.masked_stores);
  CHECK(a.max_program_loads == b.max_program_loads);
  CHECK(a.max_program_stores == b.max_program_stores);
  CHECK(a.max_element_reads == b.max_element_reads);
  CHECK(a.max_program_element_reads == b.max_program_element_reads);
  CHECK(a.max_element_writes == b.max_element_writes);
}

void check_same_shadow(const tl::sim::buffer& bulk, const tl::sim::buffer& reference) {
  REQUIRE(bulk.count() == reference.count());
  long long differing = 0, first = -1;
  for (long long i = 0; i < bulk.count(); ++i) {
    const auto a = bulk.shadow[i], b = reference.shadow[i];
    const bool same = a.writer == b.writer && a.reader == b.reader &&
                      a.earlier_reader == b.earlier_reader && a.reads == b.reads &&
                      a.program_reads == b.program_reads && a.writes == b.writes;
    if (!same && differing++ == 0) first = i;
  }
  INFO("buffer " << bulk.name() << ": " << differing << " elements differ, the first " << first);
  CHECK(differing == 0);
  CHECK(bulk.unwritten_count() == reference.unwritten_count());
}

void check_same_diagnostic(const std::optional<tl::sim::diagnostic>& bulk,
                           const std::optional<tl::sim::diagnostic>& reference) {
  REQUIRE(bulk.has_value() == reference.has_value());
  if (!bulk) return;
  INFO(bulk->message);
  INFO(reference->message);
  CHECK(bulk->kind == reference->kind);
  CHECK(bulk->message == reference->message);
  CHECK(bulk->program == reference->program);
  CHECK(bulk->buffer == reference->buffer);
  CHECK(bulk->source == reference->source);
  REQUIRE(bulk->lanes.size() == reference->lanes.size());
  for (std::size_t i = 0; i < bulk->lanes.size(); ++i) {
    CHECK(bulk->lanes[i].lane == reference->lanes[i].lane);
    CHECK(bulk->lanes[i].coords == reference->lanes[i].coords);
    CHECK(bulk->lanes[i].offset == reference->lanes[i].offset);
    CHECK(bulk->lanes[i].note == reference->lanes[i].note);
  }
}

// Runs one solution on one of its puzzle's cases, in bulk and lane by lane, in every order, and
// compares everything the two leave behind.
template <class Kernel>
void check_solution_both_ways(const char* puzzle, const std::vector<int>& sizes,
                              const std::vector<int>& blocks) {
  const tp::puzzle_spec* spec = tp::find_puzzle(puzzle);
  REQUIRE(spec != nullptr);
  const auto data = tp::make_case(*spec, sizes, 7, 0);
  for (auto order : {tl::sim::order::forward, tl::sim::order::reverse, tl::sim::order::shuffle}) {
    INFO(puzzle << " blocks " << blocks[0] << " order " << tl::sim::order_name(order));
    auto bulk_tensors = data.tensors, reference_tensors = data.tensors;
    tp::launch_request request;
    request.grid = spec->grid(sizes, blocks);
    request.sizes = sizes;
    tl::sim::launch_options options;
    options.order = order;
    options.seed = 3;
    request.tensors = &bulk_tensors;
    const auto bulk = tp::sim_launch<Kernel>(request, options);
    options.lane_by_lane = true;
    request.tensors = &reference_tensors;
    const auto reference = tp::sim_launch<Kernel>(request, options);
    check_same_diagnostic(bulk.result.error, reference.result.error);
    REQUIRE_FALSE(bulk.result.error.has_value());
    CHECK(bulk.result.ops == reference.result.ops);
    for (std::size_t t = 0; t < bulk_tensors.size(); ++t) {
      INFO("tensor " << bulk_tensors[t].name);
      CHECK(same_bits(bulk_tensors[t].values, reference_tensors[t].values));
      check_same_counters(bulk.buffers[t], reference.buffers[t]);
      check_same_shadow(bulk.buffers[t], reference.buffers[t]);
    }
    // And the result is the right one, as the checker judges it.
    CHECK_FALSE(tp::compare_outputs(*spec, bulk_tensors, data.expected, "bulk").has_value());
  }
}

// Runs a kernel written as a lambda in bulk and lane by lane on fresh copies of the same data.
struct both_ways {
  tl::sim::launch_result bulk, reference;
};
template <class Setup>
both_ways run_both_ways(std::array<int, 3> grid, Setup&& setup) {
  both_ways out;
  for (bool lane_by_lane : {false, true}) {
    tl::sim::launch_options options;
    options.lane_by_lane = lane_by_lane;
    (lane_by_lane ? out.reference : out.bulk) = setup(grid, options);
  }
  check_same_diagnostic(out.bulk.error, out.reference.error);
  CHECK(out.bulk.programs_run == out.reference.programs_run);
  return out;
}

}  // namespace

TEST_CASE("every reference solution computes, counts and shadows the same in bulk as lane by lane",
          "[sim][bulk]") {
  using namespace solutions;
  SECTION("vector-add, a tail of 3") {
    check_solution_both_ways<VectorAdd<32>>("vector-add", {67}, {32});
  }
  SECTION("the 3-loop softmax") {
    check_solution_both_ways<LongSoftmax3Loop<1, 32>>("long-softmax-3loop", {3, 65}, {1, 32});
    check_solution_both_ways<LongSoftmax3Loop<4, 64>>("long-softmax-3loop", {13, 200}, {4, 64});
  }
  SECTION("the 2-loop softmax, rows that start inside a shadow chunk") {
    check_solution_both_ways<LongSoftmax2Loop<1, 32>>("long-softmax-2loop", {4, 200}, {1, 32});
    check_solution_both_ways<LongSoftmax2Loop<4, 64>>("long-softmax-2loop", {6, 131}, {4, 64});
    check_solution_both_ways<LongSoftmax2Loop<2, 128>>("long-softmax-2loop", {5, 512}, {2, 128});
  }
  SECTION("flash attention, a partial last block of keys") {
    check_solution_both_ways<FlashAttentionSimple<16, 16>>("flash-attention-simple", {40, 67},
                                                           {16, 16});
    check_solution_both_ways<FlashAttentionSimple<32, 64>>("flash-attention-simple", {64, 200},
                                                           {32, 64});
  }
  SECTION("matmul: tails in every dimension, batches, and whole tiles") {
    check_solution_both_ways<Matmul<16, 16, 16>>("matmul", {33, 35, 3, 50}, {16, 16, 16});
    check_solution_both_ways<Matmul<32, 32, 32>>("matmul", {64, 64, 2, 64}, {32, 32, 32});
    check_solution_both_ways<Matmul<16, 32, 64>>("matmul", {40, 70, 1, 128}, {16, 32, 64});
  }
}

TEST_CASE("planted bugs are reported the same in bulk as lane by lane", "[sim][bulk]") {
  SECTION("out of bounds in a 2-D tile masked along the columns only, after clean lanes") {
    run_both_ways({2, 1, 1}, [](std::array<int, 3> grid, const tl::sim::launch_options& o) {
      std::vector<float> x(15, 1.0f), z(15);
      tl::sim::buffer bx("x", {3, 5}, "float32", 4, x.data(), true);
      tl::sim::buffer bz("z", {3, 5}, "float32", 4, z.data(), false);
      return tl::sim::run_grid(grid, o, {&bx, &bz}, [&] {
        auto rows = tl::program_id(0) * 2 + tl::arange<2>().col();
        auto cols = tl::arange<8>().row();
        auto v = tl::load(tl::ptr<const float>{&bx} + rows * 5 + cols, cols < 5);
        tl::store(tl::ptr<float>{&bz} + rows * 5 + cols, v, (rows < 3) & (cols < 5));
      });
    });
  }
  SECTION("offsets and masks from a tl::range's index (affine, as a scalar is): out of bounds "
          "in a later iteration, a masked tail, an intermediate step past int32") {
    const char* kinds[] = {"out-of-bounds", nullptr, "index-overflow"};
    for (int bug = 0; bug < 3; ++bug) {
      INFO("case " << bug);
      const auto both =
          run_both_ways({2, 1, 1}, [bug](std::array<int, 3> grid, const tl::sim::launch_options& o) {
            std::vector<float> x(8 * 80, 1.0f), z(8 * 16, 0.0f);
            tl::sim::buffer bx("x", {8, 80}, "float32", 4, x.data(), true);
            tl::sim::buffer bz("z", {8, 16}, "float32", 4, z.data(), false);
            return tl::sim::run_grid(grid, o, {&bx, &bz}, [&] {
              auto rows = tl::program_id(0) * 4 + tl::arange<4>();
              const int big = bug == 2 ? 30'000'000 : 0;  // ks * big leaves int32 from k = 64
              const int limit = bug == 0 ? 96 : bug == 1 ? 72 : 80;
              tl::tile<float, 4, 16> acc = 0.0f;
              for (auto k : tl::range(0, bug == 0 ? 96 : 80, 16)) {
                auto ks = k + tl::arange<16>();
                auto cols = ks * big - ks * big + ks;
                acc = acc + tl::load(tl::ptr<const float>{&bx} + rows.col() * 80 + cols.row(),
                                     (ks < limit).row(), 0.0f);
              }
              tl::store(tl::ptr<float>{&bz} + rows.col() * 16 + tl::arange<16>().row(), acc);
            });
          });
      if (kinds[bug]) {
        REQUIRE(both.bulk.error.has_value());
        CHECK(both.bulk.error->kind == kinds[bug]);
      } else {
        CHECK_FALSE(both.bulk.error.has_value());
      }
    }
  }
  SECTION("a store of poison, a race between two programs, a read of what nobody wrote") {
    for (int bug = 0; bug < 3; ++bug) {
      INFO("bug " << bug);
      run_both_ways({4, 1, 1}, [bug](std::array<int, 3> grid, const tl::sim::launch_options& o) {
        std::vector<float> x(64, 2.0f), z(64);
        tl::sim::buffer bx("x", {64}, "float32", 4, x.data(), true);
        tl::sim::buffer bz("z", {64}, "float32", 4, z.data(), false);
        return tl::sim::run_grid(grid, o, {&bx, &bz}, [&] {
          auto offs = tl::program_id(0) * 16 + tl::arange<16>();
          if (bug == 0) {
            auto v = tl::load(tl::ptr<const float>{&bx} + offs, offs % 16 < 12);
            tl::store(tl::ptr<float>{&bz} + offs, v * 2.0f);
          } else if (bug == 1) {
            tl::store(tl::ptr<float>{&bz} + offs % 24, 1.0f);
          } else {
            auto v = tl::load(tl::ptr<const float>{&bz} + (offs + 16) % 64);
            tl::store(tl::ptr<float>{&bz} + offs, v);
          }
        });
      });
    }
  }
  SECTION("a program reads what another wrote, after clean loads of the same elements") {
    run_both_ways({3, 1, 1}, [](std::array<int, 3> grid, const tl::sim::launch_options& o) {
      std::vector<float> z(48, 0.0f);
      tl::sim::buffer bz("z", {48}, "float32", 4, z.data(), true);
      return tl::sim::run_grid(grid, o, {&bz}, [&] {
        auto offs = tl::program_id(0) * 16 + tl::arange<16>();
        auto mine = tl::load(tl::ptr<const float>{&bz} + offs);
        tl::store(tl::ptr<float>{&bz} + offs, mine + 1.0f);
        auto left = tl::load(tl::ptr<const float>{&bz} + (offs + 40) % 48);
        (void)left;
      });
    });
  }
  SECTION("an offset past int32 in a lane the mask switches off is no problem; in one it "
          "switches on, it is reported") {
    for (int limit : {3, 4}) {
      INFO("mask i < " << limit);
      run_both_ways({1, 1, 1}, [limit](std::array<int, 3> grid, const tl::sim::launch_options& o) {
        std::vector<float> x(4, 1.0f);
        tl::sim::buffer bx("x", {4}, "float32", 4, x.data(), true);
        return tl::sim::run_grid(grid, o, {&bx}, [&] {
          auto i = tl::arange<4>();
          auto v = tl::load(tl::ptr<const float>{&bx} + i + (i / 3) * 1'000'000'000 * 3, i < limit);
          (void)v;
        });
      });
    }
  }
}

TEST_CASE("a lane the program never uses may overflow int32 in bulk: the result is the "
          "lane-by-lane one",
          "[sim][bulk]") {
  // where() evaluates only the chosen side lane by lane; the bulk path evaluates both, and the
  // comparison on the unchosen side overflows in lane 3 (3e9). It must not be reported.
  for (bool lane_by_lane : {false, true}) {
    std::vector<float> z(4);
    tl::sim::buffer bz("z", {4}, "float32", 4, z.data(), false);
    tl::sim::launch_options o;
    o.lane_by_lane = lane_by_lane;
    const auto r = tl::sim::run_grid({1, 1, 1}, o, {&bz}, [&] {
      auto i = tl::arange<4>();
      tl::tile<bool, 4> small = tl::where(i >= 2, i < 2, (i * 1'000'000'000) < 5);
      tl::store(tl::ptr<float>{&bz} + i, tl::where(small, 1.0f, 0.0f) + tl::zeros<float, 4>());
    });
    INFO((r.error ? r.error->message : std::string("clean")));
    REQUIRE_FALSE(r.error.has_value());
    CHECK(z == std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f});
  }
  // And where the chosen side overflows, both report the lane-by-lane diagnostic.
  run_both_ways({1, 1, 1}, [](std::array<int, 3> grid, const tl::sim::launch_options& o) {
    return tl::sim::run_grid(grid, o, {}, [&] {
      auto i = tl::arange<4>();
      tl::tile<bool, 4> small = tl::where(i != 2, i < 2, (i * 1'500'000'000) < 5);
      (void)small;
    });
  });
}

TEST_CASE("loads and stores of runs that cut shadow chunks, and of single lanes, leave the "
          "shadow state element by element as lane by lane",
          "[sim][bulk][shadow]") {
  std::vector<std::vector<float>> outputs;
  std::vector<tl::sim::buffer> kept;
  for (bool lane_by_lane : {false, true}) {
    std::vector<float> x(100), z(100);
    for (int i = 0; i < 100; ++i) x[i] = static_cast<float>(i);
    tl::sim::buffer bx("x", {100}, "float32", 4, x.data(), true);
    tl::sim::buffer bz("z", {100}, "float32", 4, z.data(), false);
    tl::sim::launch_options o;
    o.lane_by_lane = lane_by_lane;
    const auto r = tl::sim::run_grid({3, 1, 1}, o, {&bx, &bz}, [&] {
      const int p = tl::program_id(0);
      auto i = tl::arange<32>();
      // A run from inside one chunk to inside another, a whole aligned run, a gather, a scalar.
      auto a = tl::load(tl::ptr<const float>{&bx} + 5 + p * 7 + i);
      auto b = tl::load(tl::ptr<const float>{&bx} + 32 + i);
      auto c = tl::load(tl::ptr<const float>{&bx} + (i * 3) % 100);
      float d = tl::load(tl::ptr<const float>{&bx} + 99 - p);
      tl::store(tl::ptr<float>{&bz} + p * 33 + i, a + b + c + d, p * 33 + i < 100);
    });
    INFO((r.error ? r.error->message : std::string("clean")));
    REQUIRE_FALSE(r.error.has_value());
    outputs.push_back(z);
    kept.push_back(std::move(bx));
    kept.push_back(std::move(bz));
  }
  CHECK(same_bits(outputs[0], outputs[1]));
  for (int t = 0; t < 2; ++t) {
    check_same_counters(kept[t], kept[2 + t]);
    check_same_shadow(kept[t], kept[2 + t]);
  }
}

TEST_CASE("dot's vectorized kernel gives the bits of the loop of fused multiply-adds over k, "
          "for every size and instruction set",
          "[sim][bulk][dot]") {
  using tl::sim::dot_instructions;
  tp::rng random(11);
  int sets_checked = 0;
  for (auto set : {dot_instructions::portable, dot_instructions::avx2, dot_instructions::avx512})
    sets_checked += tl::sim::dot_instructions_available(set);
  CHECK(sets_checked >= 1 + (tl::sim::dot_instructions_available(dot_instructions::avx512) ? 1 : 0));
  for (int M : {16, 32, 64})
    for (int N : {16, 32, 64, 128})
      for (int K : {16, 64}) {
        std::vector<float> a(M * K), b(K * N), acc(M * N), c(M * N), expected(M * N),
            unfused(M * N);
        tp::fill_signed(a, random, 3.0);
        tp::fill_signed(b, random, 3.0);
        tp::fill_signed(acc, random, 100.0);
        a[5] = std::numeric_limits<float>::infinity();
        b[7] = -0.0f;
        acc[3] = std::numeric_limits<float>::quiet_NaN();
        for (int i = 0; i < M; ++i)
          for (int j = 0; j < N; ++j) {
            float s = acc[i * N + j], t = acc[i * N + j];
            for (int k = 0; k < K; ++k) {
              s = std::fma(a[i * K + k], b[k * N + j], s);
              const float product = a[i * K + k] * b[k * N + j];
              t = t + product;
            }
            expected[i * N + j] = s;
            unfused[i * N + j] = t;
          }
        INFO("M " << M << " N " << N << " K " << K);
        // The twin: these operands tell a multiplication then an addition from a fused one.
        CHECK_FALSE(same_bits(expected, unfused));
        tl::sim::dot_accumulate(a.data(), b.data(), acc.data(), c.data(), M, N, K);
        CHECK(same_bits(c, expected));
        for (auto set :
             {dot_instructions::portable, dot_instructions::avx2, dot_instructions::avx512}) {
          if (!tl::sim::dot_instructions_available(set)) continue;
          INFO("instruction set " << static_cast<int>(set));
          std::fill(c.begin(), c.end(), 7.0f);
          tl::sim::dot_accumulate(set, a.data(), b.data(), acc.data(), c.data(), M, N, K);
          CHECK(same_bits(c, expected));
        }
        tl::sim::dot_accumulate(a.data(), b.data(), acc.data(), acc.data(), M, N, K);
        CHECK(same_bits(acc, expected));  // in place
      }
}

TEST_CASE("float_rows gives the bits of one float operation per lane, subnormals included, "
          "for whole and broadcast rows of every length",
          "[sim][bulk][float_rows]") {
  using tl::sim::float_op;
  tp::rng random(12);
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::denorm_min(), -1e-39f,
                            1.1754942e-38f, 3e38f, -3e38f, std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(), 1e-20f, 1e-19f};
  for (float_op op : {float_op::add, float_op::sub, float_op::mul})
    for (long long rows : {1, 3, 8})
      for (long long cols : {1, 15, 16, 17, 64, 200})
        for (int broadcast : {0, 1, 2}) {  // none, a's row repeated, b's row repeated
          const long long a_row = broadcast == 1 ? 0 : cols, b_row = broadcast == 2 ? 0 : cols;
          std::vector<float> a(rows * cols), b(rows * cols), out(rows * cols, 7.0f);
          tp::fill_signed(a, random, 4.0);
          tp::fill_signed(b, random, 4.0);
          for (std::size_t i = 0; i < a.size(); ++i) {
            if (i % 3 == 0) a[i] = a[i] * 1e-40f;  // subnormal, or zero
            if (i % 5 == 1) b[i] = specials[i % std::size(specials)];
            if (i % 7 == 2) a[i] = specials[(i / 7) % std::size(specials)];
          }
          tl::sim::float_rows(op, a.data(), a_row, b.data(), b_row, out.data(), rows, cols);
          long long differ = 0;
          for (long long r = 0; r < rows; ++r)
            for (long long c = 0; c < cols; ++c) {
              const float x = a[r * a_row + c], y = b[r * b_row + c];
              const float want = op == float_op::add ? x + y : op == float_op::sub ? x - y : x * y;
              differ += bits_of(out[r * cols + c]) != bits_of(want);
            }
          INFO("op " << static_cast<int>(op) << " rows " << rows << " cols " << cols
                     << " broadcast " << broadcast);
          CHECK(differ == 0);
        }
}

TEST_CASE("the vectorized expf gives the bits of the one-lane expf and of glibc's expf",
          "[sim][bulk][exp]") {
  std::vector<float> x;
  for (std::uint64_t b = 0; b < (1ull << 32); b += 65'521) x.push_back(float_of(static_cast<std::uint32_t>(b)));
  for (float v : {0.0f, -0.0f, 1.0f, -1.0f, 88.72f, 88.73f, -103.97f, -103.98f, -87.5f, 1e-30f,
                  std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                  std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()})
    x.push_back(v);
  std::vector<float> y(x.size());
  tl::sim::exp_lanes(x.data(), y.data(), static_cast<long long>(x.size()));
  long long differs_from_lane = 0, differs_from_libc = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    differs_from_lane += bits_of(y[i]) != bits_of(tl::sim::exp_lane(x[i]));
    differs_from_libc += bits_of(y[i]) != bits_of(std::exp(x[i]));
  }
  CHECK(differs_from_lane == 0);
  CHECK(differs_from_libc == 0);
}

TEST_CASE("maximum and minimum without branches give the bits of tl's maximum and minimum",
          "[sim][bulk]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> f{0.0f, -0.0f, 1.0f, -1.0f, 2.5f, inf, -inf, 1e-45f, -1e-45f, 3e38f,
                             std::numeric_limits<float>::quiet_NaN(), float_of(0xffc00123u),
                             float_of(0x7fa00001u)};
  for (float a : f)
    for (float b : f) {
      INFO(a << " " << b);
      CHECK(bits_of(tl::batch::maximum_without_branches{}(a, b)) == bits_of(tl::op::maximum{}(a, b)));
      CHECK(bits_of(tl::batch::minimum_without_branches{}(a, b)) == bits_of(tl::op::minimum{}(a, b)));
    }
  const std::vector<double> d{0.0, -0.0, 1.0, -1.0, 1e300, -1e300, 5e-324,
                              std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN()};
  for (double a : d)
    for (double b : d) {
      const double m1 = tl::batch::maximum_without_branches{}(a, b), m2 = tl::op::maximum{}(a, b);
      const double n1 = tl::batch::minimum_without_branches{}(a, b), n2 = tl::op::minimum{}(a, b);
      CHECK(std::memcmp(&m1, &m2, sizeof m1) == 0);
      CHECK(std::memcmp(&n1, &n2, sizeof n1) == 0);
    }
}

TEST_CASE("reductions with NaN, signed zeros and poison give the same bits in bulk",
          "[sim][bulk]") {
  std::vector<std::vector<float>> results;
  for (bool lane_by_lane : {false, true}) {
    std::vector<float> x(64);
    for (int i = 0; i < 64; ++i) x[i] = static_cast<float>((i * 37) % 23) - 11.0f;
    x[9] = std::numeric_limits<float>::quiet_NaN();
    x[17] = -0.0f;
    x[18] = 0.0f;
    std::vector<float> z(8 * 6, -1.0f);
    tl::sim::buffer bx("x", {64}, "float32", 4, x.data(), true);
    tl::sim::buffer bz("z", {48}, "float32", 4, z.data(), false);
    tl::sim::launch_options o;
    o.lane_by_lane = lane_by_lane;
    const auto r = tl::sim::run_grid({1, 1, 1}, o, {&bx, &bz}, [&] {
      auto rows = tl::arange<8>().col();
      auto cols = tl::arange<8>().row();
      auto m = tl::load(tl::ptr<const float>{&bx} + rows * 8 + cols, rows * 8 + cols < 60, 0.0f);
      auto out = tl::ptr<float>{&bz} + tl::arange<8>();
      tl::store(out, tl::max<1>(m));
      tl::store(out + 8, tl::min<1>(m));
      tl::store(out + 16, tl::sum<1>(m));
      tl::store(out + 24, tl::max<0>(m));
      tl::store(out + 32, tl::sum<0>(m));
      tl::store(out + 40, tl::zeros<float, 8>() + (tl::max(m) + tl::sum(m)));
    });
    INFO((r.error ? r.error->message : std::string("clean")));
    REQUIRE_FALSE(r.error.has_value());
    results.push_back(z);
  }
  CHECK(same_bits(results[0], results[1]));
}

TEST_CASE("maximum and minimum over long rows give the lane-by-lane bits in any grouping of "
          "the lanes", "[sim][bulk][reduce]") {
  // Rows of 64 and 32: the bulk path keeps 16 running extremes per row, so NaN, signed zeros and
  // infinities are placed in different groups of 16 and at the ends.
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x(16 * 64);
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>((static_cast<int>(i) * 7919) % 1013) * 0.37f - 180.0f;
  x[0 * 64 + 5] = -0.0f;
  x[0 * 64 + 40] = 0.0f;
  x[1 * 64 + 63] = nan;
  x[2 * 64 + 0] = float_of(0x7fa00001u);  // a signaling NaN's bits
  x[3 * 64 + 17] = inf;
  x[3 * 64 + 18] = -inf;
  for (int i = 0; i < 64; ++i) x[4 * 64 + i] = i % 2 ? -0.0f : 0.0f;
  for (int i = 0; i < 64; ++i) x[5 * 64 + i] = -1.0f - static_cast<float>(i);
  x[6 * 64 + 31] = float_of(0xffc00123u);  // a negative NaN with a payload
  std::vector<std::vector<float>> results;
  for (bool lane_by_lane : {false, true}) {
    std::vector<float> z(4 * 16, -1.0f);
    tl::sim::buffer bx("x", {static_cast<long long>(x.size())}, "float32", 4, x.data(), true);
    tl::sim::buffer bz("z", {static_cast<long long>(z.size())}, "float32", 4, z.data(), false);
    tl::sim::launch_options o;
    o.lane_by_lane = lane_by_lane;
    const auto r = tl::sim::run_grid({1, 1, 1}, o, {&bx, &bz}, [&] {
      auto out = tl::ptr<float>{&bz} + tl::arange<16>();
      auto wide = tl::load(tl::ptr<const float>{&bx} + tl::arange<16>().col() * 64 +
                           tl::arange<64>().row());
      tl::store(out, tl::max<1>(wide));
      tl::store(out + 16, tl::min<1>(wide));
      auto narrow = tl::load(tl::ptr<const float>{&bx} + tl::arange<4>().col() * 64 +
                             tl::arange<32>().row());
      tl::store(tl::ptr<float>{&bz} + 32 + tl::arange<4>(), tl::max<1>(narrow));
      tl::store(tl::ptr<float>{&bz} + 48 + tl::arange<4>(), tl::min<1>(narrow));
    });
    INFO((r.error ? r.error->message : std::string("clean")));
    REQUIRE_FALSE(r.error.has_value());
    results.push_back(z);
  }
  CHECK(same_bits(results[0], results[1]));
}
