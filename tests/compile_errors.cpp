// The short compile-error report, from real compiler output: the logs in tests/data/compile_logs/
// are what g++ 12 (and nvcc 13, for the GPU module) printed for the five puzzles' kernels broken
// the ways a Triton user breaks them, with the paths replaced by @SOURCE@ and @PUZZLES@.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "checker/compile_errors.hpp"

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

std::string stored_log(const std::string& log_name) {
  // Appended rather than one `+` chain, which g++ 12 warns about wrongly (-Wrestrict, GCC bug 105329).
  std::string path = TILEPUZZLES_SOURCE_DIR;
  path += "/tests/data/compile_logs/";
  path += log_name;
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The report for a log, as if the learner's file were /learner/FILE.
tp::compile_report report_for_text(const std::string& text, const std::string& log_name,
                                   const std::string& kernel_file, bool gpu = false) {
  const std::string log = replace_all(replace_all(text, "@SOURCE@", "/project"),
                                      "@PUZZLES@", "/learner");
  tp::compile_log_context context;
  context.kernel_file = "/learner/" + kernel_file;
  context.shown_kernel_file = "student/" + kernel_file;
  context.learner_dir = "/learner";
  context.shown_learner_dir = "student";
  context.source_dir = "/project";
  context.log_file = "build/modules/x.stub.log";
  context.gpu = gpu;
  tp::compile_report report = tp::summarize_compile_log(log, context);
  UNSCOPED_INFO("report for " << log_name << ":\n" << report.message);
  return report;
}

// The report for a stored log, as if the learner's file were /learner/FILE.
tp::compile_report report_for(const std::string& log_name, const std::string& kernel_file,
                              bool gpu = false) {
  return report_for_text(stored_log(log_name), log_name, kernel_file, gpu);
}

int line_count(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n')) + 1;
}

int occurrences(const std::string& s, const std::string& part) {
  int n = 0;
  for (std::size_t at = s.find(part); at != std::string::npos; at = s.find(part, at + 1)) ++n;
  return n;
}

// What every report does: the learner's file first, short, the full log named at the end.
void check_shape(const tp::compile_report& r, const std::string& shown_file) {
  CHECK(r.message.rfind(shown_file + " does not compile", 0) == 0);
  CHECK(line_count(r.message) <= 15);
  CHECK_THAT(r.message, Catch::EndsWith("build/modules/x.stub.log"));
  // Nothing inside the tile language or the checker is given as the place to look.
  CHECK_THAT(r.message, !Catch::Contains("/project/"));
  CHECK_THAT(r.message, !Catch::Contains("required from"));
  CHECK_THAT(r.message, !Catch::Contains("tl::cpu::"));
}

// What one stored log's report must do: the shape every report has (check_shape; for the GPU
// module, its own first line), the learner's line it points at, what it says and what it leaves
// out, and how many errors it counts.
struct expected_report {
  std::string log;          // in tests/data/compile_logs/
  std::string kernel_file;  // the learner's file, shown as student/FILE
  int line = 0;             // r.source is student/FILE:line; 0: not checked
  std::vector<std::string> says = {};
  std::vector<std::string> omits = {};
  int errors = -1;  // -1: not checked
  bool gpu = false;
};

tp::compile_report check_report(const expected_report& e) {
  const auto r = report_for(e.log, e.kernel_file, e.gpu);
  const std::string shown = "student/" + e.kernel_file;
  if (e.gpu) {
    CHECK(r.message.rfind(shown + " does not compile for the GPU", 0) == 0);
    CHECK(line_count(r.message) <= 15);
  } else {
    check_shape(r, shown);
  }
  if (e.line != 0) CHECK(r.source == shown + ":" + std::to_string(e.line));
  for (const auto& part : e.says) CHECK_THAT(r.message, Catch::Contains(part));
  for (const auto& part : e.omits) CHECK_THAT(r.message, !Catch::Contains(part));
  if (e.errors >= 0) CHECK(r.errors == e.errors);
  return r;
}

}  // namespace

TEST_CASE("A keyword argument is reported at the learner's line with the positional form",
          "[compile-errors]") {
  check_report({.log = "vector_add_keyword_arguments.log",
                .kernel_file = "vector_add.hpp",
                .line = 15,
                .says = {"student/vector_add.hpp:15: 'mask' was not declared",
                         "hint: C++ has no keyword arguments", "tl::load(pointer, mask, other)"},
                .errors = 1});
}

TEST_CASE("Python's tl.arange(0, B0) is answered with the template form tl::arange<B0>()",
          "[compile-errors]") {
  check_report({.log = "constant_add_arange_start_stop.log",
                .kernel_file = "constant_add.hpp",
                .line = 16,
                .says = {"no matching function for call to 'arange(int, int)'",
                         "hint: a tile's size is a compile-time template argument: "
                         "tl.arange(0, B0) is tl::arange<B0>()"},
                .errors = 1});
}

