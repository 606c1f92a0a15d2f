// The learner's tools around `check`: a bare `tilepuzzles` says where to start, `hint` shows a
// puzzle's hints one at a time, `list` shows how far each puzzle is (from the last check), and
// `watch` checks again when a file is saved and stops cleanly on Ctrl-C.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checker/hints.hpp"
#include "checker/registry.hpp"
#include "cli_support.hpp"
#include "student_copy.hpp"

using namespace cli_support;
using namespace student_copy;

namespace {

// The status column of puzzle `p` in `list`'s output.
std::string list_status(const std::string& out, const tp::puzzle_spec& p) {
  const std::regex row("^ +" + std::to_string(p.number) + " +" + p.id + " +" +
                           std::regex_replace(p.title, std::regex(R"([()])"), R"(\$&)") +
                           " +(.*?) +[^ ]+$",
                       std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(out, m, row)) return "(no row for " + p.id + ")";
  return m[1].str();
}

std::string shell_quote(const std::string& s) { return "'" + s + "'"; }

// The output README.md's learner route shows after `$ COMMAND` (a code block of step 5, its list
// indentation removed), without the command and the "..." that stand for lines left out.
std::vector<std::string> readme_output_of(const std::string& command) {
  const std::string readme = read_text(std::string(TILEPUZZLES_SOURCE_DIR) + "/README.md");
  const std::string start = "\n   $ " + command + "\n";
  const std::size_t begin = readme.find(start);
  if (begin == std::string::npos) return {"(README.md shows no `$ " + command + "`)"};
  const std::size_t end = readme.find("\n   ```", begin);
  std::vector<std::string> lines;
  std::istringstream in(readme.substr(begin + start.size(), end - begin - start.size()));
  for (std::string line; std::getline(in, line);)
    if (line.size() > 3 && line.substr(3) != "...") lines.push_back(line.substr(3));
  return lines;
}

// The lines of `shown` (README's) that `real` (a run's output) lacks, each as a whole line with
// its indentation; empty when README shows nothing but what the run printed.
std::vector<std::string> lines_not_in(const std::vector<std::string>& shown,
                                      const std::string& real) {
  std::vector<std::string> missing;
  for (const std::string& line : shown)
    if (("\n" + real + "\n").find("\n" + line + "\n") == std::string::npos) missing.push_back(line);
  return missing;
}

}  // namespace

TEST_CASE("A bare tilepuzzles says what to run first", "[ux]") {
  const auto r = run_cli("");
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::Contains("tilepuzzles list"));
  CHECK_THAT(r.out, Catch::Contains("tilepuzzles check 1"));
  CHECK_THAT(r.out, Catch::Contains("tilepuzzles hint 1"));
  CHECK_THAT(r.out, !Catch::Contains("subcommand is required"));
}

TEST_CASE("hint shows a puzzle's hints one at a time, from its hints file", "[ux]") {
  const tp::puzzle_spec& p = puzzle("vector-add");
  const auto hints = tp::hints_in(read_text(std::string(TILEPUZZLES_SOURCE_DIR) + "/" +
                                            tp::hints_file(p)));
  REQUIRE(hints.size() == 3);

  SECTION("without a number, the first (gentle) hint, and how to get the next") {
    const auto r = run_cli("hint vector-add");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::StartsWith("Puzzle 3, vector-add: hint 1 of 3 (gentle)"));
    CHECK_THAT(r.out, Catch::Contains(hints[0].body));
    CHECK_THAT(r.out, !Catch::Contains(hints[1].body));
    CHECK_THAT(r.out, Catch::Contains("tilepuzzles hint 3 2"));
  }
  SECTION("each number its own hint, by number or id; the last says it is the last") {
    for (int n = 1; n <= 3; ++n) {
      const auto r = run_cli("hint 3 " + std::to_string(n));
      CHECK(r.exit_code == 0);
      CHECK(r.out == run_cli("hint vector-add " + std::to_string(n)).out);
      for (int other = 1; other <= 3; ++other)
        CHECK((r.out.find(hints[other - 1].body) != std::string::npos) == (other == n));
    }
    CHECK_THAT(run_cli("hint 3 3").out, Catch::Contains("last hint"));
  }
  SECTION("an unknown puzzle or hint number is a usage error that says what exists") {
    auto r = run_cli("hint 99");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("unknown puzzle '99'"));
    CHECK_THAT(r.err, Catch::Contains("3 (vector-add)"));
    CHECK(r.out.empty());
    for (const char* n : {"0", "4"}) {
      r = run_cli(std::string("hint 3 ") + n);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains("has hints 1 to 3; there is no hint " + std::string(n)));
      CHECK(r.out.empty());
    }
  }
}

