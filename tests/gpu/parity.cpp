// GPU parity: the GPU backend computes what the simulator and the references compute. Built
// twice (tests/CMakeLists.txt): against the GPU (label `gpu`; without a GPU the executable says
// why and ctest reports it skipped) and against the host emulation of the same backend
// (cuda/host_emulation.hpp), which runs everywhere, CI included.
//
// For every puzzle built for the GPU: every case and block size of the solution matches the
// reference within the puzzle's tolerance, with outputs poisoned (NaN) before each launch so that
// an element left unwritten fails; the same with every warp count from 1 to 32; a kernel that
// stores nothing fails. For the test kernels (tests/gpu/test_kernels.hpp): the same outputs as
// the simulator, and the semantics docs/tl.md promises.

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "checker/check.hpp"
#include "checker/registry.hpp"
#include "checker/sim_launch.hpp"
#include "tests/gpu/only_where_built.hpp"
#include "tests/gpu/test_kernels.hpp"
#include "tests/kernels/math_expected.hpp"
#include "tests/kernels/random_expected.hpp"
#include "tests/kernels/semantics_expected.hpp"

#ifndef TILEPUZZLES_UNDER_TEST
#error "define TILEPUZZLES_UNDER_TEST (\"the GPU\" or \"the GPU's host emulation\")"
#endif

namespace {

// The kinds of test kernel that the tests below run their own way (tests/kernels/atomics.hpp,
// math.hpp, random.hpp), each named once for the tests that run them and those that count them.
template <class Kernel>
concept atomics_kernel = requires { Kernel::counts_size(1); };
template <class Kernel>
concept math_kernel = requires { Kernel::functions; };
template <class Kernel>
concept random_tile_kernel = requires { Kernel::random_tile; };
template <class Kernel>
concept random_stream_kernel = requires { Kernel::stream_block; };


using tp::gpu_tests::kernels_under_test;
namespace sem = test_kernels::semantics;

const char* const under_test = TILEPUZZLES_UNDER_TEST;

#ifdef TILEPUZZLES_EMULATED
constexpr sem::math gpu_math = sem::math::exact;  // the emulation runs the portable C++ math
// The large tier's cases (test_case::large) are about sizes a kernel could hard-code, which the
// simulator's checks already cover; on the emulation, one fiber per GPU thread, they would take
// the suite from seconds to minutes (17.7 s to 338 s for the warp counts). A GPU runs them.
constexpr bool large_tier_here = false;
#else
constexpr sem::math gpu_math = sem::math::gpu;
constexpr bool large_tier_here = true;
#endif

// The dtype of the kernel entry with these block sizes (float16, bfloat16 or float32).
tp::dtype dtype_of_entry(const tp::puzzle_spec& spec, const std::vector<int>& blocks) {
  for (const auto& k : spec.kernels)
    if (k.blocks == blocks) return k.dtype;
  throw std::logic_error("no kernel entry of " + spec.id + " with these block sizes");
}

// Runs one case of a puzzle through a launcher; the problem found, or empty.
std::string run_case(const tp::puzzle_spec& spec, std::size_t c, const std::vector<int>& blocks,
                     tp::gpu_tests::launcher launch, std::vector<tp::tensor>* outputs = nullptr) {
  const auto element = dtype_of_entry(spec, blocks);
  const auto data = tp::make_case(spec, spec.cases[c], 0, c, element);
  auto tensors = data.tensors;
  for (auto& t : tensors)
    if (t.output) std::fill(t.values.begin(), t.values.end(), NAN);
  tp::launch_request request;
  request.grid = spec.grid(spec.cases[c].sizes, blocks);
  request.tensors = &tensors;
  request.sizes = spec.cases[c].sizes;
  const std::string where = std::string("on ") + under_test + ", case " +
                            tp::case_label(spec, spec.cases[c].sizes, blocks, "", element);
  const std::string error = launch(request);
  if (outputs) *outputs = tensors;
  if (!error.empty()) return where + ": " + error;
  if (auto d = tp::compare_outputs(spec, tensors, data.expected, where)) return d->message;
  return {};
}

const tp::puzzle_spec& spec_of(const std::string& id) {
  const auto* spec = tp::find_puzzle(id);
  if (!spec) throw std::logic_error("no puzzle " + id);
  return *spec;
}

// The tensors of a test kernel: inputs filled with seeded values in [-2, 2) (-2 to 2 with a few
// exact zeros), outputs sized.
struct test_setup {
  std::vector<tp::tensor> tensors;
  std::vector<int> sizes;
};

std::vector<float> seeded(std::size_t n, unsigned seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-2.0f, 2.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = value(random);
  for (std::size_t i = 0; i < n; i += 7) v[i] = 0.0f;
  return v;
}

// Values that test half-precision rounding and special cases: both signs of zero, infinities
// and NaN, the largest finite values, subnormals, ties between neighbours (float16's and
// bfloat16's), values past the largest finite one, then seeded values of every magnitude.
std::vector<float> half_edge_values(std::size_t n, unsigned seed) {
  const float tie16 = std::ldexp(1.0f, -11), tie_b16 = std::ldexp(1.0f, -8);
  std::vector<float> v = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 65504.0f, -65504.0f,
                          65519.0f, 65520.0f, -65520.0f, 1.0f + tie16, 1.0f + 3 * tie16,
                          -(1.0f + tie16), 1.0f + tie_b16, 1.0f + 3 * tie_b16, 2.0f + 2 * tie_b16,
                          std::ldexp(1.0f, -24), std::ldexp(1.0f, -25), std::ldexp(3.0f, -25),
                          std::ldexp(1.0f, -15), std::ldexp(1.5f, -20), 1e-30f, -1e-30f,
                          3.0e38f, -3.3e38f, 1.0f / 3.0f, 300.0f, 1024.5f, 2049.0f, -7.75f, 0.1f};
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-26, 17);
  while (v.size() < n) v.push_back(std::ldexp(mantissa(random), exponent(random)));
  v.resize(n);
  std::shuffle(v.begin() + 8, v.end(), random);
  return v;
}