TEST_CASE("Python's tl.load is answered with tl::load, and only where tl. is written",
          "[compile-errors]") {
  check_report({.log = "constant_add_tl_dot_load.log",
                .kernel_file = "constant_add.hpp",
                .line = 17,
                .says = {"expected primary-expression before '.' token",
                         "hint: tl is a C++ namespace: write tl::load"}});
  // The same compiler message on a line where `tl.` is only the end of a longer name gets no
  // tl:: hint.
  const auto other = report_for_text(
      replace_all(stored_log("constant_add_tl_dot_load.log"), "tl.load", "ctl.load"),
      "constant_add_tl_dot_load.log with ctl.load", "constant_add.hpp");
  CHECK_THAT(other.message, Catch::Contains("expected primary-expression before '.' token"));
  CHECK_THAT(other.message, !Catch::Contains("tl is a C++ namespace"));
}

TEST_CASE("std::max and std::exp on tiles: two errors, each once, in file order, with hints",
          "[compile-errors]") {
  const auto r = check_report({.log = "long_softmax_3loop_std_max_and_exp.log",
                               .kernel_file = "long_softmax_3loop.hpp",
                               .line = 24,
                               .says = {"(2 errors)", "tl::maximum(a, b)", "on a tile use tl::exp"},
                               .omits = {"__enable_if"},
                               .errors = 2});
  // The error inside <bits/stl_algobase.h> is placed at the learner's call, innermost first.
  const std::size_t max_at = r.message.find("student/long_softmax_3loop.hpp:24: in std::max:");
  const std::size_t exp_at = r.message.find("student/long_softmax_3loop.hpp:33: no matching function for call to 'exp(tl::tile<float, 1, 32>)'");
  CHECK(max_at != std::string::npos);
  CHECK(exp_at != std::string::npos);
  CHECK(max_at < exp_at);
  // The log repeats each error for both block sizes; the report says them once, with both.
  CHECK(occurrences(r.message, ":24:") == 1);
  CHECK(occurrences(r.message, ":33:") == 1);
  CHECK(occurrences(r.message, "with B0=1, B1=32 and B0=4, B1=64") == 2);
}

TEST_CASE("A broadcast error inside tile/ is reported at the learner's line with the rule's text",
          "[compile-errors]") {
  check_report({.log = "long_softmax_2loop_missing_col.log",
                .kernel_file = "long_softmax_2loop.hpp",
                .line = 29,
                // The static_assert's text, whole, without "static assertion failed"; only the
                // second block size breaks (B0 = 1 broadcasts against anything).
                .says = {"student/long_softmax_2loop.hpp:29: tl: these tile shapes cannot be "
                         "broadcast together.",
                         "Use x.col() (x[:, None]) or x.row() (x[None, :]) to add the missing axis.",
                         "with B0=4, B1=64\n"},
                .omits = {"static assertion", "B0=1"}});
}

TEST_CASE("if (mask) is reported with tl::where as the way out", "[compile-errors]") {
  check_report({.log = "flash_attention_simple_if_mask.log",
                .kernel_file = "flash_attention_simple.hpp",
                .line = 39,
                // Expression types are cut short.
                .says = {"to 'bool'", "with B0=1, B1=16 and B0=8, B1=32",
                         "tl::where(condition, a, b)", "tl::binary_expr<...>"}});
}

TEST_CASE("A tile of the wrong shape names the block sizes that break it", "[compile-errors]") {
  check_report({.log = "matmul_accumulator_shape.log",
                .kernel_file = "matmul.hpp",
                .line = 27,
                .says = {"student/matmul.hpp:27: tl::dot: acc must be [M, N]",
                         "with B0=32, B1=16, B_MID=32\n",
                         "keeps the dtype and shape it was declared with"}});
}

TEST_CASE("Printing a tile: 688 lines of g++ become a few", "[compile-errors]") {
  const auto r = check_report({.log = "long_softmax_2loop_print_tile.log",
                               .kernel_file = "long_softmax_2loop.hpp",
                               .says = {"student/long_softmax_2loop.hpp:17: no match for "
                                        "'operator<<'",
                                        "a tile cannot be printed"},
                               .omits = {"candidate"},
                               .errors = 1});
  CHECK(line_count(r.message) <= 6);
}

TEST_CASE("&& on masks is reported with & as the way to combine them", "[compile-errors]") {
  check_report({.log = "long_softmax_2loop_and_and_masks.log",
                .kernel_file = "long_softmax_2loop.hpp",
                .line = 16,
                .says = {"no match for 'operator&&'", "combine them lane by lane with & and |"}});
}

