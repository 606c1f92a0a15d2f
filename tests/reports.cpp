// What a failing report says besides its kind: what a kernel that stores nothing did instead, the
// case as JSON fields, and what the failing case is there to catch.
#include <catch2/catch.hpp>

#include <string>

#include "check_as_puzzle.hpp"
#include "corpus.hpp"
#include "checker/bindings/long_softmax_2loop.hpp"
#include "checker/bindings/vector_add.hpp"
#include "checker/report.hpp"
#include "cli_support.hpp"
#include "solutions/long_softmax_3loop.hpp"

namespace wrong {

// Loads both inputs, adds them, and returns before its store.
template <int B0>
struct VectorAddReturningEarly {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto mask = offsets < N0;
    auto sum = tl::load(x + offsets, mask) + tl::load(y + offsets, mask);
    if (N0 > 0) return;
    tl::store(z + offsets, sum, mask);
  }
};

// Stores with a mask that is never true.
template <int B0>
struct VectorAddMaskingEveryLane {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto sum = tl::load(x + offsets, offsets < N0) + tl::load(y + offsets, offsets < N0);
    tl::store(z + offsets, sum, offsets < 0);
  }
};

// Loads one element fewer than it stores, without `other`: the last element stored is poison.
template <int B0>
struct VectorAddLoadingOneShort {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = tl::program_id(0) * B0 + tl::arange<B0>();
    auto short_mask = offsets < N0 - 1;
    auto sum = tl::load(x + offsets, short_mask) + tl::load(y + offsets, short_mask);
    tl::store(z + offsets, sum, offsets < N0);
  }
};

// Offsets through a bias near INT_MAX: the addition leaves int32 at offset 48.
template <int B0>
struct VectorAddThroughABias {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    auto offsets = (tl::program_id(0) * B0 + tl::arange<B0>()) + 2'147'483'600 - 2'147'483'600;
    auto mask = offsets < N0;
    tl::store(z + offsets, tl::load(x + offsets, mask) + tl::load(y + offsets, mask), mask);
  }
};

// An empty body, like a shipped stub.
template <int B0>
struct VectorAddNotWritten {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>,
                            int) const {}
};

}  // namespace wrong

using namespace as_puzzle;
using cli_support::json;
using cli_support::parse_json;

TEST_CASE("A kernel that stores nothing is told what it did instead", "[reports]") {
  using binding = tp::bindings::vector_add;
  SECTION("one that returns before its store ran loads and stored nothing to z") {
    const auto report = check_wrong<wrong::VectorAddReturningEarly, binding>("vector-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK(report.status == tp::status::failed);
    CHECK(d.buffer == "z");
    // The first case, x[1]: one program, one element of each input, two loads and an addition.
    CHECK_THAT(d.message, Catch::Contains("the kernel ran 3 tile operations, loaded 1 element of "
                                          "x and 1 of y, and stored nothing to z"));
    CHECK_THAT(d.message, Catch::Contains("Does it return before its tl::store"));
    CHECK_THAT(d.message, !Catch::Contains("Write it"));
    CHECK_THAT(tp::report_line(report), Catch::Contains("FAILED"));
  }
  SECTION("one whose store masks every lane off is told to look at the mask") {
    const auto report = check_wrong<wrong::VectorAddMaskingEveryLane, binding>("vector-add");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "unwritten-output");
    CHECK_THAT(d.message, Catch::Contains("stored nothing to z"));
    CHECK_THAT(d.message, Catch::Contains("every lane masked off (32 lanes)"));
  }
  SECTION("an empty kernel is still not solved, and told to write it") {
    const auto report = check_wrong<wrong::VectorAddNotWritten, binding>("vector-add");
    REQUIRE(report.diagnostics.size() == 1);
    CHECK(report.status == tp::status::not_solved);
    CHECK(report.diagnostics[0].kind == "not-solved");
    CHECK_THAT(report.diagnostics[0].message, Catch::Contains("Write it in"));
  }
}

TEST_CASE("A JSON report carries the failing case as fields", "[reports]") {
  using binding = tp::bindings::vector_add;
  tp::check_options options;
  options.seed = 7;
  const auto spec = puzzle_with<wrong::VectorAddMaskingEveryLane, binding>("vector-add");
  const auto report = check(spec, options);
  REQUIRE(report.status == tp::status::failed);
  const json doc = parse_json(tp::report_json(report));
  const json& c = doc["case"];
  REQUIRE(c.t == json::type::object);
  CHECK(c["sizes"]["N0"].number == 1);
  CHECK(c["blocks"]["B0"].number == 32);
  CHECK(c["order"].string == "forward");
  CHECK(c["seed"].number == 7);
  CHECK(c["index"].number == 0);
  CHECK(c["about"].string == spec.cases[0].about);
}

TEST_CASE("A JSON report names where a poison was made, and the operands of an int32 step",
          "[reports]") {
  using binding = tp::bindings::vector_add;
  SECTION("poison-store: the masked load without `other`") {
    const auto spec = puzzle_with<wrong::VectorAddLoadingOneShort, binding>("vector-add");
    const auto report = check(spec);  // the report points at its spec
    REQUIRE(report.status == tp::status::failed);
    const json doc = parse_json(tp::report_json(report));
    const json& d = doc["diagnostics"].items.at(0);
    CHECK(d["kind"].string == "poison-store");
    CHECK_THAT(d["cause"].string, Catch::StartsWith("the masked load without `other` at "
                                                    "tests/reports.cpp:"));
  }
  SECTION("index-overflow: the lane's operation") {
    const auto spec = puzzle_with<wrong::VectorAddThroughABias, binding>("vector-add");
    const auto report = check(spec);  // the report points at its spec
    REQUIRE(report.status == tp::status::failed);
    const json doc = parse_json(tp::report_json(report));
    const json& d = doc["diagnostics"].items.at(0);
    CHECK(d["kind"].string == "index-overflow");
    CHECK(d["lanes"].items.at(0)["note"].string == "48 + 2147483600 = 2147483648");
    CHECK(d["lanes"].items.at(0)["offset"].number == 2147483648.0);
  }
}

TEST_CASE("A failure says what its case holds, and how to see the run", "[reports]") {
  const auto spec = puzzle_with<solutions::LongSoftmax3Loop, tp::bindings::long_softmax_2loop>(
      "long-softmax-2loop");
  const auto report = check(spec);
  const auto& d = the_diagnostic(report);
  CHECK(d.kind == "efficiency-budget");
  REQUIRE(report.case_index >= 0);
  REQUIRE(report.kernel_index >= 0);
  const auto run = tp::failed_run(report);
  REQUIRE(run);
  CHECK(run->case_index == report.case_index);
  // The case by the number `show --case` takes, its block sizes as `show --blocks` takes them.
  CHECK_THAT(d.message, Catch::Contains("case " + std::to_string(report.case_index + 1) + " of " +
                                        std::to_string(spec.cases.size()) + ": "));
  CHECK_THAT(d.message,
             Catch::EndsWith("About this case: " + spec.cases[report.case_index].about +
                             "\n  To see this run: tilepuzzles show 10 " +
                             tp::replay_arguments(spec, *run)));
}

TP_CORPUS_GROUP("reports");
TP_WRONG(VectorAddReturningEarly, vector_add, "unwritten-output", "and stored nothing to z");
TP_WRONG(VectorAddMaskingEveryLane, vector_add, "unwritten-output", "every lane masked off");
TP_WRONG(VectorAddNotWritten, vector_add, "not-solved", "Write it in");
TP_CORPUS_TESTS("reports")
