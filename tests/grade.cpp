// `tilepuzzles grade` (checker/grade.hpp) on a generated class (tests/grading/make_class.sh):
// the summary, the JUnit file and each student's Gradescope results.json, checked against the
// fields Gradescope documents; the cache by stub content; the refusal without a sandbox; the
// points file's errors. Four puzzles are graded: enough for every kind of copy the class holds,
// and cheap to compile.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <ctime>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/grade.hpp"
#include "checker/registry.hpp"
#include "checker/sandbox.hpp"
#include "cli_support.hpp"
#include "student_copy.hpp"

using namespace cli_support;
using namespace student_copy;

namespace {

std::string work_dir() { return TILEPUZZLES_TEST_WORK_DIR; }

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// The points of the four graded puzzles; every other puzzle 0 (not checked).
const std::map<std::string, double> graded_points = {
    {"constant-add", 2}, {"constant-add-block", 3}, {"vector-add", 4}, {"outer-add", 4}};

std::string points_file() {
  const std::string path = work_dir() + "/grade-points.txt";
  std::string text = "# the puzzles tests/grade.cpp grades\n";
  for (const tp::puzzle_spec* p : tp::all_puzzles()) {
    const auto it = graded_points.find(p->id);
    text += p->id + " " + (it == graded_points.end() ? std::string("0") : std::to_string(static_cast<int>(it->second))) + "\n";
  }
  ::mkdir(work_dir().c_str(), 0777);
  write_text(path, text);
  return path;
}

// The generated class of `count` copies, in its directory under the build tree.
std::string generated_class(const std::string& name, int count) {
  ::mkdir(work_dir().c_str(), 0777);
  const std::string dir = work_dir() + "/" + name;
  const std::string command = "bash '" + std::string(TILEPUZZLES_SOURCE_DIR) +
                              "/tests/grading/make_class.sh' '" + dir + "' " + std::to_string(count);
  REQUIRE(std::system(command.c_str()) == 0);
  return dir;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, ',');) fields.push_back(f);
  if (!line.empty() && line.back() == ',') fields.push_back("");
  return fields;
}

// "N of M verdicts from the cache" in grade's last line: {N, M}.
std::pair<int, int> from_cache(const std::string& out) {
  std::smatch m;
  const std::regex counts("(\\d+) of (\\d+) verdicts from the cache");
  REQUIRE(std::regex_search(out, m, counts));
  return {std::stoi(m[1]), std::stoi(m[2])};
}

// Gradescope's documented fields (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
void check_gradescope_results(const json& r, const std::string& who) {
  INFO(who << "'s results.json");
  const std::set<std::string> top = {"score", "execution_time", "output", "output_format",
                                     "test_output_format", "test_name_format", "visibility",
                                     "stdout_visibility", "extra_data", "tests", "leaderboard"};
  const std::set<std::string> test = {"score", "max_score", "status", "name", "name_format",
                                      "number", "output", "output_format", "tags", "visibility",
                                      "extra_data"};
  REQUIRE(r.t == json::type::object);
  for (const auto& [key, value] : r.members) CHECK(top.count(key) == 1);
  REQUIRE(r.has("score"));
  REQUIRE(r["score"].t == json::type::number);
  REQUIRE(r.has("tests"));
  CHECK(r["output"].t == json::type::string);
  CHECK(r["tests"].items.size() == graded_points.size());
  double sum = 0;
  for (const json& t : r["tests"].items) {
    for (const auto& [key, value] : t.members) CHECK(test.count(key) == 1);
    CHECK(t["name"].t == json::type::string);
    CHECK(t["output"].t == json::type::string);
    CHECK(t["score"].t == json::type::number);
    CHECK(t["max_score"].t == json::type::number);
    CHECK(t["score"].number <= t["max_score"].number);
    CHECK((t["status"].string == "passed" || t["status"].string == "failed"));
    CHECK((t["status"].string == "passed") == (t["score"].number == t["max_score"].number));
    CHECK_THAT(t["output"].string, !Catch::Contains("Next: ") && !Catch::Contains("Overall, "));
    sum += t["score"].number;
  }
  CHECK(r["score"].number == sum);
}

}  // namespace