template <class Kernel>
test_setup setup_for(const std::string& name) {
  test_setup s;
  auto add = [&](const char* tensor, std::vector<float> values, bool output) {
    s.tensors.push_back({tensor, {static_cast<long long>(values.size())}, std::move(values), output});
  };
  (void)name;
  if constexpr (atomics_kernel<Kernel>) {  // tests/kernels/atomics.hpp
    // Three programs, the last with a tail of 3; whole numbers from -5 to 5, so that every sum is
    // exact in any order.
    const int n = 3 * Kernel::block - 3;
    std::vector<float> x(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) x[static_cast<std::size_t>(i)] = static_cast<float>((i * 7) % 11 - 5);
    add("x", x, false);
    add("z", std::vector<float>(static_cast<std::size_t>(Kernel::z_size(n))), true);
    s.tensors.push_back({"counts", {Kernel::counts_size(n)}, {}, true, tp::dtype::int32});
    for (auto* t : {&s.tensors[1], &s.tensors[2]}) t->zeroed = true;
    s.sizes = {n};
  } else if constexpr (math_kernel<Kernel>) {  // tests/kernels/math.hpp
    const auto in = test_kernels::math::make_inputs();
    add("a", in.a, false);
    add("b", in.b, false);
    add("c", in.c, false);
    add("z", std::vector<float>(Kernel::outputs), true);
    s.sizes = {Kernel::tile};
  } else if constexpr (random_tile_kernel<Kernel>) {  // tests/kernels/random.hpp
    constexpr int n = Kernel::random_tile;
    std::vector<std::int32_t> offsets(n);
    for (int i = 0; i < n; ++i) offsets[i] = i * 7919 - 1000;
    s.tensors = {{"offsets", {n}, {}, false, tp::dtype::int32, offsets},
                 {"bits", {n}, {}, true, tp::dtype::int32, std::vector<std::int32_t>(n)},
                 {"uniform", {n}, std::vector<float>(n), true},
                 {"normal", {n}, std::vector<float>(n), true}};
    s.sizes = {n, 42};  // n, seed
  } else if constexpr (random_stream_kernel<Kernel>) {
    constexpr int n = Kernel::stream_block;  // one program
    add("uniform", std::vector<float>(n), true);
    add("normal", std::vector<float>(n), true);
    s.sizes = {n, 42};
  } else if constexpr (requires { typename Kernel::eight_bit; }) {  // tests/kernels/eight_bit.hpp
    constexpr auto bytes = tp::dtype_of<typename Kernel::eight_bit>();
    constexpr int n = Kernel::tile;
    const bool is_signed = bytes == tp::dtype::int8;
    std::vector<std::int32_t> x(n);
    std::vector<float> f(n);
    for (int i = 0; i < n; ++i) {
      x[i] = is_signed ? (i * 37) % 256 - 128 : (i * 37) % 256;
      // Whole and fractional, both signs, up to +-1000: the casts' truncation and low 8 bits.
      f[i] = static_cast<float>((i * 7919) % 2001 - 1000) + static_cast<float>(i % 8) * 0.125f;
    }
    s.tensors = {{"x", {n}, {}, false, bytes, x},
                 {"f", {n}, f, false},
                 {"b", {Kernel::byte_outputs * n}, {}, true, bytes},
                 {"z", {Kernel::int_outputs * n}, {}, true, tp::dtype::int32}};
    s.sizes = {n - 5};  // a masked tail: the last 16 bytes are not a whole vector
  } else if constexpr (requires { typename Kernel::element; }) {  // tests/kernels/half.hpp
    constexpr auto half = tp::dtype_of<typename Kernel::element>();
    constexpr int n = Kernel::tile;
    add("x", half_edge_values(n, 4), false);
    add("y", half_edge_values(n, 5), false);
    add("f", half_edge_values(n, 6), false);
    add("h", std::vector<float>(Kernel::half_outputs * n), true);
    add("z", std::vector<float>(Kernel::float_outputs * n), true);
    for (auto* t : {&s.tensors[0], &s.tensors[1], &s.tensors[3]}) t->dtype = half;
    s.sizes = {n - 5};  // a masked tail: the last group of 8 is not a whole vector
  } else if constexpr (requires { Kernel::slices; Kernel::outputs; } && !requires { Kernel::tile; }) {
    constexpr int n = (Kernel::outputs - 1) / Kernel::slices;
    add("x", seeded(n, 1), false);
    add("z", std::vector<float>(Kernel::outputs), true);
    s.sizes = {n};
  } else if constexpr (requires { Kernel::rows; }) {
    const auto in = sem::make_inputs();
    add("a", in.a, false);
    add("b", in.b, false);
    add("z", std::vector<float>(Kernel::outputs), true);
    s.sizes = {sem::N};
  } else if constexpr (requires { typename Kernel::operand; }) {  // half operands of a dot
    // Whole numbers from -16 to 16: exact in float16 and bfloat16, and every product's sum exact.
    auto whole = [](std::vector<float> v) {
      for (auto& x : v) x = std::round(x * 8.0f);
      return v;
    };
    add("x", whole(seeded(Kernel::tile, 2)), false);
    add("y", whole(seeded(Kernel::tile, 3)), false);
    add("z", std::vector<float>(Kernel::outputs), true);
    for (auto* t : {&s.tensors[0], &s.tensors[1]}) t->dtype = tp::dtype_of<typename Kernel::operand>();
    s.sizes = {Kernel::kdim};
  } else {
    add("x", seeded(Kernel::tile, 2), false);
    add("y", seeded(Kernel::tile, 3), false);
    add("z", std::vector<float>(Kernel::outputs), true);
    s.sizes = {Kernel::tile};
  }
  return s;
}