TEST_CASE("list shows each puzzle's state from its last check", "[ux][modules]") {
  const std::string dir = fresh_dir("list-status");
  const tp::puzzle_spec& solved = puzzle("constant-add");
  const tp::puzzle_spec& broken = puzzle("constant-add-block");
  const tp::puzzle_spec& wrong = puzzle("vector-add");
  const tp::puzzle_spec& untouched = puzzle("outer-add");
  write_text(dir + "/" + stub_name(solved), solved_stub(solved));
  write_text(dir + "/" + stub_name(broken),
             replace_all(solved_stub(broken), "+ 10.0f, mask);", "+ 10.0f, mask)"));
  const std::string wrong_text =
      replace_all(solved_stub(wrong), "+ tl::load(y + offsets", "- tl::load(y + offsets");
  REQUIRE(wrong_text != solved_stub(wrong));
  write_text(dir + "/" + stub_name(wrong), wrong_text);

  // A kernel never checked in this form is "changed since checked"; the shipped one "not started".
  write_text(dir + "/" + stub_name(solved), solved_stub(solved) + "// never checked like this\n");
  auto r = run_cli("list --puzzles " + dir);
  CHECK(list_status(r.out, solved) == "changed since checked");
  CHECK(list_status(r.out, untouched) == "not started");
  write_text(dir + "/" + stub_name(solved), solved_stub(solved));
  r = run_cli("check --puzzles " + dir + " 1 2 3 4");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("Overall, 1 of " + std::to_string(tp::all_puzzles().size())));

  r = run_cli("list --puzzles " + dir);
  CHECK(r.exit_code == 0);
  CHECK(list_status(r.out, solved) == "solved");
  CHECK(list_status(r.out, broken) == "compile-error");
  CHECK(list_status(r.out, wrong) == "failing (wrong-result)");
  CHECK(list_status(r.out, untouched) == "not started");
  CHECK_THAT(r.out, Catch::Contains("1 of " + std::to_string(tp::all_puzzles().size()) +
                                    " puzzles solved"));
  CHECK_THAT(r.out, Catch::Contains("Next: puzzle 2 (constant-add-block)"));

  SECTION("an edit after the check makes the verdict stale") {
    write_text(dir + "/" + stub_name(solved), solved_stub(solved) + "// edited\n");
    r = run_cli("list --puzzles " + dir);
    CHECK(list_status(r.out, solved) == "changed since checked");
    CHECK_THAT(r.out, Catch::Contains("0 of "));
    write_text(dir + "/" + stub_name(solved), solved_stub(solved));  // as checked: solved again
    CHECK(list_status(run_cli("list --puzzles " + dir).out, solved) == "solved");
  }
  SECTION("a check in one order only is not remembered as a verdict") {
    write_text(dir + "/" + stub_name(wrong), solved_stub(wrong));
    run_cli("check --puzzles " + dir + " --order forward 3");
    CHECK(list_status(run_cli("list --puzzles " + dir).out, wrong) == "changed since checked");
    write_text(dir + "/" + stub_name(wrong), wrong_text);
  }
}