TEST_CASE("grade checks a class of 30 and writes the summary, JUnit and Gradescope's results",
          "[grade]") {
  const auto why = tp::sandbox::unavailable();
  INFO("grading needs the sandbox: " << why.value_or(""));
  REQUIRE_FALSE(why.has_value());
  const std::string class_dir = generated_class("grade-class", 30);
  const std::string out = work_dir() + "/grade-class-out";
  const auto r = run_cli("grade '" + class_dir + "' -j2 --out '" + out + "' --points " + points_file());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Graded 30 copies of 4 puzzles"));
  CHECK_THAT(r.err, Catch::Contains("30 of 30 copies graded"));

  // The summary: one row per student and puzzle.
  const std::vector<std::string> rows = lines_of(read_text(out + "/summary.csv"));
  REQUIRE(rows.size() == 1 + 30 * graded_points.size());
  CHECK(rows[0] == "student,number,puzzle,verdict,kind,points,max_points,cached");
  std::map<std::string, std::vector<std::string>> row;  // "student-NN puzzle" -> fields
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto f = csv_fields(rows[i]);
    REQUIRE(f.size() == 8);
    row[f[0] + " " + f[2]] = f;
  }
  auto verdict = [&](const std::string& student, const std::string& puzzle) {
    const auto& f = row.at(student + " " + puzzle);
    return f[3] + (f[4].empty() ? "" : " " + f[4]) + " " + f[5] + "/" + f[6];
  };
  CHECK(verdict("student-05", "vector-add") == "solved 4/4");        // every puzzle solved
  CHECK(verdict("student-05", "outer-add") == "solved 4/4");
  CHECK(verdict("student-01", "outer-add") == "not-solved not-solved 0/4");  // 1 to 3 solved
  CHECK(verdict("student-01", "constant-add-block") == "solved 3/3");
  CHECK(verdict("student-02", "constant-add") == "failed wrong-result 0/2");
  CHECK(verdict("student-03", "constant-add") == "not-solved not-solved 0/2");
  CHECK(verdict("student-04", "vector-add") == "failed out-of-bounds 0/4");
  CHECK(verdict("student-29", "vector-add") == "failed compile-error 0/4");
  CHECK(verdict("student-29", "outer-add") == "not-solved not-solved 0/4");  // the next one
  CHECK(verdict("student-30", "constant-add") == "failed sandbox 0/2");
  CHECK(verdict("student-30", "constant-add-block") == "solved 3/3");
  CHECK_FALSE(exists(class_dir + "/hostile-was-here"));

  const json summary = parse_json(read_text(out + "/summary.json"));
  REQUIRE(summary["students"].items.size() == 30);
  CHECK(summary["sandbox"].boolean);
  for (const json& s : summary["students"].items) {
    const std::string name = s["name"].string;
    double expected = 0;
    for (const auto& [puzzle, points] : graded_points)
      expected += std::stod(row.at(name + " " + puzzle)[5]);
    CHECK(s["score"].number == expected);
    CHECK(s["max_score"].number == 13);
    // Each student's own reports, and Gradescope's file.
    const std::string dir = out + "/students/" + name;
    CHECK_THAT(read_text(dir + "/report.txt"), Catch::Contains("Grading " + name));
    CHECK(parse_json(read_text(dir + "/report.json")).items.size() == graded_points.size());
    const json results = parse_json(read_text(dir + "/results.json"));
    check_gradescope_results(results, name);
    CHECK(results["score"].number == expected);
  }

  // JUnit: a suite per student, named after them; a failure's message says what failed.
  const std::string junit = read_text(out + "/junit.xml");
  CHECK_THAT(junit, Catch::Contains("<testsuite name=\"student-30\" tests=\"4\" failures=\"1\""));
  CHECK_THAT(junit, Catch::Contains("<failure type=\"sandbox\" message=\"sandbox: the kernel tried "
                                    "to open " + class_dir + "/hostile-was-here for writing"));
  CHECK_THAT(junit, Catch::Contains("<failure type=\"compile-error\" message=\"compile-error: "));
  CHECK_THAT(junit, !Catch::Contains("message=\"\""));
  CHECK_THAT(junit, !Catch::Contains("(empty)"));
  CHECK_THAT(junit, !Catch::Contains("Next: ") && !Catch::Contains("Overall, "));

  SECTION("grading again takes every verdict but the compile error's from the cache") {
    const std::string first = read_text(out + "/summary.csv");
    const auto again = run_cli("grade '" + class_dir + "' -j2 --out '" + out + "' --points " + points_file());
    CHECK(again.exit_code == 0);
    CHECK(from_cache(again.out) == std::pair<int, int>{119, 120});
    // The same verdicts, now from the cache.
    CHECK(replace_all(read_text(out + "/summary.csv"), ",yes\n", ",no\n") ==
          replace_all(first, ",yes\n", ",no\n"));
  }
  SECTION("after a student's fix, only the changed stub is checked again") {
    const std::string stub = class_dir + "/student-02/constant_add.hpp";
    SECTION("a fix that makes it another copy's solved stub: that verdict, from the cache") {
      write_text(stub, replace_all(read_text(stub), "+ 11.0f", "+ 10.0f"));
      const auto fixed = run_cli("grade '" + class_dir + "' -j2 --out '" + out + "' --points " + points_file());
      CHECK(fixed.exit_code == 0);
      CHECK(from_cache(fixed.out) == std::pair<int, int>{119, 120});
    }
    SECTION("a fix no other copy has: checked") {
      write_text(stub, replace_all(read_text(stub), "+ 11.0f", "+ 10.0f") + "// fixed at " +
                           std::to_string(std::time(nullptr)) + "\n");
      const auto fixed = run_cli("grade '" + class_dir + "' -j2 --out '" + out + "' --points " + points_file());
      CHECK(fixed.exit_code == 0);
      CHECK(from_cache(fixed.out) == std::pair<int, int>{118, 120});
    }
    CHECK_THAT(read_text(out + "/summary.csv"), Catch::Contains("student-02,1,constant-add,solved,,2,2,"));
    // make_class.sh puts the class back as it was made at the next run of this test.
  }
}

