// Known-wrong kernels fail with the right diagnostic kind, and each one's correct twin passes
// through the same path, so a failure here is about the bug and not about how it was checked.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <csignal>
#include <regex>
#include <string>
#include <vector>

#include "checker/specs/flash_attention_simple.hpp"
#include "checker/specs/long_softmax_2loop.hpp"
#include "checker/specs/long_softmax_3loop.hpp"
#include "checker/specs/matmul.hpp"
#include "checker/specs/vector_add.hpp"
#include "checker/check.hpp"
#include "checker/isolate.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "checker/spec.hpp"
#include "check_as_puzzle.hpp"
#include "corpus.hpp"
#include "solutions/flash_attention_simple.hpp"
#include "solutions/long_softmax_2loop.hpp"
#include "solutions/long_softmax_3loop.hpp"
#include "solutions/matmul.hpp"
#include "solutions/vector_add.hpp"
#include "tests/kernels/flawed.hpp"
#include "tests/kernels/rows.hpp"

// ---------------------------------------------------------------------------------------------
// The wrong kernels, with the puzzles' signatures.

namespace wrong {

// Vector add with no mask: the last program reads and writes past the end.
template <int B0>
struct VectorAddWithoutMask {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto a = tl::load(x + offsets);  // x first, on its own line: the first access to go wrong
    auto b = tl::load(y + offsets);
    tl::store(z + offsets, a + b);
  }
};

// Vector add that leaves the last lane of every block alone.
template <int B0>
struct VectorAddSkippingLastLane {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = (offsets < N0) & (tl::arange<B0>() < B0 - 1);
    auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
    tl::store(z + offsets, sum, mask);
  }
};

// Computes x - y where x + y is asked for.
template <int B0>
struct VectorSubtract {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto a = tl::load(x + offsets, mask);
    auto b = tl::load(y + offsets, mask);
    tl::store(z + offsets, a - b, mask);
  }
};

// Blocks that overlap by half: program i covers [i * B0 / 2, i * B0 / 2 + B0).
template <int B0>
struct VectorAddOverlappingBlocks {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * (B0 / 2) + tl::arange<B0>();
    auto mask = offsets < N0;
    auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
    tl::store(z + offsets, sum, mask);
  }
};

// Each pair of lanes stores through the pair's first offset (offsets / 2 * 2): lanes 2k and
// 2k + 1 of one store write one element.
template <int B0>
struct VectorAddStoringInPairs {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
    tl::store(z + offsets / 2 * 2, sum, mask);
  }
};

// A vector add with a loop around it; with Step = 0 the loop never ends.
template <int B0, int Step>
void add_in_a_loop(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0) {
  auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
  auto mask = offsets < N0;
  tl::tile<float, B0> sum = 0.0f;
  for (int trip = 0; trip < 1; trip += Step)
    sum = tl::load(x + offsets, mask, 0.0f) + tl::load(y + offsets, mask, 0.0f);
  tl::store(z + offsets, sum, mask);
}

template <int B0>
struct VectorAddEndlessLoop {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    add_in_a_loop<B0, 0>(x, y, z, N0);
  }
};

template <int B0>
struct VectorAddOneTripLoop {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    add_in_a_loop<B0, 1>(x, y, z, N0);
  }
};

// A correct vector add, except that program 2 does something no tile operation can check.
enum class mishap { none, raise_sigsegv, null_dereference, spin_forever, close_and_sleep };

template <int B0, mishap What>
void add_with_mishap(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int N0) {
  auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
  auto mask = offsets < N0;
  auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
  if (tl::program_id(0) == 2) {
    if constexpr (What == mishap::raise_sigsegv) {
      std::raise(SIGSEGV);
    } else if constexpr (What == mishap::null_dereference) {
      volatile int* volatile nowhere = nullptr;  // volatile twice: the store must happen
      *nowhere = 42;
    } else if constexpr (What == mishap::spin_forever) {
      volatile bool forever = true;
      while (forever) {
      }
    } else if constexpr (What == mishap::close_and_sleep) {
      // The report's descriptor closed, as if the check had ended, then a wait that takes no CPU.
      for (int fd = 3; fd < 1024; ++fd) ::close(fd);
      ::sleep(20);
    }
  }
  tl::store(z + offsets, sum, mask);
}

