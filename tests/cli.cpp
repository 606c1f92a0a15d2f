// The command line as a learner, an instructor or a script uses it: the real program, its exit
// codes, what it prints, and its JSON.
#include <catch2/catch.hpp>

#include <regex>
#include <string>
#include <vector>

#include "checker/gpu.hpp"
#include "checker/puzzle_list.hpp"
#include "checker/registry.hpp"
#include "cli_support.hpp"
#include "shipped_stubs.hpp"

using namespace cli_support;


TEST_CASE("The JSON reader used by these tests rejects what is not JSON", "[cli]") {
  // So that a passing JSON test below means something.
  CHECK_NOTHROW(json_reader(R"([{"a": [1, -2.5e3, true, null], "b\n": "\u0041"}])").document());
  for (const char* bad : {"[1, 2,]", "{\"a\": 1,}", "{a: 1}", "[1] x", "\"tab\there\"", "01",
                          "{\"a\": 1, \"a\": 2}", "[true false]", ""}) {
    INFO(bad);
    CHECK_THROWS(json_reader(bad).document());
  }
}

TEST_CASE("check --impl solution exits 0 and reports every puzzle as solved", "[cli]") {
  const auto r = run_cli("check --impl solution");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("Checking the reference solutions"));
  const auto& puzzles = tp::all_puzzles();
  for (const tp::puzzle_spec* p : puzzles) {
    INFO(p->id);
    const std::string line = puzzle_line(r.out, *p);
    CHECK_THAT(line, Catch::Contains(" solved "));
    CHECK_THAT(line, !Catch::Contains("not solved"));
    CHECK_THAT(line, !Catch::Contains("FAILED"));
  }
  const std::string n = std::to_string(puzzles.size());
  CHECK_THAT(r.out, Catch::Contains(n + " of " + n + " puzzles solved."));
}

TEST_CASE("check on the untouched stubs exits 1 and says each puzzle is not solved", "[cli]") {
  const auto r = run_cli("check");
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("Checking your kernels"));
  if (!all_stubs_shipped(tp::all_puzzles())) {
    WARN("some stubs in puzzles/ have been edited: checking only the untouched ones");
    const bool all_solved = r.out.find(" of " + std::to_string(tp::all_puzzles().size()) +
                                       " puzzles solved.") != std::string::npos &&
                            r.out.find("not solved") == std::string::npos &&
                            r.out.find("FAILED") == std::string::npos;
    CHECK(r.exit_code == (all_solved ? 0 : 1));
    for (const tp::puzzle_spec* p : tp::all_puzzles())
      if (is_shipped_stub(*p)) CHECK_THAT(puzzle_line(r.out, *p), Catch::Contains("not solved"));
    return;
  }
  CHECK(r.exit_code == 1);
  for (const tp::puzzle_spec* p : tp::all_puzzles()) {
    INFO(p->id);
    const std::string line = puzzle_line(r.out, *p);
    CHECK_THAT(line, Catch::Contains("not solved"));
    CHECK_THAT(line, Catch::Contains(p->stub_file));
  }
  const std::string n = std::to_string(tp::all_puzzles().size());
  CHECK_THAT(r.out, Catch::Contains("0 of " + n + " puzzles solved."));
  const tp::puzzle_spec* first = tp::all_puzzles().front();
  const std::string next = "Next: puzzle " + std::to_string(first->number) + " (" + first->id + ")";
  CHECK_THAT(r.out, Catch::Contains(next));
  // Unsolved is not an error: no diagnostics block.
  CHECK_THAT(r.out, !Catch::Contains("---"));
}

TEST_CASE("An unknown puzzle is a usage error that lists the valid puzzles", "[cli]") {
  std::string args, name;
  SECTION("a number with no puzzle") { args = "check 42", name = "42"; }
  SECTION("a name with no puzzle") { args = "check nonsense", name = "nonsense"; }
  SECTION("an unknown puzzle after a known one") { args = "check 1 nonsense", name = "nonsense"; }
  SECTION("show with a number with no puzzle") { args = "show 42", name = "42"; }
  const auto r = run_cli(args);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("unknown puzzle '" + name + "'"));
  for (const tp::puzzle_spec* p : tp::all_puzzles())
    CHECK_THAT(r.err, Catch::Contains(std::to_string(p->number) + " (" + p->id + ")"));
  CHECK(r.out.empty());  // nothing was checked before the error
}