TEST_CASE("grade refuses to grade without a sandbox unless told --no-sandbox", "[grade]") {
  // A class of one: the refusal and the summary's field need no more, and each student costs its
  // four modules' compiles in each section that grades.
  const std::string class_dir = generated_class("grade-one-student", 1);
  const std::string out = work_dir() + "/grade-one-student-out";
  std::remove((out + "/summary.json").c_str());
  const std::string command = "grade '" + class_dir + "' --out '" + out + "' --points " + points_file();
  SECTION("no sandbox: refused, nothing written") {
    ::setenv("TILEPUZZLES_BWRAP", "/nonexistent/bwrap", 1);
    const auto r = run_cli(command);
    ::unsetenv("TILEPUZZLES_BWRAP");
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("no sandbox on this machine"));
    CHECK_THAT(r.err, Catch::Contains("--no-sandbox"));
    CHECK_FALSE(exists(out + "/summary.json"));
  }
  SECTION("no sandbox, --no-sandbox: graded, and the summary says how") {
    ::setenv("TILEPUZZLES_BWRAP", "/nonexistent/bwrap", 1);
    const auto r = run_cli(command + " --no-sandbox");
    ::unsetenv("TILEPUZZLES_BWRAP");
    CHECK(r.exit_code == 0);
    CHECK_FALSE(parse_json(read_text(out + "/summary.json"))["sandbox"].boolean);
  }
  SECTION("a sandbox: graded in it") {
    const auto r = run_cli(command);
    CHECK(r.exit_code == 0);
    CHECK(parse_json(read_text(out + "/summary.json"))["sandbox"].boolean);
  }
}

TEST_CASE("grade says what is wrong with a points file, and takes the project's own", "[grade]") {
  const std::string class_dir = generated_class("grade-small-class", 2);
  const std::string bad = work_dir() + "/grade-bad-points.txt";
  SECTION("a puzzle without a line") {
    write_text(bad, "constant-add 2\n");
    const auto r = run_cli("grade '" + class_dir + "' --points " + bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(bad + ": no line for puzzle 'constant-add-block'"));
  }
  SECTION("a name that is no puzzle's id") {
    write_text(bad, "vector-ad 2\n");
    const auto r = run_cli("grade '" + class_dir + "' --points " + bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(bad + ":1: 'vector-ad' is not a puzzle's id"));
  }
  SECTION("points that are not a number") {
    write_text(bad, "vector-add ten\n");
    const auto r = run_cli("grade '" + class_dir + "' --points " + bad);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(bad + ":1: 'ten' is not a number of points"));
  }
  SECTION("the project's own points file is complete") {
    tp::grade::points_table table;
    CHECK_FALSE(tp::grade::read_points(tp::grade::default_points_file(), table).has_value());
    CHECK(table.points.size() == tp::all_puzzles().size());
  }
  SECTION("no such class directory") {
    const auto r = run_cli("grade '" + work_dir() + "/no-such-class'");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("no such directory"));
  }
}