TEST_CASE("A missing semicolon points at the line before", "[compile-errors]") {
  check_report({.log = "long_softmax_2loop_missing_semicolon.log",
                .kernel_file = "long_softmax_2loop.hpp",
                .line = 17,
                .says = {"expected ',' or ';' before 'tl'", "missing its ';'"},
                // Not a template error: no block sizes to name.
                .omits = {"with B0"}});
}

TEST_CASE("A stub that includes a solution is told it cannot", "[compile-errors]") {
  // The include line, not the poisoned line inside solutions/.
  const auto r = check_report({.log = "long_softmax_2loop_includes_solution.log",
                               .kernel_file = "long_softmax_2loop.hpp",
                               .line = 4,
                               .says = {"student/long_softmax_2loop.hpp:4: includes "
                                        "solutions/long_softmax_2loop.hpp: a stub cannot use the "
                                        "reference solutions"},
                               .omits = {"poisoned"}});
  // The hint is said once, however many lines use the solution.
  CHECK(occurrences(r.message, "hint:") == 1);
}

TEST_CASE("nvcc's errors for the GPU module are read the same way", "[compile-errors]") {
  check_report({.log = "vector_add_sum_on_gpu_nvcc.log",
                .kernel_file = "vector_add.hpp",
                .line = 12,
                .says = {"student/vector_add.hpp:12: tl::sum, tl::max and tl::min are not on the "
                         "GPU backend yet: this kernel runs in the simulator only",
                         "with B0=32 and B0=256"},
                .errors = 1,
                .gpu = true});
}

TEST_CASE("nvcc's error for a num_warps that is not a power of two says which counts there are",
          "[compile-errors]") {
  // A real log: puzzles/vector_add.hpp with `num_warps = B0 >= 256 ? 8 : 6`, built as a GPU module.
  // A count that depends on the block sizes is fine (the module is built once per count its
  // configurations use, cmake/compile-logged.sh); 6 is not a count tl can be built for, and that
  // is the one error, not a second about the units the module was built in.
  check_report({.log = "vector_add_num_warps_not_power_of_two_nvcc.log",
                .kernel_file = "vector_add.hpp",
                .says = {"num_warps must be 1, 2, 4, 8, 16 or 32"},
                .omits = {"warp counts its GPU module was built for", "/project/"},
                .errors = 1,
                .gpu = true});
}

TEST_CASE("Output that is not a compiler's error list is shown as it is, shortly",
          "[compile-errors]") {
  tp::compile_log_context context;
  context.kernel_file = "/learner/vector_add.hpp";
  context.shown_kernel_file = "puzzles/vector_add.hpp";
  context.learner_dir = "/learner";
  context.shown_learner_dir = "puzzles";
  context.source_dir = "/project";
  context.log_file = "build/modules/vector_add.stub.log";
  std::string log = "g++: internal compiler error: Killed (program cc1plus)\n";
  for (int i = 0; i < 40; ++i) log += "more output\n";
  const auto r = tp::summarize_compile_log(log, context);
  CHECK(r.errors == 0);
  CHECK_THAT(r.message, Catch::StartsWith("puzzles/vector_add.hpp does not compile."));
  CHECK_THAT(r.message, Catch::Contains("internal compiler error: Killed"));
  CHECK(line_count(r.message) <= 13);
  CHECK_THAT(r.message, Catch::EndsWith("build/modules/vector_add.stub.log"));
}

TEST_CASE("Data tiles are named as the learner declares them, not as the backend spells them",
          "[compile-errors]") {
  // g++ names a tile tl::basic_tile<float, tl::shape<1, 32>, tl::layouts::flat>.
  SECTION("std::max on a loaded tile") {
    check_report({.log = "long_softmax_2loop_std_max_on_a_loaded_tile.log",
                  .kernel_file = "long_softmax_2loop.hpp",
                  .says = {"student/long_softmax_2loop.hpp:22: no matching function for call to "
                           "'max(tl::tile<float, 1, 32>&, float)'",
                           "with B0=1, B1=32 and B0=4, B1=64", "tl::maximum(a, b)"},
                  .omits = {"basic_tile"}});
  }
  SECTION("if on a comparison of tiles") {
    check_report({.log = "flash_attention_simple_if_on_a_comparison.log",
                  .kernel_file = "flash_attention_simple.hpp",
                  .says = {"from 'tl::tile<bool, 1>' to 'bool'", "tl::where(condition, a, b)"},
                  .omits = {"basic_tile"}});
  }
  SECTION("printing the accumulator") {
    check_report({.log = "matmul_print_accumulator.log",
                  .kernel_file = "matmul.hpp",
                  .says = {"student/matmul.hpp:22: no match for 'operator<<' (operand types are "
                           "'std::ostream' and 'tl::tile<float, 16, 16>')",
                           "with B0=16, B1=16, B_MID=16 and B0=32, B1=16, B_MID=32",
                           "a tile cannot be printed"}});
  }
}