TEST_CASE("check of solved puzzles names the next puzzle to try, and of a failing one, that one",
          "[ux][modules]") {
  const std::string dir = fresh_dir("next-puzzle");
  const tp::puzzle_spec& first = puzzle("constant-add");
  write_text(dir + "/" + stub_name(first), solved_stub(first));
  auto r = run_cli("check --puzzles " + dir + " 1");
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Overall, 1 of " + std::to_string(tp::all_puzzles().size())));
  CHECK_THAT(r.out, Catch::Contains("Next: puzzle 2 (constant-add-block): 'tilepuzzles show 2', "
                                    "then edit "));
  // Puzzle 2 is checked and not solved: it is the one named, once.
  r = run_cli("check --puzzles " + dir + " 1 2");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out, Catch::Contains("Next: puzzle 2 (constant-add-block): edit "));
  CHECK_THAT(r.out, !Catch::Contains("'tilepuzzles show 2'"));
}

TEST_CASE("watch checks again when a file is saved, and Ctrl-C ends it cleanly", "[ux][modules]") {
  const std::string dir = fresh_dir("watch");
  const tp::puzzle_spec& p = puzzle("vector-add");
  const std::string file = dir + "/" + stub_name(p);
  write_text(file, empty_stub(p));
  write_text(dir + "/.solved", solved_stub(p));

  SECTION("a save starts a check of the new kernel") {
    // The file is saved once the first check is over and watch waits.
    const std::string out = dir + "/.out";
    std::remove(out.c_str());
    const auto r = run_cli("watch 3 --once --interval 50 --puzzles " + shell_quote(dir) + " > " +
                           shell_quote(out) + " & pid=$!; for i in $(seq 600); do grep -q Watching " +
                           shell_quote(out) + " && break; sleep 0.1; done; mv " +
                           shell_quote(dir + "/.solved") + " " + shell_quote(file) +
                           "; wait $pid; echo \"exit $?\"; cat " + shell_quote(out));
    CHECK_THAT(r.out, Catch::StartsWith("exit 0"));
    const std::size_t changed = r.out.find("Changed: ");
    REQUIRE(changed != std::string::npos);
    CHECK_THAT(r.out.substr(0, changed), Catch::Contains("not solved"));
    CHECK_THAT(r.out.substr(changed), Catch::Contains("vector_add.hpp"));
    CHECK_THAT(puzzle_line(r.out.substr(changed), p), Catch::Contains(" solved "));
  }
  SECTION("SIGINT stops it with exit status 0") {
    const std::string out = dir + "/.out";
    std::remove(out.c_str());
    const auto r = run_cli("watch 3 --puzzles " + shell_quote(dir) + " > " + shell_quote(out) +
                           " & pid=$!; for i in $(seq 600); do grep -q Watching " +
                           shell_quote(out) + " && break; sleep 0.1; done; kill -INT $pid; "
                           "wait $pid; echo \"exit $?\"; cat " + shell_quote(out));
    CHECK_THAT(r.out, Catch::Contains("exit 0"));
    CHECK_THAT(r.out, Catch::Contains("Stopped watching."));
  }
}

namespace {

// The rows of the map of `buffer` in show's plain output.
std::vector<std::string> map_rows(const std::string& out, const std::string& buffer) {
  std::vector<std::string> rows;
  std::istringstream in(out);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(buffer + ": float32 ", 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    // A row is its cells, with blanks only after the last element of a wrapped 1-D buffer.
    const std::size_t end = line.find_last_not_of(' ');
    if (line.size() < 3 || line.rfind("  ", 0) != 0 || end == std::string::npos ||
        line.substr(2, end - 1).find(' ') != std::string::npos)
      break;
    rows.push_back(line.substr(2));
  }
  return rows;
}

}  // namespace