bool close(float got, float want) {
  if (std::isnan(want)) return std::isnan(got);
  return std::fabs(got - want) <= 1e-5f * std::fabs(want) + 1e-5f;
}

// Runs a test kernel on the same inputs in the simulator (its tensors in `sim`) and on the
// backend under test (in `gpu`); what failed, empty when both ran.
template <class Kernel>
std::string run_on_both(const std::string& name, test_setup& sim, test_setup& gpu) {
  sim = setup_for<Kernel>(name);
  gpu = sim;
  tp::launch_request request;
  request.tensors = &sim.tensors;
  request.sizes = sim.sizes;
  const auto run = tp::sim_launch<Kernel>(request, {});
  if (run.result.error) return "the simulator: " + run.result.error->message;
  const auto& table = kernels_under_test().tests;
  const auto it = table.find(name);
  if (it == table.end()) return "no kernel " + name + " on " + under_test;
  request.tensors = &gpu.tensors;
  return it->second(request);
}

// Runs a test kernel in the simulator and on the backend under test; the elements that differ.
template <class Kernel>
std::vector<std::string> compare_with_simulator(const std::string& name,
                                                std::vector<float>* gpu_z = nullptr) {
  test_setup sim, gpu;
  if (auto error = run_on_both<Kernel>(name, sim, gpu); !error.empty()) return {error};
  std::vector<std::string> wrong;
  const auto& want = sim.tensors.back().values;
  const auto& got = gpu.tensors.back().values;
  for (std::size_t i = 0; i < want.size() && wrong.size() < 8; ++i)
    if (!close(got[i], want[i])) {
      std::ostringstream s;
      s << name << ": z[" << i << "] is " << got[i] << " on " << under_test << ", "
        << want[i] << " in the simulator";
      wrong.push_back(s.str());
    }
  if (gpu_z) *gpu_z = got;
  return wrong;
}

}  // namespace