template <mishap What>
struct with_mishap {
  template <int B0>
  struct VectorAdd {
    static constexpr int num_warps = 4;
    TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                              int N0) const {
      add_with_mishap<B0, What>(x, y, z, N0);
    }
  };
};

// Softmax in two loops that exponentiates x as it is: exp overflows on large inputs.
template <int B0, int B1>
struct SoftmaxWithoutMax {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<float> z, int N0, int T) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    tl::tile<float, B0> row_sum = 0.0f;
    for (int j = 0; j < T; j += B1)
      row_sum = row_sum + tl::sum<1>(tl::exp(rows::load_block<B1>(x, rows, j, N0, T, -INFINITY)));
    // No maximum to subtract: the last pass divides exp(x - 0) by the sum.
    rows::store_softmax<B1>(x, z, rows, N0, T, T, tl::tile<float, B0>(0.0f), row_sum);
  }
};

// The flash attention solution, except that it loads each block of k twice.
template <int B0, int B1>
struct FlashAttentionLoadingKTwice {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> z, int N0, int T) const {
    flawed::attention<B0, B1, true, true, /*LoadKeysTwice=*/true>(q, k, v, z, N0, T);
  }
};

// The matmul solution, except that it loads each tile of x twice per step along MID.
template <int B0, int B1, int B_MID>
struct MatmulLoadingXTwice {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0, int N1, int N2, int MID) const {
    flawed::matmul<B0, B1, B_MID, true, true, /*LoadXTwice=*/true>(x, y, z, N0, N1, N2, MID);
  }
};

}  // namespace wrong

// ---------------------------------------------------------------------------------------------

using namespace as_puzzle;

namespace {

// While alive, a handler for `sig` that makes the process exit with status 77. A child of this
// process that still ran it when its kernel crashed would say "exited with status 77" instead of
// dying of the signal: the checker must give its child the default action, so that the host's own
// crash handlers (Catch2's among them) never run inside the sandbox.
class exit_77_on_signal {
 public:
  explicit exit_77_on_signal(int sig) : sig_(sig) {
    struct sigaction action {};
    action.sa_handler = [](int) { ::_exit(77); };
    sigemptyset(&action.sa_mask);
    ::sigaction(sig_, &action, &saved_);
  }
  ~exit_77_on_signal() { ::sigaction(sig_, &saved_, nullptr); }
  exit_77_on_signal(const exit_77_on_signal&) = delete;
  exit_77_on_signal& operator=(const exit_77_on_signal&) = delete;

