// Each puzzle is its own build unit: a stub that does not compile costs only its own puzzle, the
// checker never runs the kernel of an older build, and a stub cannot reach the solutions. These
// tests check copies of the puzzles directory (`check --puzzles DIR`) under the build tree, so
// they work whatever state the learner's puzzles/ is in.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "checker/registry.hpp"
#include "cli_support.hpp"

using namespace cli_support;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` unless the file already holds it, so that a rerun does not rebuild for nothing.
void write_text(const std::string& path, const std::string& text) {
  if (read_text(path) == text) return;
  std::ofstream(path, std::ios::trunc) << text;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

// A directory for one test's student copy, under the build tree (its modules are built next to
// the main build, in build/puzzle-dirs/).
std::string student_dir(const std::string& name) {
  const std::string dir = std::string(TILEPUZZLES_TEST_WORK_DIR) + "/" + name;
  ::mkdir(TILEPUZZLES_TEST_WORK_DIR, 0777);
  ::mkdir(dir.c_str(), 0777);
  return dir;
}

std::string stub_name(const tp::puzzle_spec& spec) {
  return spec.stub_file.substr(spec.stub_file.find_last_of('/') + 1);
}

// A stub that solves its puzzle: the reference solution, in the stubs' namespace.
std::string solved_stub(const tp::puzzle_spec& spec) {
  const std::string solution =
      read_text(std::string(TILEPUZZLES_SOURCE_DIR) + "/" + spec.solution_file);
  REQUIRE(solution.find("namespace solutions {") != std::string::npos);
  return replace_all(replace_all(solution, "namespace solutions {", "namespace puzzles {"),
                     "}  // namespace solutions", "}  // namespace puzzles");
}

// The solved stub with the ';' at the end of its first statement that declares `offsets` or
// `rows` removed; `line` is set to the line that the compiler blames: g++ the next one, clang
// (which builds the modules where it built this test) the line itself.
std::string stub_missing_semicolon(const tp::puzzle_spec& spec, int& line) {
  std::string text = solved_stub(spec);
  const std::size_t decl = text.find("auto rows = ") != std::string::npos ? text.find("auto rows = ")
                                                                          : text.find("auto offsets = ");
  REQUIRE(decl != std::string::npos);
  const std::size_t semicolon = text.find(";\n", decl);
  text.erase(semicolon, 1);
  line = static_cast<int>(std::count(text.begin(), text.begin() + semicolon, '\n')) + 1;
#if !defined(__clang__)
  ++line;
#endif
  return text;
}

// Vector add's kernel with an empty body: compiles, stores nothing.
const char* empty_vector_add = R"(#pragma once
#include "tile/tl.hpp"
namespace puzzles {
template <int B0>
struct VectorAdd {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z,
                            int N0) const {
    // Your code here.
  }
};
}  // namespace puzzles
)";

// The lines of the details block of puzzle `number`, from "--- N" to the blank line after it.
std::vector<std::string> details_of(const std::string& out, int number) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("--- " + std::to_string(number) + " ", 0) == 0) inside = true;
    else if (inside && (line.empty() || line.rfind("--- ", 0) == 0)) break;
    if (inside) lines.push_back(line);
  }
  return lines;
}

const tp::puzzle_spec& puzzle(const char* id) {
  const tp::puzzle_spec* p = tp::find_puzzle(id);
  REQUIRE(p != nullptr);
  return *p;
}

}  // namespace

TEST_CASE("A stub that does not compile costs only its own puzzle", "[modules]") {
  const std::string dir = student_dir("one-broken");
  for (const tp::puzzle_spec* p : tp::all_puzzles())
    write_text(dir + "/" + stub_name(*p), solved_stub(*p));
  const tp::puzzle_spec& broken = puzzle("long-softmax-3loop");
  const std::string file = dir + "/" + stub_name(broken);
  // The broken puzzle between its neighbours, and the last puzzle, checked in one run: enough to
  // see that one stub's compile error costs no other puzzle of the run. (All of them compile the
  // whole copy, a minute and a half of the suite, and prove nothing more.)
  const std::vector<const tp::puzzle_spec*> checked = {
      &puzzle("long-sum"), &broken, &puzzle("long-softmax-2loop"), tp::all_puzzles().back()};
  std::string numbers;
  for (const tp::puzzle_spec* p : checked) numbers += " " + std::to_string(p->number);
  const std::string all = std::to_string(checked.size());

  SECTION("the broken one is a compile-error at its file and line; the others are checked") {
    int line = 0;
    write_text(file, stub_missing_semicolon(broken, line));
    const auto r = run_cli("check --puzzles " + dir + numbers);
    CHECK(r.exit_code == 1);
    CHECK(r.err.empty());
    for (const tp::puzzle_spec* p : checked) {
      INFO(p->id);
      const std::string status = puzzle_line(r.out, *p);
      if (p == &broken) CHECK_THAT(status, Catch::Contains("FAILED      compile-error"));
      else CHECK_THAT(status, Catch::Contains(" solved "));
    }
    const auto details = details_of(r.out, broken.number);
    REQUIRE(details.size() >= 3);
    CHECK(details.size() <= 16);  // "--- 2 ..." and at most 15 lines of report
    CHECK_THAT(details[1], Catch::Contains("compile-error: " + file + " does not compile"));
    CHECK_THAT(details[2], Catch::StartsWith("  " + file + ":" + std::to_string(line) + ": expected"));
    CHECK_THAT(details.back(), Catch::Contains("puzzle-dirs/"));
    CHECK_THAT(details.back(), Catch::EndsWith("long_softmax_3loop.stub.log"));
    CHECK_THAT(r.out, Catch::Contains(std::to_string(checked.size() - 1) + " of " + all +
                                      " puzzles solved. Next: puzzle " +
                                      std::to_string(broken.number) + " (" + broken.id + ")"));
  }

  SECTION("in --json it is a compile-error diagnostic with its source line") {
    int line = 0;
    write_text(file, stub_missing_semicolon(broken, line));
    const auto r = run_cli("check --json --puzzles " + dir + numbers);
    CHECK(r.exit_code == 1);
    const json doc = parse_json(r.out);
    REQUIRE(doc.items.size() == checked.size());
    for (const json& o : doc.items) {
      INFO(o["id"].string);
      if (o["id"].string != broken.id) {
        CHECK(o["status"].string == "solved");
        continue;
      }
      CHECK(o["status"].string == "failed");
      CHECK_FALSE(o["passed"].boolean);
      REQUIRE(o["diagnostics"].items.size() == 1);
      const json& d = o["diagnostics"].items[0];
      CHECK(d["kind"].string == "compile-error");
      CHECK(d["source"].string == file + ":" + std::to_string(line));
      CHECK_THAT(d["message"].string, Catch::StartsWith("compile-error: " + file));
    }
  }

  SECTION("its correct twin compiles, and all the puzzles checked are solved") {
    write_text(file, solved_stub(broken));
    const auto r = run_cli("check --puzzles " + dir + numbers);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains(all + " of " + all + " puzzles solved."));
    CHECK_THAT(r.out, !Catch::Contains("compile-error"));
  }
}

TEST_CASE("check never runs the kernel of an older build", "[modules]") {
  const std::string dir = student_dir("stale");
  const tp::puzzle_spec& p = puzzle("vector-add");
  const std::string file = dir + "/" + stub_name(p);
  const std::string check = "check vector-add --puzzles " + dir;

  write_text(file, solved_stub(p));
  REQUIRE_THAT(run_cli(check).out, Catch::Contains(" solved "));

  // A kernel that does not compile is reported as such, not with the old kernel's verdict.
  int line = 0;
  write_text(file, stub_missing_semicolon(p, line));
  auto r = run_cli(check);
  CHECK(r.exit_code == 1);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains("compile-error"));
  CHECK_THAT(r.out, !Catch::Contains(" solved "));

  // Without building, the out-of-date module is refused, naming the file that changed.
  r = run_cli(check + " --no-build");
  CHECK(r.exit_code == 1);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains("compile-error"));
  CHECK_THAT(r.out, Catch::Contains("not checked: " + file + " changed since it was last compiled"));
  CHECK_THAT(r.out, Catch::Contains("--no-build"));
  CHECK_THAT(r.out, !Catch::Contains(" solved "));

  // Another kernel that compiles: its own verdict, not the first kernel's.
  write_text(file, empty_vector_add);
  r = run_cli(check);
  CHECK(r.exit_code == 1);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains("not solved"));

  // The twin of the refusal: a module built from the current source is used without building.
  r = run_cli(check + " --no-build");
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains("not solved"));
  CHECK_THAT(r.out, !Catch::Contains("not checked"));

  // A file put in place with an old time (cp -p) is still noticed by its content.
  const std::string old_copy = dir + "/copied.tmp";
  write_text(old_copy, solved_stub(p));
  const timespec long_ago[2] = {{978307200, 0}, {978307200, 0}};  // 2001-01-01
  REQUIRE(::utimensat(AT_FDCWD, old_copy.c_str(), long_ago, 0) == 0);
  REQUIRE(std::rename(old_copy.c_str(), file.c_str()) == 0);
  r = run_cli(check + " --no-build");
  CHECK_THAT(r.out, Catch::Contains("not checked: " + file + " changed since it was last compiled"));
  r = run_cli(check);
  CHECK(r.exit_code == 0);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains(" solved "));

  // A module older than the main build's precompiled header, through which tl's headers and a
  // new module ABI reach it (its depfile does not name the header), is built again, not loaded
  // stale or refused as built for another checker.
  const std::string binary = TILEPUZZLES_BINARY;
  const std::string build = binary.substr(0, binary.find_last_of('/'));
  // g++'s precompiled header, or clang's.
  std::string pch = build + "/CMakeFiles/tilepuzzles_module_pch.dir/cmake_pch.hxx.gch";
  struct stat header {};
  if (::stat(pch.c_str(), &header) != 0) pch.replace(pch.size() - 4, 4, ".pch");
  REQUIRE(::stat(pch.c_str(), &header) == 0);
  std::string module;
  for (const auto& e : std::filesystem::directory_iterator(build + "/puzzle-dirs"))
    if (e.path().filename().string().rfind("stale-", 0) == 0)
      module = e.path().string() + "/modules/vector_add.stub.so";
  REQUIRE_FALSE(module.empty());
  const timespec before_header[2] = {header.st_mtim,
                                     {header.st_mtim.tv_sec - 1, header.st_mtim.tv_nsec}};
  REQUIRE(::utimensat(AT_FDCWD, module.c_str(), before_header, 0) == 0);
  r = run_cli(check + " --no-build");
  // The precompiled header is named, unless a file the depfile lists changed since it was built.
  CHECK_THAT(r.out, Catch::Contains("not checked: ") &&
                        Catch::Contains(" changed since it was last compiled"));
  r = run_cli(check);
  CHECK(r.exit_code == 0);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains(" solved "));
  r = run_cli(check + " --no-build");
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains(" solved "));
}

TEST_CASE("A stub cannot include the reference solutions", "[modules]") {
  const std::string dir = student_dir("solution-include");
  const tp::puzzle_spec& p = puzzle("vector-add");
  const std::string file = dir + "/" + stub_name(p);
  const std::string wrapper = R"(
namespace puzzles {
template <int B0>
struct VectorAdd : solutions::VectorAdd<B0> {};
}  // namespace puzzles
)";

  std::string include;
  SECTION("by its path in the project") { include = "solutions/vector_add.hpp"; }
  SECTION("by its absolute path") {
    include = std::string(TILEPUZZLES_SOURCE_DIR) + "/solutions/vector_add.hpp";
  }
  write_text(file, "#pragma once\n#include \"tile/tl.hpp\"\n#include \"" + include + "\"\n" + wrapper);
  const auto r = run_cli("check vector-add --puzzles " + dir);
  CHECK(r.exit_code == 1);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains("compile-error"));
  CHECK_THAT(r.out, Catch::Contains(file + ":3: includes solutions/vector_add.hpp: a stub cannot "
                                           "use the reference solutions"));
  CHECK_THAT(r.out, !Catch::Contains(" solved "));
}

TEST_CASE("The correct twin of a stub that includes a solution writes the kernel and is solved",
          "[modules]") {
  const std::string dir = student_dir("solution-written-out");
  const tp::puzzle_spec& p = puzzle("vector-add");
  write_text(dir + "/" + stub_name(p), solved_stub(p));
  const auto r = run_cli("check vector-add --puzzles " + dir);
  CHECK(r.exit_code == 0);
  CHECK_THAT(puzzle_line(r.out, p), Catch::Contains(" solved "));
}

TEST_CASE("Checks started at once share the build without racing", "[modules]") {
  const std::string dir = student_dir("concurrent");
  // New content on every run, so that both processes find the modules out of date.
  const std::string stamp =
      "// " + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "\n";
  for (const char* id : {"vector-add", "long-softmax-2loop"}) {
    const tp::puzzle_spec& p = puzzle(id);
    write_text(dir + "/" + stub_name(p), solved_stub(p) + stamp);
  }
  cli_result results[3];
  std::vector<std::thread> checks;
  for (auto& result : results)
    checks.emplace_back([&result, &dir] {
      result = run_cli_unchecked("check vector-add long-softmax-2loop --puzzles " + dir);
    });
  for (auto& t : checks) t.join();
  for (const auto& r : results) {
    INFO(r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("2 of 2 puzzles solved."));
  }
}