TEST_CASE("every GPU-capable puzzle's solution matches the reference, every case and block size",
          "[gpu]") {
  int runs = 0;
  for (const auto& [key, launch] : kernels_under_test().solutions) {
    const auto& [id, blocks] = key;
    const auto& spec = spec_of(id);
    for (std::size_t c = 0; c < spec.cases.size(); ++c) {
      if (!spec.runs(spec.cases[c].sizes, blocks)) continue;
      if (spec.cases[c].large && !large_tier_here) continue;
      const std::string problem = run_case(spec, c, blocks, launch);
      INFO(problem);
      CHECK(problem.empty());
      ++runs;
    }
  }
  CHECK(runs >= 16 * 2 * 2);  // sixteen puzzles, two block sizes, two or more cases each
}

TEST_CASE("the solutions give the same results with every number of warps from 1 to 32",
          "[gpu][warps]") {
  std::set<int> warp_counts;
  std::map<std::string, std::set<int>> counts_of_puzzle;
  for (const auto& [key, launch] : kernels_under_test().solutions_by_warps) {
    const auto& [id, blocks, warps] = key;
    const auto& spec = spec_of(id);
    warp_counts.insert(warps);
    counts_of_puzzle[id].insert(warps);
    for (std::size_t c = 0; c < spec.cases.size(); ++c) {
      if (!spec.runs(spec.cases[c].sizes, blocks)) continue;
      if (spec.cases[c].large && !large_tier_here) continue;
      const std::string problem = run_case(spec, c, blocks, launch);
      INFO(warps << " warps: " << problem);
      CHECK(problem.empty());
    }
  }
  // Every count this executable was built for: 1 to 32 but for a GPU test build without a GPU
  // (TILEPUZZLES_GPU_TEST_WARPS in tests/CMakeLists.txt), whose tests are skipped.
  CHECK(warp_counts == std::set<int>{TILEPUZZLES_WARP_COUNTS});
  // And every puzzle's solution with each of them (with some of its block sizes at least); in the
  // host emulation, with two other counts than its own (runs_with_other_warps in kernels.inc), or
  // one where a block size does not fit one warp.
  for (const auto& [key, launch] : kernels_under_test().solutions) {
    INFO(std::get<0>(key));
#ifdef TILEPUZZLES_EMULATED
    CHECK(counts_of_puzzle[std::get<0>(key)].size() >= 2);
#else
    CHECK(counts_of_puzzle[std::get<0>(key)] == warp_counts);
#endif
  }
}

TEST_CASE("a kernel that stores nothing, as the shipped stubs do, leaves its outputs poisoned, "
          "which is reported",
          "[gpu]") {
  int runs = 0;
  for (const auto& [key, launch] : kernels_under_test().storing_nothing) {
    const auto& [id, blocks] = key;
    const auto& spec = spec_of(id);
    std::size_t c = 0;
    while (c + 1 < spec.cases.size() && !spec.runs(spec.cases[c].sizes, blocks)) ++c;
    const std::string problem = run_case(spec, c, blocks, launch);
    INFO(id << ": " << problem);
    // Poisoned outputs are reported, not passed: a float output as NaN. An int32 output's poison
    // is INT_MIN and an output the checker zeroes (a histogram's bins) stays 0: there the report
    // is the wrong result itself.
    bool float_poison = true;
    for (const auto& t : spec.tensors)
      if (t.output && (t.zeroed || (t.dtype && tp::holds_ints(*t.dtype)))) float_poison = false;
    if (float_poison) CHECK_THAT(problem, Catch::Contains("NaN"));
    else CHECK_THAT(problem, Catch::StartsWith("wrong-result"));
    ++runs;
  }
  CHECK(runs >= 16 * 2);
}

