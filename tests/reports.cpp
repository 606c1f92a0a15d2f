// What a failing report says besides its kind: what a kernel that stores nothing did instead, the
// case as JSON fields, and what the failing case holds.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "check_as_puzzle.hpp"
#include "corpus.hpp"
#include "checker/isolate.hpp"
#include "checker/specs/long_softmax_2loop.hpp"
#include "checker/specs/vector_add.hpp"
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

namespace {

std::string read_project_text(const std::string& relative) {
  std::ifstream in(std::string(TILEPUZZLES_SOURCE_DIR) + "/" + relative);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What `value` breaks of `schema` (the subset of JSON Schema docs/report.schema.json uses: type,
// enum, properties, required, additionalProperties, items, minItems, maxItems, minimum, $ref to
// #/$defs/...), one line per problem, each with its path; empty when it conforms.
void schema_problems(const json& value, const json& schema, const json& root, const std::string& path,
                     std::vector<std::string>& problems) {
  if (schema.has("$ref")) {
    const std::string ref = schema["$ref"].string;
    REQUIRE(ref.rfind("#/$defs/", 0) == 0);
    schema_problems(value, root["$defs"][ref.substr(8)], root, path, problems);
    return;
  }
  auto problem = [&](const std::string& what) { problems.push_back(path + ": " + what); };
  if (schema.has("type")) {
    const std::string& type = schema["type"].string;
    const bool ok = (type == "object" && value.t == json::type::object) ||
                    (type == "array" && value.t == json::type::array) ||
                    (type == "string" && value.t == json::type::string) ||
                    (type == "boolean" && value.t == json::type::boolean) ||
                    (type == "integer" && value.t == json::type::number &&
                     value.number == std::floor(value.number));
    if (!ok) return problem("not of type " + type);
  }
  if (schema.has("enum")) {
    bool found = false;
    for (const json& option : schema["enum"].items) found = found || option.string == value.string;
    if (value.t != json::type::string || !found) problem("not one of the enum's values");
  }
  if (schema.has("minimum") && value.number < schema["minimum"].number) problem("below its minimum");
  if (value.t == json::type::array) {
    if (schema.has("minItems") && value.items.size() < schema["minItems"].number) problem("too short");
    if (schema.has("maxItems") && value.items.size() > schema["maxItems"].number) problem("too long");
    if (schema.has("items"))
      for (std::size_t i = 0; i < value.items.size(); ++i)
        schema_problems(value.items[i], schema["items"], root, path + "[" + std::to_string(i) + "]",
                        problems);
  }
  if (value.t != json::type::object) return;
  if (schema.has("required"))
    for (const json& name : schema["required"].items)
      if (!value.has(name.string)) problem("no field \"" + name.string + "\"");
  for (const auto& [name, member] : value.members) {
    if (schema.has("properties") && schema["properties"].has(name)) {
      schema_problems(member, schema["properties"][name], root, path + "." + name, problems);
    } else if (schema.has("additionalProperties")) {
      const json& extra = schema["additionalProperties"];
      if (extra.t == json::type::boolean && !extra.boolean)
        problem("a field the schema does not describe: \"" + name + "\"");
      else if (extra.t == json::type::object)
        schema_problems(member, extra, root, path + "." + name, problems);
    }
  }
}

std::vector<std::string> schema_problems(const json& value) {
  static const json schema = parse_json(read_project_text("docs/report.schema.json"));
  std::vector<std::string> problems;
  schema_problems(value, schema, schema, "$", problems);
  return problems;
}

}  // namespace

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

TEST_CASE("check --json is what docs/report.schema.json describes, field for field", "[reports]") {
  using binding = tp::bindings::vector_add;
  const auto spec = puzzle_with<wrong::VectorAddLoadingOneShort, binding>("vector-add");
  const auto failed = check(spec);
  REQUIRE(failed.status == tp::status::failed);
  const json report = parse_json("[" + tp::report_json(failed) + "]");
  for (const auto& problem : schema_problems(report)) FAIL_CHECK(problem);

  SECTION("the schema finds a field it does not describe, one missing, one of another type") {
    std::string text = tp::report_json(failed);
    CHECK(schema_problems(parse_json("[" + text + "]")).empty());
    const std::string extra = text.substr(0, text.size() - 1) + ", \"catches\": \"\"}";
    CHECK(schema_problems(parse_json("[" + extra + "]")) ==
          std::vector<std::string>{"$[0]: a field the schema does not describe: \"catches\""});
    const std::string no_seed = std::regex_replace(text, std::regex(R"(, "seed": \d+)"), "");
    CHECK(schema_problems(parse_json("[" + no_seed + "]")) ==
          std::vector<std::string>{"$[0].case: no field \"seed\""});
    const std::string bad_kind = std::regex_replace(text, std::regex("poison-store"), "poisoned");
    CHECK(schema_problems(parse_json("[" + bad_kind + "]")) ==
          std::vector<std::string>{"$[0].diagnostics[0].kind: not one of the enum's values"});
  }
  SECTION("a solved check, a noted one and every kind of lane, as the program prints them") {
    const auto r = cli_support::run_cli("check --json --impl solution 3 16");
    REQUIRE(r.exit_code == 0);
    for (const auto& problem : schema_problems(parse_json(r.out))) FAIL_CHECK(problem);
    tp::isolated_report noted = tp::summarize(failed);
    tp::add_note(noted, spec, "puzzles/vector_add.hpp", "rebuilt");
    for (const auto& problem : schema_problems(parse_json("[" + noted.json + "]")))
      FAIL_CHECK(problem);
    const auto overflow_spec = puzzle_with<wrong::VectorAddThroughABias, binding>("vector-add");
    const auto overflow = check(overflow_spec);  // the report points at its spec
    for (const auto& problem : schema_problems(parse_json("[" + tp::report_json(overflow) + "]")))
      FAIL_CHECK(problem);
  }
}

TEST_CASE("docs/instructors.md describes every field of the JSON schema", "[reports]") {
  const std::string guide = read_project_text("docs/instructors.md");
  const json schema = parse_json(read_project_text("docs/report.schema.json"));
  // The guide's tables name a field as `name` (top level, a diagnostic, a lane, a counter) or
  // `case.name`.
  for (const auto& [def, prefix] : std::vector<std::pair<std::string, std::string>>{
           {"puzzle_report", ""}, {"run", "case."}, {"diagnostic", ""}, {"counters", ""}}) {
    for (const auto& [name, property] : schema["$defs"][def]["properties"].members) {
      INFO(def << "." << name);
      CHECK_THAT(guide, Catch::Contains("`" + prefix + name + "`"));
    }
  }
}

TP_CORPUS_GROUP("reports");
TP_WRONG(VectorAddReturningEarly, vector_add, "unwritten-output", "and stored nothing to z");
TP_WRONG(VectorAddMaskingEveryLane, vector_add, "unwritten-output", "every lane masked off");
TP_WRONG(VectorAddNotWritten, vector_add, "not-solved", "Write it in");
TP_CORPUS_TESTS("reports")