 private:
  int sig_;
  struct sigaction saved_ {};
};

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("A 3-loop softmax submitted for the 2-loop puzzle breaks its efficiency budget",
          "[known-wrong]") {
  SECTION("the 3-loop solution reads each x element 3 times where 2 are allowed") {
    const auto spec =
        puzzle_with<solutions::LongSoftmax3Loop, tp::bindings::long_softmax_2loop>(
            "long-softmax-2loop");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "efficiency-budget");
    CHECK_THAT(d.message, Catch::Contains("read 3 times"));
    CHECK_THAT(d.message, Catch::Contains("at most 2"));
    CHECK(tp::report_line(report).find("efficiency-budget") != std::string::npos);
    // It names the three lines that load x, as often as each other, in the order they ran.
    const std::string file = "solutions/long_softmax_3loop.hpp";
    const long long each = report.counters.at(0).loads / 3;
    const auto loads = [&](const std::string& line_after) {
      return "line " + std::to_string(as_puzzle::line_of(file, line_after) - 1) + " loads x " +
             std::to_string(each) + (each == 1 ? " time" : " times") + " in all";
    };
    CHECK_THAT(d.message,
               Catch::Contains("By line: " +
                               loads("row_max = tl::maximum(row_max, tl::max<1>(block));") + "; " +
                               loads("row_sum = row_sum + tl::sum<1>(") + "; " +
                               loads("auto softmax = tl::exp(") + " (" + file + ")."));
  }
  SECTION("its twin, the 2-loop solution, passes the same puzzle") {
    const auto spec =
        puzzle_with<solutions::LongSoftmax2Loop, tp::bindings::long_softmax_2loop>(
            "long-softmax-2loop");
    CHECK(check(spec).status == tp::status::solved);
  }
  SECTION("and the 3-loop solution passes its own puzzle") {
    const auto spec =
        puzzle_with<solutions::LongSoftmax3Loop, tp::bindings::long_softmax_3loop>(
            "long-softmax-3loop");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("A vector add without a mask is reported out of bounds in the last program",
          "[known-wrong]") {
  SECTION("on the puzzle's own cases") {
    const auto spec = puzzle_with<wrong::VectorAddWithoutMask, tp::bindings::vector_add>(
        "vector-add");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    const int last_program = (report.sizes[0] + report.blocks[0] - 1) / report.blocks[0] - 1;
    CHECK(d.program == std::array<int, 3>{last_program, 0, 0});
    CHECK_FALSE(d.lanes.empty());
    CHECK_THAT(d.source, Catch::Contains("tests/known_wrong.cpp:"));
  }
  SECTION("with several programs, the lanes past the end are listed") {
    auto spec = puzzle_with<wrong::VectorAddWithoutMask, tp::bindings::vector_add>("vector-add");
    spec.cases = {{100}};  // B0 = 32 first: 4 programs, the last covers 96..127
    tp::check_options options;
    options.orders = {tl::sim::order::forward};
    const auto report = check(spec, options);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "out-of-bounds");
    CHECK(d.buffer == "x");
    CHECK(d.program == std::array<int, 3>{3, 0, 0});
    REQUIRE(d.lanes.size() == 4);  // the first few of the 28
    for (std::size_t i = 0; i < d.lanes.size(); ++i) {
      CHECK(d.lanes[i].lane == 4 + static_cast<long long>(i));
      CHECK(d.lanes[i].offset == 100 + static_cast<long long>(i));
      CHECK(d.lanes[i].coords == std::vector<int>{4 + static_cast<int>(i)});
    }
    CHECK_THAT(d.message, Catch::Contains("program (3, 0, 0)"));
    CHECK_THAT(d.message, Catch::Contains("28 lanes"));
    CHECK_THAT(d.message, Catch::Contains("offset 100"));
    CHECK_THAT(d.message, Catch::Contains("N0=100, B0=32"));
  }
  SECTION("its twin with the mask passes") {
    const auto spec = puzzle_with<solutions::VectorAdd, tp::bindings::vector_add>("vector-add");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("A softmax that does not subtract the row maximum overflows into NaN or Inf",
          "[known-wrong]") {
  SECTION("on the 2-loop puzzle it fails with nan-inf") {
    const auto spec =
        puzzle_with<wrong::SoftmaxWithoutMax, tp::bindings::long_softmax_2loop>(
            "long-softmax-2loop");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "nan-inf");
    CHECK(d.buffer == "z");
    CHECK_THAT(d.message, Catch::Contains("NaN or infinite"));
    CHECK_THAT(d.message, Catch::Contains("Subtract the row's maximum"));
    // The kernel itself ran cleanly: it is the values that are wrong.
    CHECK(report.counters.at(1).stores > 0);
  }
  SECTION("on the 3-loop puzzle, whose read budget it keeps, it fails with nan-inf too") {
    const auto spec =
        puzzle_with<wrong::SoftmaxWithoutMax, tp::bindings::long_softmax_3loop>(
            "long-softmax-3loop");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "nan-inf");
    CHECK(d.buffer == "z");
  }
  SECTION("its twin, which subtracts the maximum, passes") {
    const auto spec =
        puzzle_with<solutions::LongSoftmax2Loop, tp::bindings::long_softmax_2loop>(
            "long-softmax-2loop");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("A vector add that skips the last lane of each block leaves output unwritten",
          "[known-wrong]") {
  SECTION("it fails with unwritten-output on z") {
    const auto spec = puzzle_with<wrong::VectorAddSkippingLastLane, tp::bindings::vector_add>(
        "vector-add");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK(d.buffer == "z");
    // The first case long enough to reach a block's last lane is N0 = 100 with B0 = 32.
    CHECK(report.sizes == std::vector<int>{100});
    CHECK(report.blocks == std::vector<int>{32});
    CHECK_THAT(d.message, Catch::Contains("3 of 100 elements of z were never written"));
    CHECK_THAT(d.message, Catch::Contains("z[31] z[63] z[95]"));
  }
  SECTION("its twin, which writes every lane, passes") {
    const auto spec = puzzle_with<solutions::VectorAdd, tp::bindings::vector_add>("vector-add");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("A kernel that computes x - y instead of x + y fails with the worst elements listed",
          "[known-wrong]") {
  const auto spec = puzzle_with<wrong::VectorSubtract, tp::bindings::vector_add>("vector-add");
  SECTION("on the puzzle's own cases") {
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "z");
    CHECK_THAT(d.message, Catch::Contains("The worst:"));
    CHECK_THAT(d.message, Catch::Contains("# = wrong"));

    // Recompute the failing case: the message lists the elements that are most wrong, the
    // worst first, at most 5 of them.
    const std::size_t c = case_index(spec, report.sizes);
    const auto data = tp::make_case(spec, report.sizes, 0, c);
    const auto& x = data.tensors[0].values;
    const auto& y = data.tensors[1].values;
    const auto& expected = data.expected[2].values;
    std::vector<double> error(x.size());
    long long wrong_count = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      error[i] = std::abs(static_cast<double>(x[i] - y[i]) - expected[i]);
      if (error[i] > spec.atol + spec.rtol * std::abs(expected[i])) ++wrong_count;
    }
    REQUIRE(wrong_count > 0);
    const std::string count_line =
        std::to_string(wrong_count) + " of " + std::to_string(x.size()) + " elements of z differ";
    CHECK_THAT(d.message, Catch::Contains(count_line));

    const std::regex listed(R"(\n    z\[(\d+)\]: yours ([^,]+), expected (\S+))");
    std::vector<std::size_t> indices;
    for (std::sregex_iterator it(d.message.begin(), d.message.end(), listed), end; it != end;
         ++it) {
      const std::size_t i = std::stoul((*it)[1].str());
      REQUIRE(i < x.size());
      CHECK(std::stod((*it)[2].str()) == Approx(x[i] - y[i]).epsilon(1e-4));
      CHECK(std::stod((*it)[3].str()) == Approx(expected[i]).epsilon(1e-4));
      indices.push_back(i);
    }
    CHECK(static_cast<long long>(indices.size()) == std::min(wrong_count, 5LL));
    for (std::size_t k = 1; k < indices.size(); ++k)
      CHECK(error[indices[k - 1]] >= error[indices[k]]);
    const double worst = *std::max_element(error.begin(), error.end());
    REQUIRE(!indices.empty());
    CHECK(error[indices[0]] == worst);
  }
  SECTION("its twin, which adds, passes") {
    const auto twin = puzzle_with<solutions::VectorAdd, tp::bindings::vector_add>("vector-add");
    CHECK(check(twin).status == tp::status::solved);
  }
}

TEST_CASE("A flash attention that loads k twice per block breaks its efficiency budget",
          "[known-wrong]") {
  SECTION("it fails with efficiency-budget on k") {
    const auto spec =
        puzzle_with<wrong::FlashAttentionLoadingKTwice, tp::bindings::flash_attention_simple>(
            "flash-attention-simple");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "efficiency-budget");
    CHECK(d.buffer.empty());  // a budget is about the whole run, not one access
    CHECK_THAT(d.message, Catch::Contains("an element of k 2 times (at most 1 allowed)"));
    // The result was right, so it is the budget that fails the kernel; v was loaded once.
    CHECK(report.counters.at(1).max_program_element_reads == 2);
    CHECK(report.counters.at(2).max_program_element_reads == 1);
    // It names the two lines that load k (in the helper the kernel calls), each with half of the
    // busiest program's loads.
    const long long each = report.counters.at(1).max_program_loads / 2;
    const auto loads = [&](const std::string& code) {
      return "line " + std::to_string(as_puzzle::line_of("tests/kernels/flawed.hpp", code)) +
             " loads k up to " + std::to_string(each) + (each == 1 ? " time" : " times") +
             " per program";
    };
    CHECK_THAT(d.message,
               Catch::Contains("By line: " + loads("tl::tile<float, B1> keys = tl::load(k + cols") +
                               "; " + loads("keys = (keys + tl::load(k + cols") +
                               " (tests/kernels/flawed.hpp)."));
  }
  SECTION("its twin, the solution, passes") {
    const auto spec =
        puzzle_with<solutions::FlashAttentionSimple, tp::bindings::flash_attention_simple>(
            "flash-attention-simple");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("A matmul that loads each x tile twice per step breaks its efficiency budget",
          "[known-wrong]") {
  SECTION("it fails with efficiency-budget on x") {
    const auto spec =
        puzzle_with<wrong::MatmulLoadingXTwice, tp::bindings::matmul>("matmul");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "efficiency-budget");
    CHECK_THAT(d.message, Catch::Contains("an element of x 2 times (at most 1 allowed)"));
    CHECK(report.counters.at(0).max_program_element_reads == 2);
    CHECK(report.counters.at(1).max_program_element_reads == 1);
  }
  SECTION("its twin, the solution, passes") {
    const auto spec = puzzle_with<solutions::Matmul, tp::bindings::matmul>("matmul");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("A loop that never ends runs into the operation budget", "[known-wrong]") {
  tp::check_options options;
  options.op_budget = 10000;
  SECTION("a loop whose step is 0 fails with op-budget") {
    const auto spec =
        puzzle_with<wrong::VectorAddEndlessLoop, tp::bindings::vector_add>("vector-add");
    const auto report = check(spec, options);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "op-budget");
    CHECK_THAT(d.message, Catch::Contains("more than 10000 tile operations"));
    CHECK(d.program == std::array<int, 3>{0, 0, 0});
    CHECK_THAT(d.source, Catch::Contains("tests/known_wrong.cpp:"));
  }
  SECTION("its twin, whose loop ends after one trip, passes under the same budget") {
    const auto spec =
        puzzle_with<wrong::VectorAddOneTripLoop, tp::bindings::vector_add>("vector-add");
    CHECK(check(spec, options).status == tp::status::solved);
  }
}

TEST_CASE("Two programs writing the same element is a write-write race", "[known-wrong]") {
  SECTION("overlapping blocks fail with race-write-write on z") {
    const auto spec =
        puzzle_with<wrong::VectorAddOverlappingBlocks, tp::bindings::vector_add>("vector-add");
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "race-write-write");
    CHECK(d.buffer == "z");
    // Forward order, B0 = 32: program 1 covers 16..47 and meets what program 0 wrote at 16.
    CHECK(report.order == "forward");
    CHECK(report.blocks == std::vector<int>{32});
    CHECK(d.program == std::array<int, 3>{1, 0, 0});
    REQUIRE_FALSE(d.lanes.empty());
    CHECK(d.lanes[0].lane == 0);
    CHECK(d.lanes[0].offset == 16);
    CHECK_THAT(d.lanes[0].note, Catch::Contains("already written by program (0, 0, 0)"));
    CHECK_THAT(d.message, Catch::Contains("16 lanes"));
  }
  SECTION("its twin, with disjoint blocks, passes") {
    const auto spec = puzzle_with<solutions::VectorAdd, tp::bindings::vector_add>("vector-add");
    CHECK(check(spec).status == tp::status::solved);
  }
}

TEST_CASE("Two lanes of one store writing one element is a write-write race, with or without "
          "a budget on writes",
          "[known-wrong]") {
  for (bool budgets : {true, false}) {
    INFO((budgets ? "with the puzzle's budgets" : "without budgets"));
    auto spec = puzzle_with<wrong::VectorAddStoringInPairs, tp::bindings::vector_add>("vector-add");
    auto twin = puzzle_with<solutions::VectorAdd, tp::bindings::vector_add>("vector-add");
    if (!budgets) spec.budgets.clear(), twin.budgets.clear();
    const auto report = check(spec);
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "race-write-write");
    CHECK(d.buffer == "z");
    // N0 = 2, the second case: lanes 0 and 1 both write z[0].
    CHECK(report.sizes == std::vector<int>{2});
    REQUIRE_FALSE(d.lanes.empty());
    CHECK(d.lanes[0].lane == 1);
    CHECK(d.lanes[0].offset == 0);
    CHECK_THAT(d.message, Catch::Contains("two lanes of this store write z[0]"));
    CHECK(check(twin).status == tp::status::solved);
  }
}

TEST_CASE("A kernel that crashes or hangs is reported by check_isolated without harm",
          "[known-wrong][isolate]") {
  // A stand-in for the host's crash handler (Catch2 installs one for SIGSEGV): the checker's
  // child must not run it, but die of the signal the ordinary way.
  exit_77_on_signal host_handler(SIGSEGV);
  tp::check_options options;
  options.orders = {tl::sim::order::forward};

  SECTION("raise(SIGSEGV) in program 2 is a crash with the signal and the place") {
    const auto spec = puzzle_with<wrong::with_mishap<wrong::mishap::raise_sigsegv>::VectorAdd,
                                  tp::bindings::vector_add>("vector-add");
    const auto r = tp::check_isolated(spec, options, 30);
    INFO(r.line << "\n" << r.details);
    CHECK(r.status == tp::status::failed);
    CHECK_THAT(r.line, Catch::Contains("crash"));
    CHECK_THAT(r.json, Catch::Contains("\"kind\": \"crash\""));
    CHECK_THAT(r.details, Catch::Contains("signal 11"));
    CHECK_THAT(r.details, Catch::Contains("N0=100, B0=32"));  // the first case with a program 2
    CHECK_THAT(r.details, Catch::Contains("program (2, 0, 0)"));
    // The kernel line of the last tile operation before the crash, and the case as fields.
    CHECK_THAT(r.details, Catch::Contains("after its tile operation at tests/known_wrong.cpp:"));
    CHECK_THAT(r.json, Catch::Contains("\"source\": \"tests/known_wrong.cpp:"));
    CHECK_THAT(r.json, Catch::Contains("\"sizes\": {\"N0\": 100}, \"blocks\": {\"B0\": 32}, "
                                       "\"order\": \"forward\", \"seed\": 0"));
  }
  SECTION("a null dereference in program 2 is a crash too") {
    const auto spec = puzzle_with<wrong::with_mishap<wrong::mishap::null_dereference>::VectorAdd,
                                  tp::bindings::vector_add>("vector-add");
    const auto r = tp::check_isolated(spec, options, 30);
    INFO(r.line << "\n" << r.details);
    CHECK(r.status == tp::status::failed);
    CHECK_THAT(r.json, Catch::Contains("\"kind\": \"crash\""));
    CHECK_THAT(r.details, Catch::Contains("signal 11"));
    CHECK_THAT(r.details, Catch::Contains("program (2, 0, 0)"));
  }
  SECTION("a loop without tile operations is stopped by the program timeout as op-budget") {
    const auto spec = puzzle_with<wrong::with_mishap<wrong::mishap::spin_forever>::VectorAdd,
                                  tp::bindings::vector_add>("vector-add");
    const auto started = std::chrono::steady_clock::now();
    const auto r = tp::check_isolated(spec, options, 60, 0.5);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(r.line << "\n" << r.details);
    CHECK(r.status == tp::status::failed);
    CHECK_THAT(r.json, Catch::Contains("\"kind\": \"op-budget\""));
    CHECK_THAT(r.details, Catch::Contains("program (2, 0, 0) ran for more than 0.5 s"));
    // Where the program was: the line of its last tile operation, before the loop.
    CHECK_THAT(r.details, Catch::Contains("after its tile operation at tests/known_wrong.cpp:"));
    CHECK_THAT(r.json, Catch::Contains("\"source\": \"tests/known_wrong.cpp:"));
    CHECK_THAT(r.json, Catch::Contains("\"sizes\": {\"N0\": 100}"));
    CHECK(seconds >= 0.45);
    CHECK(seconds < 5);  // the whole check may take 60 s: the program's limit stopped it
  }
  SECTION("the whole check's timeout stops it too") {
    const auto spec = puzzle_with<wrong::with_mishap<wrong::mishap::spin_forever>::VectorAdd,
                                  tp::bindings::vector_add>("vector-add");
    const auto started = std::chrono::steady_clock::now();
    const auto r = tp::check_isolated(spec, options, 1, 60);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(r.line << "\n" << r.details);
    CHECK_THAT(r.json, Catch::Contains("\"kind\": \"op-budget\""));
    CHECK_THAT(r.details, Catch::Contains("did not finish within 1 s"));
    CHECK_THAT(r.details, Catch::Contains("program (2, 0, 0)"));
    CHECK(seconds >= 0.9);
    CHECK(seconds < 10);
  }
  SECTION("a kernel that closes the report's descriptor and waits is held to the timeout too") {
    const auto spec = puzzle_with<wrong::with_mishap<wrong::mishap::close_and_sleep>::VectorAdd,
                                  tp::bindings::vector_add>("vector-add");
    const auto started = std::chrono::steady_clock::now();
    const auto r = tp::check_isolated(spec, options, 1, 60);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    INFO(r.line << "\n" << r.details);
    CHECK(r.status == tp::status::failed);
    CHECK_THAT(r.details, Catch::Contains("did not finish within 1 s"));
    CHECK(seconds < 10);
  }
  SECTION("their twin, the same kernel without the mishap, passes in a child process") {
    const auto spec = puzzle_with<wrong::with_mishap<wrong::mishap::none>::VectorAdd,
                                  tp::bindings::vector_add>("vector-add");
    const auto r = tp::check_isolated(spec, options, 30);
    INFO(r.line << "\n" << r.details);
    CHECK(r.status == tp::status::solved);
    CHECK_THAT(r.json, Catch::Contains("\"passed\": true"));
  }
  // Still here: the test process survived its children.
  SUCCEED("the test process is alive");
}

// ---------------------------------------------------------------------------------------------
// In the corpus (tests/corpus.hpp): each fails with its kind on 20 seeds.

namespace wrong {
template <int B0>
using VectorAddRaisingSigsegv = with_mishap<mishap::raise_sigsegv>::VectorAdd<B0>;
template <int B0>
using VectorAddDereferencingNull = with_mishap<mishap::null_dereference>::VectorAdd<B0>;
template <int B0>
using VectorAddSpinningForever = with_mishap<mishap::spin_forever>::VectorAdd<B0>;
template <int B0, int B1>
using LongSoftmax3LoopAsTwoLoops = solutions::LongSoftmax3Loop<B0, B1>;
}  // namespace wrong

TP_CORPUS_GROUP("known-wrong");
TP_WRONG(VectorAddWithoutMask, vector_add, "out-of-bounds", "Mask the lanes that fall outside");
TP_WRONG(VectorAddSkippingLastLane, vector_add, "unwritten-output", "");
TP_WRONG(VectorSubtract, vector_add, "wrong-result", "");
TP_WRONG(VectorAddOverlappingBlocks, vector_add, "race-write-write", "");
TP_WRONG(VectorAddStoringInPairs, vector_add, "race-write-write", "two lanes of this store");
TP_WRONG(VectorAddEndlessLoop, vector_add, "op-budget", "loop");
TP_WRONG_ISOLATED(VectorAddRaisingSigsegv, vector_add, "crash", "after its tile operation at");
TP_WRONG_ISOLATED(VectorAddDereferencingNull, vector_add, "crash", "after its tile operation at");
TP_WRONG_ISOLATED(VectorAddSpinningForever, vector_add, "op-budget", "ran for more than");
TP_WRONG(SoftmaxWithoutMax, long_softmax_2loop, "nan-inf",
         "The infinity comes from exp overflow: tl::exp(200) = inf");
TP_WRONG(FlashAttentionLoadingKTwice, flash_attention_simple, "efficiency-budget", "");
TP_WRONG(MatmulLoadingXTwice, matmul, "efficiency-budget", "");
TP_WRONG(LongSoftmax3LoopAsTwoLoops, long_softmax_2loop, "efficiency-budget", "read 3 times");
TP_CORPUS_TESTS("known-wrong")