TEST_CASE("show prints the page, which holds no hint, and says how to ask for them one at a time",
          "[ux][show]") {
  for (const tp::puzzle_spec* p : tp::all_puzzles()) {
    INFO(p->id);
    const auto hints = tp::hints_in(read_text(std::string(TILEPUZZLES_SOURCE_DIR) + "/" +
                                              tp::hints_file(*p)));
    REQUIRE(hints.size() == 3);
    const auto r = run_cli("show " + std::to_string(p->number) + " --no-run");
    CHECK(r.exit_code == 0);
    for (const auto& h : hints) CHECK_THAT(r.out, !Catch::Contains(h.body));
    CHECK_THAT(r.out, !Catch::Contains("<details>"));
    const std::string n = std::to_string(p->number);
    CHECK_THAT(r.out, Catch::Contains("## Hints"));
    CHECK_THAT(r.out, Catch::Contains("tilepuzzles hint " + n + "` (gentle)"));
    CHECK_THAT(r.out, Catch::Contains("`hint " + n + " 3` (nearly the answer)"));
    // The rest of the page is there, after the hints as before them.
    CHECK_THAT(r.out, Catch::Contains("## The math"));
    CHECK_THAT(r.out, Catch::Contains("## What the checker enforces"));
  }
}

TEST_CASE("show maps which program touched which elements, and what went wrong", "[ux][show]") {
  const std::string dir = fresh_dir("show");
  const tp::puzzle_spec& p = puzzle("vector-add");
  const std::string of_all = " of " + std::to_string(p.cases.size()) + ": ";  // "case 4 of N: "
  SECTION("the reference solution: four programs of 32, the tail masked, nothing wrong") {
    const auto r = run_cli("show 3 --impl solution --case 4");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("case 4 of " + std::to_string(p.cases.size()) +
                                      ": N0=100, B0=32, order forward"));
    const auto z = map_rows(r.out, "z");
    REQUIRE(z.size() == 2);
    CHECK(z[0] == std::string(32, '0') + std::string(32, '1'));
    CHECK(z[1] == std::string(32, '2') + std::string(4, '3') + std::string(28, ' '));
    CHECK_THAT(r.out, Catch::Contains("28 masked-off lanes point outside x"));
    CHECK_THAT(r.out, Catch::Contains("the sizes it allows, where every index is checked to "
                                      "stay in int32: " + p.size_bounds_rule));
    CHECK_THAT(r.out, Catch::Contains("each element read at most once"));
    CHECK_THAT(r.out, Catch::Contains("This run is right"));
    CHECK(r.out.find('\033') == std::string::npos);  // not a terminal: plain text
  }
  SECTION("one program's map") {
    const auto r = run_cli("show 3 --impl solution --case 4 --program 1");
    CHECK(r.exit_code == 0);
    const auto x = map_rows(r.out, "x");
    REQUIRE(x.size() == 2);
    CHECK(x[0] == std::string(32, '.') + std::string(32, 'L'));
    CHECK(x[1] == std::string(36, '.') + std::string(28, ' '));
    CHECK(map_rows(r.out, "z")[0] == std::string(32, '.') + std::string(32, 'S'));
  }
  SECTION("a half-precision puzzle runs with its kernel's dtype and tolerance") {
    const auto r = run_cli("show flash-attention --impl solution --case 1");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("This run is right"));
  }
  SECTION("a kernel without masks: the lanes out of bounds and the cells never written") {
    write_text(dir + "/" + stub_name(p), replace_all(solved_stub(p), ", mask)", ")"));
    const auto r = run_cli("show 3 --case 4 --puzzles " + dir);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("out of bounds: program (3, 0, 0) loads 28 lanes outside"));
    const auto z = map_rows(r.out, "z");
    REQUIRE(z.size() == 2);
    CHECK(z[1] == std::string(32, '2') + "####" + std::string(28, ' '));
    CHECK_THAT(r.out, Catch::Contains("out-of-bounds: program (3, 0, 0)"));
    // check --html draws the run the check failed on, run again in the sandbox as show runs it.
    const std::string page = dir + "-check.html";
    const auto checked = run_cli("check 3 --puzzles " + dir + " --html " + page);
    CHECK(checked.exit_code == 1);
    const std::string html = read_text(page);
    CHECK_THAT(html, Catch::Contains("class=\"map\" data-buffer=\"z\""));
    CHECK_THAT(html, !Catch::Contains("No maps"));
  }
  SECTION("a mask off by one: the one lane past the end, at its one offset") {
    const std::string kernel = replace_all(solved_stub(p), "offsets < N0", "offsets <= N0");
    REQUIRE(kernel != solved_stub(p));
    write_text(dir + "/" + stub_name(p), kernel);
    const auto r = run_cli("show 3 --case 4 --puzzles " + dir);
    // x or y, whichever of the sum's two loads the compiler evaluates first.
    CHECK_THAT(r.out, Catch::Matches(R"([\s\S]*out of bounds: program \(3, 0, 0\) loads 1 lane )"
                                     R"(outside [xy], at offset 100 \(valid: 0 to 99\)[\s\S]*)"));
  }
  SECTION("elements nothing wrote are unwritten-output, as check says, not nan-inf") {
    // A tile of 16 lanes where the block has 32: the last 16 elements of each block stay poison.
    const std::string kernel = replace_all(solved_stub(p), "tl::arange<B0>()", "tl::arange<16>()");
    REQUIRE(kernel != solved_stub(p));
    write_text(dir + "/" + stub_name(p), kernel);
    const auto r = run_cli("show 3 --case 4 --puzzles " + dir);
    CHECK_THAT(r.out, Catch::Contains("unwritten-output: case 4" + of_all + "N0=100, B0=32, order "
                                      "forward: 48 of 100 elements of z were never written. The "
                                      "first: z[16] z[17] z[18] z[19]"));
    CHECK_THAT(r.out, !Catch::Contains("nan-inf"));
    CHECK_THAT(run_cli("check 3 --puzzles " + dir).out, Catch::Contains("unwritten-output"));
  }
  SECTION("what tl::print printed, after the maps; check prints none of it") {
    const std::string kernel = solved_stub(p);
    const std::size_t line_end = kernel.find('\n', kernel.find("auto offsets ="));
    write_text(dir + "/" + stub_name(p), kernel.substr(0, line_end + 1) +
                                             "    tl::print(\"offsets\", offsets);\n" +
                                             kernel.substr(line_end + 1));
    const auto r = run_cli("show 3 --case 4 --puzzles " + dir);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("What tl::print printed"));
    CHECK_THAT(r.out, Catch::Contains("[program (3, 0, 0)] "));
    CHECK_THAT(r.out, Catch::Contains("offsets: int32 [32] = [96, 97, 98, 99, 100,"));
    CHECK_THAT(r.out, Catch::Contains("This run is right"));
    const auto check = run_cli("check 3 --puzzles " + dir);
    CHECK(check.exit_code == 0);
    CHECK_THAT(check.out, !Catch::Contains("[program "));
  }
  SECTION("a kernel that crashes is reported, and show ends cleanly") {
    const std::string kernel = solved_stub(p);
    const std::size_t line_end = kernel.find('\n', kernel.find("auto offsets ="));
    write_text(dir + "/" + stub_name(p), "#include <cstdlib>\n" + kernel.substr(0, line_end + 1) +
                                             "    if (tl::program_id(0) == 1) std::abort();\n" +
                                             kernel.substr(line_end + 1));
    const auto r = run_cli("show 3 --case 4 --puzzles " + dir);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.out, Catch::Contains("crash: the kernel crashed with signal 6"));
    CHECK_THAT(r.out, Catch::Contains("'tilepuzzles check 3' says where"));
  }
  SECTION("colour only when asked for or on a terminal, never with NO_COLOR") {
    CHECK(run_cli("show 3 --impl solution --color always").out.find("\033[") != std::string::npos);
    CHECK(run_cli("show 3 --impl solution").out.find('\033') == std::string::npos);
    CHECK(run_cli("show 3 --impl solution --color always --no-run").out.find('\033') ==
          std::string::npos);
  }
  SECTION("--html with --no-run is a usage error, not a page silently left unwritten") {
    const std::string html = dir + "/no-run.html";
    std::remove(html.c_str());
    const auto r = run_cli("show 3 --no-run --html " + html);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("--html draws a run of the kernel"));
    CHECK(r.out.empty());
    CHECK(read_text(html).empty());
  }
  SECTION("a bad option is a usage error that prints nothing on stdout, the page included") {
    const std::string cases = std::to_string(p.cases.size());
    const std::string past_the_last = "show 3 --case " + std::to_string(p.cases.size() + 1);
    const std::pair<std::string, std::string> bad[] = {
        {"show 3 --impl solution --case 4 --program 4", "program ids go from (0, 0, 0) to (3, 0, 0)"},
        {past_the_last, "has cases 1 to " + cases},
        {"show 3 --blocks B0=64", "is checked with B0=32, B0=256; name one of them"},
        {"show 3 --blocks B1=32", "is checked with B0=32, B0=256"},
        {"show 1 --case 1 --blocks B0=128", "--case 1 runs with --blocks B0=32 only"},
        {"show 3 --order sideways", "--order"},
        {"show 3 --puzzles /nonexistent/puzzles", "/nonexistent/puzzles"}};
    for (const auto& [command, message] : bad) {
      INFO(command);
      const auto r = run_cli(command);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err, Catch::Contains(message));
      CHECK(r.out.empty());
    }
    // Its twin: the same options, valid, print the page and the run.
    const auto r =
        run_cli("show 3 --impl solution --case 4 --program 3 --blocks B0=32 --order reverse");
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("# Puzzle 3: vector-add"));
    CHECK_THAT(r.out, Catch::Contains("case 4 of " + cases + ": N0=100, B0=32, order reverse"));
  }
}