TEST_CASE("A bad flag or a bad value is a usage error", "[cli]") {
  std::string args, culprit;
  SECTION("an unknown flag") { args = "check --bogus", culprit = "--bogus"; }
  SECTION("an unknown implementation") { args = "check --impl teacher", culprit = "teacher"; }
  SECTION("an unknown program order") { args = "check --order sideways", culprit = "sideways"; }
  SECTION("a seed that is not a number") { args = "check --seed abc", culprit = "abc"; }
  SECTION("a timeout that is not positive") { args = "check --timeout 0", culprit = "--timeout"; }
  SECTION("show without a puzzle") { args = "show", culprit = "puzzle"; }
  const auto r = run_cli(args);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("tilepuzzles: "));
  CHECK_THAT(r.err, Catch::Contains(culprit));
  CHECK_THAT(r.err, Catch::Contains("--help"));
  CHECK(r.out.empty());
}

TEST_CASE("list exits 0 and lists every puzzle with its number and file", "[cli]") {
  const auto r = run_cli("list");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  REQUIRE(tp::all_puzzles().size() == tp::puzzle_count);  // every line of checker/puzzle_list.def
  for (const tp::puzzle_spec* p : tp::all_puzzles()) {
    INFO(p->id);
    const std::regex line("^ +" + std::to_string(p->number) + " +" + p->id + " .*" +
                              std::regex_replace(p->stub_file, std::regex(R"(\.)"), R"(\.)") + "$",
                          std::regex::multiline);
    CHECK(std::regex_search(r.out, line));
  }
}

TEST_CASE("show prints a puzzle named by its id or its number", "[cli]") {
  SECTION("by id") {
    const auto r = run_cli("show vector-add");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::Contains("vector-add"));
    CHECK_THAT(r.out, Catch::Contains("your kernel: puzzles/vector_add.hpp"));
    CHECK_THAT(r.out, Catch::Contains("budget: "));
    CHECK_THAT(r.out, Catch::Contains("checked with (--blocks): B0=32 B0=256\n"));
  }
  SECTION("by number") {
    const auto r = run_cli("show 9");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    CHECK_THAT(r.out, Catch::Contains("long-softmax-3loop"));
    CHECK_THAT(r.out, Catch::Contains("your kernel: puzzles/long_softmax_3loop.hpp"));
    CHECK_THAT(r.out, Catch::Contains("read at most 3 times"));
  }
  SECTION("the number and the id show the same page") {
    const auto by_number = run_cli("show 14");
    const auto by_id = run_cli("show matmul");
    CHECK(by_number.exit_code == 0);
    CHECK(by_number.out == by_id.out);
    CHECK_THAT(by_id.out, Catch::Contains("puzzles/matmul.hpp"));
  }
  SECTION("a puzzle whose cases fit only some block sizes says which") {
    const auto r = run_cli("show constant-add");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("checked with (--blocks): B0=32 B0=128 B0=1024\n"));
    CHECK_THAT(r.out, Catch::Contains("\n   1. (N0=32) "));
    CHECK_THAT(r.out, Catch::Contains("\n   2. (N0=128) "));
    CHECK_THAT(r.out, Catch::Contains("each case runs with the block sizes that fit it: N0 = B0"));
    // ... and one whose cases fit every block size says nothing of the kind.
    CHECK_THAT(run_cli("show vector-add").out, !Catch::Contains("that fit it"));
  }
}