TEST_CASE("the puzzles built for the GPU are every puzzle CMakeLists.txt marks GPU", "[gpu]") {
  std::set<std::string> tested;
  for (const auto& [key, launch] : kernels_under_test().solutions) tested.insert(std::get<0>(key));
  std::set<std::string> marked;
  std::istringstream list(TILEPUZZLES_GPU_IDS);
  for (std::string id; std::getline(list, id, ',');) marked.insert(id);
  CHECK(tested == marked);
  for (const auto* spec : tp::all_puzzles()) {
    INFO(spec->id);
    CHECK(marked.count(spec->id) == (spec->not_on_gpu_because.empty() ? 1u : 0u));
  }
}

TEST_CASE("kernels that use every tl operation and every layout conversion give the simulator's "
          "results",
          "[gpu][layouts]") {
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if (std::string(name).rfind("semantics", 0) == 0) return;
    if constexpr (requires { typename Kernel::element; }) return;  // bit for bit, below
    if constexpr (requires { typename Kernel::eight_bit; }) return;  // bit for bit, below
    if constexpr (math_kernel<Kernel>) return;         // bit for bit, below
    if constexpr (atomics_kernel<Kernel>) return;    // across programs, below
    if constexpr (random_tile_kernel<Kernel>) return;       // bit for bit, below
    if constexpr (random_stream_kernel<Kernel>) return;      // bit for bit, below
    const auto wrong = compare_with_simulator<Kernel>(name);
    for (const auto& w : wrong) UNSCOPED_INFO(w);
    INFO(name);
    CHECK(wrong.empty());
  }));
}

TEST_CASE("NaN, signed zeros, exp, exp2, division and wrapped integers follow docs/tl.md",
          "[gpu][semantics]") {
  const auto in = sem::make_inputs();
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if (std::string(name).rfind("semantics", 0) != 0) return;
    auto setup = setup_for<Kernel>(name);
    tp::launch_request request;
    request.tensors = &setup.tensors;
    request.sizes = setup.sizes;
    const auto launch = kernels_under_test().tests.at(name);
    const std::string error = launch(request);
    INFO(error);
    REQUIRE(error.empty());
    const auto wrong = sem::mismatches(in, setup.tensors.back().values, gpu_math);
    for (const auto& w : wrong) UNSCOPED_INFO(w);
    INFO(name);
    CHECK(wrong.empty());
  }));
}

TEST_CASE("tl's math functions give the simulator's bits and follow docs/tl.md", "[gpu][math]") {
  const auto in = test_kernels::math::make_inputs();
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if constexpr (math_kernel<Kernel>) {
      ++kernels;
      test_setup sim, gpu;
      const std::string error = run_on_both<Kernel>(name, sim, gpu);
      INFO(name);
      INFO(error);
      REQUIRE(error.empty());
      const auto& want = sim.tensors.back().values;
      const auto& got = gpu.tensors.back().values;
      int differ = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        if (!test_kernels::math::same_float(got[i], want[i]) && ++differ <= 8)
          UNSCOPED_INFO("z[" << i << "] is " << got[i] << " on " << under_test << ", " << want[i]
                             << " in the simulator");
      CHECK(differ == 0);
      const auto wrong = test_kernels::math::mismatches(in, got);
      for (const auto& w : wrong) UNSCOPED_INFO(w);
      CHECK(wrong.empty());
    }
  }));
  const auto n = tp::gpu_tests::count_test_kernels(
      []<class Kernel>(std::string_view) { return math_kernel<Kernel>; });
  CHECK(n.listed == 2);
  CHECK(kernels == n.built);
}

