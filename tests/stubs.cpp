// The learner's empty stubs are reported as not solved, cleanly: no error, no crash, one
// "not-solved" diagnostic that says which file to edit.
#include <catch2/catch.hpp>

#include <string>

#include "checker/check.hpp"
#include "checker/isolate.hpp"
#include "checker/registry.hpp"
#include "checker/report.hpp"
#include "shipped_stubs.hpp"

TEST_CASE("Every stub is reported as not solved with one diagnostic naming its file", "[stubs]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    DYNAMIC_SECTION(spec->number << " " << spec->id) {
      tp::check_options options;  // impl::stub is the default: the learner's kernels
      REQUIRE(options.which == tp::impl::stub);
      const tp::puzzle_report report = tp::check_puzzle(*spec, options);
      if (!is_shipped_stub(*spec)) {
        WARN(spec->stub_file << " has been edited: only checking that its report is clean");
        CHECK((report.passed() || report.diagnostics.size() == 1));
        continue;
      }

      CHECK(report.status == tp::status::not_solved);
      CHECK_FALSE(report.passed());
      REQUIRE(report.diagnostics.size() == 1);
      const auto& d = report.diagnostics[0];
      CHECK(d.kind == "not-solved");
      CHECK_THAT(d.message, Catch::Contains(spec->stub_file));
      CHECK_THAT(d.message, Catch::Contains(spec->doc_file));
      // Not an error in the kernel: no program, buffer or lanes to blame.
      CHECK(d.program[0] == -1);
      CHECK(d.buffer.empty());
      CHECK(d.lanes.empty());
      // It stops at the first run rather than repeating the same news for every case.
      CHECK(report.runs == 1);

      // What a learner sees: one line naming the file, and no block of details.
      const std::string line = tp::report_line(report);
      CHECK_THAT(line, Catch::Contains(spec->id));
      CHECK_THAT(line, Catch::Contains("not solved"));
      CHECK_THAT(line, Catch::Contains(spec->stub_file));
      CHECK(tp::report_details(report).empty());
      const std::string json = tp::report_json(report);
      CHECK_THAT(json, Catch::Contains("\"passed\": false"));
      CHECK_THAT(json, Catch::Contains("\"status\": \"not-solved\""));
      CHECK_THAT(json, Catch::Contains("\"kind\": \"not-solved\""));
    }
  }
}

TEST_CASE("A stub checked in a child process is also reported as not solved", "[stubs]") {
  const tp::puzzle_spec* spec = tp::find_puzzle("vector-add");
  REQUIRE(spec != nullptr);
  const tp::isolated_report r = tp::check_isolated(*spec, tp::check_options{}, 30);
  if (!is_shipped_stub(*spec)) {
    WARN(spec->stub_file << " has been edited: only checking that its report is clean");
    CHECK((r.status == tp::status::solved || !r.details.empty() ||
           r.status == tp::status::not_solved));
    return;
  }
  CHECK(r.status == tp::status::not_solved);
  CHECK_THAT(r.line, Catch::Contains("not solved"));
  CHECK_THAT(r.line, Catch::Contains(spec->stub_file));
  CHECK(r.details.empty());
  CHECK_THAT(r.json, Catch::Contains("\"kind\": \"not-solved\""));
}