TEST_CASE("check --json prints one valid JSON array with an object per puzzle", "[cli]") {
  SECTION("for solutions that pass") {
    const auto r = run_cli("check --json --impl solution 3 10");
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
    const json doc = parse_json(r.out);  // the whole stdout, nothing else
    REQUIRE(doc.t == json::type::array);
    REQUIRE(doc.items.size() == 2);
    const std::vector<const tp::puzzle_spec*> expected = {tp::find_puzzle("3"),
                                                          tp::find_puzzle("10")};
    for (std::size_t k = 0; k < 2; ++k) {
      const json& o = doc.items[k];
      const tp::puzzle_spec& spec = *expected[k];
      INFO(spec.id);
      REQUIRE(o.t == json::type::object);
      CHECK(o["id"].t == json::type::string);
      CHECK(o["id"].string == spec.id);
      CHECK(o["number"].number == spec.number);
      CHECK(o["passed"].t == json::type::boolean);
      CHECK(o["passed"].boolean);
      CHECK(o["status"].string == "solved");
      CHECK(o["impl"].string == "solution");
      CHECK(is_count(o["runs"]));
      CHECK(o["runs"].number > 0);
      REQUIRE(o["diagnostics"].t == json::type::array);
      CHECK(o["diagnostics"].items.empty());
      const json& counters = o["counters"];
      REQUIRE(counters.t == json::type::object);
      CHECK(counters.members.size() == spec.tensors.size());
      for (const auto& tensor : spec.tensors) {
        INFO("tensor " << tensor.name);
        REQUIRE(counters.has(tensor.name));
        const json& c = counters[tensor.name];
        for (const char* key : {"loads", "stores", "bytes"}) {
          INFO(key);
          REQUIRE(c.has(key));
          CHECK(is_count(c[key]));
        }
        CHECK(c["bytes"].number == 4 * (c["loads"].number + c["stores"].number));
        if (tensor.output) CHECK(c["stores"].number > 0);
        else CHECK(c["loads"].number > 0);
      }
    }
    // The 2-loop softmax read each element of x exactly twice.
    CHECK(doc.items[1]["counters"]["x"]["max_element_reads"].number == 2);
  }
  SECTION("for a stub that is not solved") {
    const tp::puzzle_spec* stub = tp::find_puzzle("10");
    REQUIRE(stub != nullptr);
    if (!is_shipped_stub(*stub)) {
      WARN(stub->stub_file << " has been edited: skipping the unsolved-stub JSON check");
      const auto r = run_cli("check --json 10");
      CHECK(parse_json(r.out).t == json::type::array);
      return;
    }
    const auto r = run_cli("check --json 10");
    CHECK(r.exit_code == 1);
    const json doc = parse_json(r.out);
    REQUIRE(doc.t == json::type::array);
    REQUIRE(doc.items.size() == 1);
    const json& o = doc.items[0];
    CHECK(o["id"].string == "long-softmax-2loop");
    CHECK(o["passed"].t == json::type::boolean);
    CHECK_FALSE(o["passed"].boolean);
    CHECK(o["status"].string == "not-solved");
    REQUIRE(o["diagnostics"].items.size() == 1);
    CHECK(o["diagnostics"].items[0]["kind"].string == "not-solved");
    CHECK_THAT(o["diagnostics"].items[0]["message"].string,
               Catch::Contains("puzzles/long_softmax_2loop.hpp"));
  }
}

TEST_CASE("check --gpu says clearly when there is no GPU to run on", "[cli]") {
  const tp::gpu::device_status device = tp::gpu::probe();
  const auto r = run_cli("check --gpu --impl solution vector-add");
  if (device.available) {
    // A machine with a GPU and a CUDA build: the solution passes there too.
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("GPU: " + device.description));
  } else {
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("--gpu"));
    CHECK_THAT(r.err, Catch::Contains("GPU"));
    CHECK_THAT(r.err, Catch::Contains(device.description));
    CHECK(r.out.empty());  // nothing was checked: the GPU was asked for and is not there
  }
}

TEST_CASE("check honours --seed and --order and still passes the solutions", "[cli]") {
  const tp::puzzle_spec* p = tp::find_puzzle("long-softmax-3loop");
  REQUIRE(p != nullptr);
  const auto r = run_cli("check --impl solution --seed 99 --order reverse 9");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("seed 99, program order reverse"));
  // One order only: one run per block size and case.
  const std::string runs = std::to_string(p->kernels.size() * p->cases.size());
  CHECK_THAT(puzzle_line(r.out, *p), Catch::Contains("solved      " + runs + " simulator runs"));
  CHECK_THAT(r.out, Catch::Contains("1 of 1 puzzle solved."));
}
