// A student's copy of the puzzles directory for one test (`--puzzles DIR`), under the build tree,
// and stubs to put in it: the tests of the learner's tools use these so that they work whatever
// state the learner's own puzzles/ is in.
#pragma once

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>

#include "checker/registry.hpp"

namespace student_copy {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` unless the file already holds it, so that a rerun does not rebuild for nothing.
inline void write_text(const std::string& path, const std::string& text) {
  if (read_text(path) == text) return;
  std::ofstream(path, std::ios::trunc) << text;
}

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

inline std::string stub_name(const tp::puzzle_spec& spec) {
  return spec.stub_file.substr(spec.stub_file.find_last_of('/') + 1);
}

// A stub that solves its puzzle: the reference solution, in the stubs' namespace.
inline std::string solved_stub(const tp::puzzle_spec& spec) {
  const std::string solution =
      read_text(std::string(TILEPUZZLES_SOURCE_DIR) + "/" + spec.solution_file);
  REQUIRE(solution.find("namespace solutions {") != std::string::npos);
  return replace_all(replace_all(solution, "namespace solutions {", "namespace puzzles {"),
                     "}  // namespace solutions", "}  // namespace puzzles");
}

// A stub whose kernel is exactly the shipped one's: a body of "// Your code here.".
inline std::string empty_stub(const tp::puzzle_spec& spec) {
  std::string text = solved_stub(spec);
  const std::size_t open = text.find(" const {");
  REQUIRE(open != std::string::npos);
  // The call operator's body ends at the first line that is just "  }" after it.
  const std::size_t close = text.find("\n  }\n", open);
  REQUIRE(close != std::string::npos);
  return text.substr(0, open) + " const {\n    // Your code here.\n  }\n" + text.substr(close + 5);
}

// A directory for one test, with every puzzle's stub as shipped (the kernels emptied).
inline std::string fresh_dir(const std::string& name) {
  const std::string dir = std::string(TILEPUZZLES_TEST_WORK_DIR) + "/" + name;
  ::mkdir(TILEPUZZLES_TEST_WORK_DIR, 0777);
  ::mkdir(dir.c_str(), 0777);
  for (const tp::puzzle_spec* p : tp::all_puzzles())
    write_text(dir + "/" + stub_name(*p), empty_stub(*p));
  return dir;
}

inline const tp::puzzle_spec& puzzle(const char* id) {
  const tp::puzzle_spec* p = tp::find_puzzle(id);
  REQUIRE(p != nullptr);
  return *p;
}

}  // namespace student_copy