TEST_CASE("Gradescope's run_autograder grades one submission into results.json", "[grade]") {
  const std::string class_dir = generated_class("grade-class", 30);
  const std::string root = work_dir() + "/gradescope";
  ::mkdir(root.c_str(), 0777);
  // Gradescope's layout: the autograder's source (this repository), the submission (a copy of a
  // student whose vector-add forgets its mask), the results. A copy, not a link: the class's own
  // test checks that student at the same time, and a directory's modules are built in one build
  // tree per path (configured with this run's source link), which the two would share.
  const std::string source = root + "/source";
  std::remove(source.c_str());
  REQUIRE(::symlink(TILEPUZZLES_SOURCE_DIR, source.c_str()) == 0);
  const std::string submission = root + "/submission";
  std::filesystem::remove_all(submission);
  std::filesystem::copy(class_dir + "/student-04", submission);
  std::remove((root + "/results/results.json").c_str());
  ::setenv("AUTOGRADER_ROOT", root.c_str(), 1);
  ::setenv("TILEPUZZLES", TILEPUZZLES_BINARY, 1);
  ::setenv("TILEPUZZLES_POINTS", points_file().c_str(), 1);
  const std::string command = "bash '" + std::string(TILEPUZZLES_SOURCE_DIR) +
                              "/docs/grading/gradescope/run_autograder' > '" + root + "/stdout' 2>&1";
  const int status = std::system(command.c_str());
  for (const char* name : {"AUTOGRADER_ROOT", "TILEPUZZLES", "TILEPUZZLES_POINTS"}) ::unsetenv(name);
  INFO(read_text(root + "/stdout"));
  REQUIRE(status == 0);
  const json results = parse_json(read_text(root + "/results/results.json"));
  check_gradescope_results(results, "the submission");
  CHECK(results["score"].number == 2 + 3 + 4);  // all but vector-add
  for (const json& t : results["tests"].items)
    if (t["name"].string == "Puzzle 3: vector-add") {
      CHECK(t["status"].string == "failed");
      CHECK_THAT(t["output"].string, Catch::Contains("out-of-bounds"));
    }
}

TEST_CASE("The GitHub Classroom workflow has a test per puzzle, with the points of points.txt",
          "[grade]") {
  const std::string workflow =
      read_text(std::string(TILEPUZZLES_SOURCE_DIR) + "/docs/grading/github-classroom/classroom.yml");
  tp::grade::points_table table;
  REQUIRE_FALSE(tp::grade::read_points(tp::grade::default_points_file(), table).has_value());
  std::string runners;
  for (const tp::puzzle_spec* p : tp::all_puzzles()) {
    INFO("puzzle " << p->number << " (" << p->id << ")");
    const std::string id = "puzzle-" + std::to_string(p->number);
    const std::size_t step = workflow.find("        id: " + id + "\n");
    REQUIRE(step != std::string::npos);
    const std::string body = workflow.substr(step, workflow.find("      - name:", step) - step);
    CHECK_THAT(body, Catch::Contains("command: ./course/build/tilepuzzles check " + p->id +
                                     " --puzzles submission/puzzles --report-only\n"));
    char points[32];
    std::snprintf(points, sizeof points, "%g", table.points.at(p->id));
    CHECK_THAT(body, Catch::Contains(std::string("max-score: ") + points + "\n"));
    CHECK_THAT(workflow, Catch::Contains("PUZZLE-" + std::to_string(p->number) +
                                         "_RESULTS: \"${{steps." + id + ".outputs.result}}\""));
    runners += (runners.empty() ? "" : ",") + id;
  }
  CHECK_THAT(workflow, Catch::Contains("runners: " + runners + "\n"));
}