namespace {

// A random-number kernel's outputs on the backend under test: RandomNumbers at the known answers'
// offsets for `seed` (int32 bits, then rand's and randn's floats), or RandomStream over n
// offsets (rand's floats, then randn's).
template <class Kernel>
std::string draw_on_backend(const char* name, int seed, const std::vector<int>& offsets, int n,
                            std::vector<tp::tensor>& tensors) {
  tp::launch_request request;
  if constexpr (random_tile_kernel<Kernel>) {
    n = static_cast<int>(offsets.size());
    tensors = {{"offsets", {n}, {}, false, tp::dtype::int32, offsets},
               {"bits", {n}, {}, true, tp::dtype::int32, std::vector<std::int32_t>(n)},
               {"uniform", {n}, std::vector<float>(n), true},
               {"normal", {n}, std::vector<float>(n), true}};
  } else {
    tensors = {{"uniform", {n}, std::vector<float>(n), true},
               {"normal", {n}, std::vector<float>(n), true}};
    request.grid = {(n + Kernel::stream_block - 1) / Kernel::stream_block, 1, 1};
  }
  request.tensors = &tensors;
  request.sizes = {n, seed};
  return kernels_under_test().tests.at(name)(request);
}

}  // namespace

TEST_CASE("tl::randint, tl::rand and tl::randn give the simulator's bits, which are Triton's",
          "[gpu][random]") {
  namespace ka = test_kernels::random;
  std::set<int> seeds;
  for (const auto& k : ka::known_answers) seeds.insert(k.seed);
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if constexpr (random_tile_kernel<Kernel>) {
      ++kernels;
      for (int seed : seeds) {
        std::vector<int> offsets;
        std::vector<const ka::known_answer*> want;
        for (const auto& k : ka::known_answers)
          if (k.seed == seed && static_cast<int>(offsets.size()) < Kernel::random_tile) {
            offsets.push_back(k.offset);
            want.push_back(&k);
          }
        std::vector<tp::tensor> t;
        const std::string error = draw_on_backend<Kernel>(name, seed, offsets, 0, t);
        INFO(name << ", seed " << seed);
        REQUIRE(error.empty());
        for (std::size_t i = 0; i < offsets.size(); ++i) {
          INFO("offset " << offsets[i] << " on " << under_test);
          CHECK(static_cast<std::uint32_t>(t[1].ints[i]) == want[i]->randint);
          CHECK(std::bit_cast<std::uint32_t>(t[2].values[i]) == want[i]->rand_bits);
          CHECK(std::bit_cast<std::uint32_t>(t[3].values[i]) == want[i]->randn_bits);
        }
      }
    } else if constexpr (random_stream_kernel<Kernel>) {
      ++kernels;
      // Every offset of several programs, against the simulator's lanes.
      const int n = 3000, seed = -12345;
      std::vector<tp::tensor> t;
      const std::string error = draw_on_backend<Kernel>(name, seed, {}, n, t);
      INFO(name);
      REQUIRE(error.empty());
      int differ = 0;
      for (int i = 0; i < n; ++i) {
        const float u = tl::lanes::random_uniform(seed, i), g = tl::lanes::random_normal(seed, i);
        if ((std::bit_cast<std::uint32_t>(t[0].values[i]) != std::bit_cast<std::uint32_t>(u) ||
             std::bit_cast<std::uint32_t>(t[1].values[i]) != std::bit_cast<std::uint32_t>(g)) &&
            ++differ <= 8)
          UNSCOPED_INFO("offset " << i << ": rand " << t[0].values[i] << ", randn "
                                  << t[1].values[i] << " on " << under_test << "; " << u << ", "
                                  << g << " in the simulator");
      }
      CHECK(differ == 0);
    }
  }));
  const auto n = tp::gpu_tests::count_test_kernels([]<class Kernel>(std::string_view) {
    return random_tile_kernel<Kernel> || random_stream_kernel<Kernel>;
  });
  CHECK(n.listed == 4);
  CHECK(kernels == n.built);
}

