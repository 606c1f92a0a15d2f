// Whether a puzzle's stub is still the one the project ships, with a body that is only
// "// Your code here.". The tests that expect unsolved stubs apply to those; a stub a learner has
// edited gets the checks that hold for any kernel, so the suite still passes in a learner's clone.
#pragma once

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "checker/spec.hpp"

inline bool is_shipped_stub(const tp::puzzle_spec& spec) {
  std::ifstream file(std::string(TILEPUZZLES_SOURCE_DIR) + "/" + spec.stub_file);
  std::stringstream text;
  text << file.rdbuf();
  static const std::regex empty_body(R"(const \{\s*// Your code here\.\s*\})");
  return std::regex_search(text.str(), empty_body);
}

inline bool all_stubs_shipped(const std::vector<const tp::puzzle_spec*>& puzzles) {
  for (const tp::puzzle_spec* p : puzzles)
    if (!is_shipped_stub(*p)) return false;
  return true;
}
