// `tilepuzzles grade SUBMISSIONS/`: a class in one command. Each subdirectory of SUBMISSIONS is
// one student's copy of puzzles/ (or holds one, as SUBMISSIONS/alice/puzzles/). Several copies
// are checked at once (-j), each in a child process that builds the copy's modules and checks
// every graded puzzle in the sandbox; a verdict is kept in a cache by the stub's content, so
// grading again after a fix checks only what changed. The results: one summary (CSV and JSON,
// student x puzzle: verdict, points), JUnit for a CI system, and per student the text and JSON
// reports and Gradescope's results.json. docs/instructors.md walks through it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checker/sandbox.hpp"

namespace tp::grade {

struct grade_args {
  std::string submissions;
  std::string out = "grades";
  int jobs = 0;  // copies checked at once; 0: one per core
  std::string points_file;  // empty: the project's docs/grading/points.txt
  bool sandbox = true;
  long memory_mb = sandbox::default_memory_mb;
  std::uint64_t seed = 0;
  double timeout = 300;  // seconds one puzzle's check may take
  bool use_cache = true;
};

// Points per puzzle id, from a points file: one "ID POINTS" line per puzzle, # comments; 0
// leaves a puzzle out of the grade. Every puzzle must have a line: an error names what is wrong.
struct points_table {
  std::map<std::string, double> points;
};
std::optional<std::string> read_points(const std::string& path, points_table& table);

// The project's default points file.
std::string default_points_file();

// The command; its exit status (0 graded, 1 could not grade, 2 bad usage).
int run_grade(const grade_args& args);

}  // namespace tp::grade