TEST_CASE("float16 and bfloat16 tiles: loads, stores, casts, arithmetic and NaN give the "
          "simulator's bits",
          "[gpu][half]") {
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if constexpr (requires { typename Kernel::element; }) {
      ++kernels;
      test_setup sim, gpu;
      const std::string error = run_on_both<Kernel>(name, sim, gpu);
      INFO(name);
      INFO(error);
      REQUIRE(error.empty());
      // The inputs went in rounded, so both saw the same bits; lanes masked off stay NaN on both.
      std::vector<std::string> wrong;
      for (std::size_t t = 0; t < sim.tensors.size(); ++t) {
        if (!sim.tensors[t].output) continue;
        const auto& want = sim.tensors[t].values;
        const auto& got = gpu.tensors[t].values;
        REQUIRE(got.size() == want.size());
        const std::size_t per_slice = static_cast<std::size_t>(Kernel::tile);
        for (std::size_t i = 0; i < want.size() && wrong.size() < 12; ++i) {
          const bool same = std::isnan(want[i]) ? std::isnan(got[i])
                                                : std::bit_cast<std::uint32_t>(want[i]) ==
                                                      std::bit_cast<std::uint32_t>(got[i]);
          if (!same) {
            std::ostringstream m;
            m << sim.tensors[t].name << "[" << i << "] (slice " << i / per_slice << ", input "
              << sim.tensors[0].values[i % per_slice] << ", " << sim.tensors[1].values[i % per_slice]
              << ", " << sim.tensors[2].values[i % per_slice] << ") is " << got[i] << " on "
              << under_test << ", " << want[i] << " in the simulator";
            wrong.push_back(m.str());
          }
        }
      }
      for (const auto& w : wrong) UNSCOPED_INFO(w);
      CHECK(wrong.empty());
    }
  }));
  const auto n = tp::gpu_tests::count_test_kernels(
      []<class Kernel>(std::string_view) { return requires { typename Kernel::element; }; });
  CHECK(n.listed == 4);
  CHECK(kernels == n.built);
}

TEST_CASE("int8 and uint8 tiles: byte loads and stores, int32 arithmetic and casts give the "
          "simulator's values",
          "[gpu][semantics]") {
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if constexpr (requires { typename Kernel::eight_bit; }) {
      ++kernels;
      test_setup sim, gpu;
      const std::string error = run_on_both<Kernel>(name, sim, gpu);
      INFO(name);
      INFO(error);
      REQUIRE(error.empty());
      std::vector<std::string> wrong;
      for (std::size_t t = 0; t < sim.tensors.size(); ++t) {
        if (!sim.tensors[t].output) continue;
        const auto& want = sim.tensors[t].ints;
        const auto& got = gpu.tensors[t].ints;
        REQUIRE(got.size() == want.size());
        const std::size_t per_slice = static_cast<std::size_t>(Kernel::tile);
        for (std::size_t i = 0; i < want.size() && wrong.size() < 12; ++i) {
          // Lanes masked off are never written: poisoned on the GPU, unwritten in the simulator.
          if (i % per_slice >= static_cast<std::size_t>(sim.sizes[0])) continue;
          if (got[i] != want[i]) {
            std::ostringstream m;
            m << sim.tensors[t].name << "[" << i << "] (slice " << i / per_slice << ", input "
              << sim.tensors[0].ints[i % per_slice] << ", " << sim.tensors[1].values[i % per_slice]
              << ") is " << got[i] << " on " << under_test << ", " << want[i]
              << " in the simulator";
            wrong.push_back(m.str());
          }
        }
      }
      for (const auto& w : wrong) UNSCOPED_INFO(w);
      CHECK(wrong.empty());
      // The simulator's own values, by hand, on one lane: x = -128 (int8) or 128 (uint8) at i = 8.
      const auto& b = sim.tensors[2].ints;
      const int x8 = sim.tensors[0].ints[8];
      const int wrapped = static_cast<typename Kernel::eight_bit>(x8 * 3 + 1);
      CHECK(b[Kernel::tile + 8] == wrapped);
      CHECK(sim.tensors[3].ints[8] == x8 * x8 - x8 * 1000);
    }
  }));
  const auto n = tp::gpu_tests::count_test_kernels(
      []<class Kernel>(std::string_view) { return requires { typename Kernel::eight_bit; }; });
  CHECK(n.listed == 3);
  CHECK(kernels == n.built);
}

TEST_CASE("loads in a pipelined tl::range give the bits of the same loads in a plain loop, with "
          "2, 3 and 4 stages",
          "[gpu][pipeline]") {
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if constexpr (requires { Kernel::pipelined_half; }) {
      ++kernels;
      auto setup = setup_for<Kernel>(name);
      tp::launch_request request;
      request.tensors = &setup.tensors;
      request.sizes = setup.sizes;
      const std::string error = kernels_under_test().tests.at(name)(request);
      INFO(name);
      REQUIRE(error.empty());
      const auto& z = setup.tensors.back().values;
      std::vector<std::string> wrong;
      for (int i = 0; i < Kernel::pipelined_half && wrong.size() < 8; ++i)
        if (std::bit_cast<std::uint32_t>(z[i]) !=
            std::bit_cast<std::uint32_t>(z[i + Kernel::pipelined_half])) {
          std::ostringstream m;
          m << "computation " << i / (Kernel::pipelined_half / Kernel::computations) << ", z[" << i
            << "]: " << z[i] << " pipelined, " << z[i + Kernel::pipelined_half] << " in a plain loop";
          wrong.push_back(m.str());
        }
      for (const auto& w : wrong) UNSCOPED_INFO(w);
      CHECK(wrong.empty());
    }
  }));
  const auto n = tp::gpu_tests::count_test_kernels(
      []<class Kernel>(std::string_view) { return requires { Kernel::pipelined_half; }; });
  CHECK(n.listed == 12);
  CHECK(kernels == n.built);
}