TEST_CASE("show replays the run check failed on, block sizes and all", "[ux][show][modules]") {
  // A long sum without the store's mask: right with B0 = 1, out of bounds with B0 = 4.
  const std::string dir = fresh_dir("show-replay");
  const tp::puzzle_spec& p = puzzle("long-sum");
  const std::string of_all = " of " + std::to_string(p.cases.size()) + ": ";
  const std::string kernel = replace_all(solved_stub(p), "tl::store(z + rows, row_sum, row_mask);",
                                         "tl::store(z + rows, row_sum);");
  REQUIRE(kernel != solved_stub(p));
  write_text(dir + "/" + stub_name(p), kernel);
  const auto check = run_cli("check 8 --puzzles " + dir);
  CHECK(check.exit_code == 1);
  CHECK_THAT(check.out, Catch::Contains("(case 1" + of_all + "N0=1, T=1, B0=4, B1=64, order forward)"));
  const std::string replay = "tilepuzzles show 8 --case 1 --blocks B0=4,B1=64 --puzzles " + dir;
  CHECK_THAT(check.out, Catch::Contains("To see this run: " + replay));

  SECTION("show with no case draws that run") {
    const auto r = run_cli("show 8 --puzzles " + dir);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("--- The run your last check failed on (tilepuzzles show 8 "
                                      "--case 1 --blocks B0=4,B1=64; --case N for another)"));
    CHECK_THAT(r.out, Catch::Contains("case 1" + of_all + "N0=1, T=1, B0=4, B1=64, order forward"));
    CHECK_THAT(r.out, Catch::Contains("out of bounds: program (0, 0, 0) stores 3 lanes outside z"));
    CHECK_THAT(r.out, !Catch::Contains("This run is right"));
  }
  SECTION("README's learner route shows this route's real output") {
    // README's kernel is this one, run from the project's root on puzzles/: the same output but
    // for the directory, which the reports name in full or from the working directory.
    const auto from_root = [&](const std::string& out) {
      return std::regex_replace(replace_all(out, " --puzzles " + dir, ""),
                                std::regex(R"([^ (]*/show-replay/)"), "puzzles/");
    };
    const auto shown_check = readme_output_of("./build/tilepuzzles check 8");
    const auto shown_show = readme_output_of("./build/tilepuzzles show 8");
    CHECK(shown_check.size() > 8);
    CHECK(shown_show.size() > 4);
    const std::string real_check = from_root(check.out);
    const std::string real_show = from_root(run_cli("show 8 --puzzles " + dir).out);
    for (const std::string& line : lines_not_in(shown_check, real_check)) FAIL_CHECK(line);
    for (const std::string& line : lines_not_in(shown_show, real_show)) FAIL_CHECK(line);
    // The comparison can fail: the first block sizes' run in place of the failed one, or a line
    // number one off, is found.
    const std::vector<std::string> first_blocks = {
        "    (case 1" + of_all + "N0=1, T=1, B0=1, B1=32, order forward)"};
    CHECK(lines_not_in(first_blocks, real_check) == first_blocks);
    const std::vector<std::string> line_off = {
        "  out-of-bounds: program (0, 0, 0) stores to z outside the buffer at "
        "puzzles/long_sum.hpp:25"};
    CHECK(lines_not_in(line_off, real_check) == line_off);
  }
  SECTION("the command the report names draws it too; the case alone runs the first block sizes") {
    const auto r = run_cli(replay.substr(std::string("tilepuzzles ").size()));
    CHECK_THAT(r.out, Catch::Contains("out-of-bounds: program (0, 0, 0) stores to z"));
    const auto first = run_cli("show 8 --case 1 --puzzles " + dir);
    CHECK_THAT(first.out, Catch::Contains("case 1" + of_all + "N0=1, T=1, B0=1, B1=32, order forward"));
    CHECK_THAT(first.out, Catch::Contains("This run is right"));
  }
  SECTION("once the check passes, show runs its first case with several programs again") {
    write_text(dir + "/" + stub_name(p), solved_stub(p));
    CHECK(run_cli("check 8 --puzzles " + dir).exit_code == 0);
    const auto r = run_cli("show 8 --puzzles " + dir);
    CHECK_THAT(r.out, !Catch::Contains("The run your last check failed on"));
    CHECK_THAT(r.out, Catch::Contains("This run is right"));
  }
}

TEST_CASE("show's maps give each row of conv2d's images a row of cells", "[ux][show]") {
  // Four images of 8 x 8: 32 rows, one cell each, so an image's edge is a row of cells.
  const auto r = run_cli("show conv2d --impl solution --case 2");
  CHECK(r.exit_code == 0);
  CHECK(map_rows(r.out, "x").size() == 32);
  CHECK(map_rows(r.out, "z").size() == 32);
  // Wider than 64 columns, every cell covers the same number of columns (the last ones fewer):
  // long-sum's rows of 1000 in cells of 16, never cells of 15 next to cells of 16.
  const auto& long_sum = puzzle("long-sum").cases;
  const auto rows_of_1000 = std::find_if(long_sum.begin(), long_sum.end(), [](const auto& c) {
    return c.sizes == std::vector<int>{2, 1000};
  });
  REQUIRE(rows_of_1000 != long_sum.end());
  const auto wide = run_cli("show long-sum --impl solution --case " +
                            std::to_string(rows_of_1000 - long_sum.begin() + 1));
  CHECK_THAT(wide.out, Catch::Contains("x: float32 [2, 1000], input, 2 x 1000 elements as 2 x 63 "
                                       "cells of 1 x 16"));
}