TEST_CASE("blocks moved through tensor descriptors give the simulator's bits: zeros outside the "
          "shape, nothing written past it",
          "[gpu][descriptor]") {
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if (std::string(name).rfind("descriptors", 0) != 0) return;
    ++kernels;
    test_setup sim, gpu;
    const std::string error = run_on_both<Kernel>(name, sim, gpu);
    INFO(name);
    REQUIRE(error.empty());
    const auto& want = sim.tensors.back().values;
    const auto& got = gpu.tensors.back().values;
    REQUIRE(got.size() == want.size());
    std::vector<std::string> wrong;
    for (std::size_t i = 0; i < want.size() && wrong.size() < 8; ++i)
      if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(want[i])) {
        std::ostringstream m;
        m << "z[" << i << "] is " << got[i] << " on " << under_test << ", " << want[i]
          << " in the simulator";
        wrong.push_back(m.str());
      }
    for (const auto& w : wrong) UNSCOPED_INFO(w);
    CHECK(wrong.empty());
  }));
  const auto n = tp::gpu_tests::count_test_kernels([]<class Kernel>(std::string_view name) {
    return name.starts_with("descriptors");
  });
  CHECK(n.listed == 3);
  CHECK(kernels == n.built);
}

TEST_CASE("atomics of several programs give the simulator's results: sums, maxima and minima with "
          "NaN, counts, exchanges, compare-and-swap and the old values",
          "[gpu][atomics]") {
  int kernels = 0;
  tp::gpu_tests::for_each_test_kernel(
      tp::gpu_tests::only_where_built([&]<class Kernel>(const char* name) {
    if constexpr (atomics_kernel<Kernel>) {
      ++kernels;
      auto sim = setup_for<Kernel>(name);
      auto gpu = sim;
      tp::launch_request request;
      request.grid = {3, 1, 1};
      request.sizes = sim.sizes;
      request.tensors = &sim.tensors;
      const auto run = tp::sim_launch<Kernel>(request, {});
      INFO(name);
      INFO((run.result.error ? run.result.error->message : std::string()));
      REQUIRE_FALSE(run.result.error.has_value());
      request.tensors = &gpu.tensors;
      const std::string error = kernels_under_test().tests.at(name)(request);
      INFO(error);
      REQUIRE(error.empty());
      std::vector<std::string> wrong;
      const auto& want = sim.tensors[1].values;
      const auto& got = gpu.tensors[1].values;
      for (std::size_t i = 0; i < want.size() && wrong.size() < 8; ++i)
        if (!close(got[i], want[i])) {
          std::ostringstream m;
          m << "z[" << i << "] is " << got[i] << " on " << under_test << ", " << want[i]
            << " in the simulator";
          wrong.push_back(m.str());
        }
      const auto& want_counts = sim.tensors[2].ints;
      const auto& got_counts = gpu.tensors[2].ints;
      for (std::size_t i = 0; i < want_counts.size() && wrong.size() < 16; ++i)
        if (got_counts[i] != want_counts[i]) {
          std::ostringstream m;
          m << "counts[" << i << "] is " << got_counts[i] << " on " << under_test << ", "
            << want_counts[i] << " in the simulator";
          wrong.push_back(m.str());
        }
      for (const auto& w : wrong) UNSCOPED_INFO(w);
      CHECK(wrong.empty());
    }
  }));
  const auto n = tp::gpu_tests::count_test_kernels(
      []<class Kernel>(std::string_view) { return atomics_kernel<Kernel>; });
  CHECK(n.listed == 4);
  CHECK(kernels == n.built);
}
