// The instructor's grading tests (TILEPUZZLES_GRADE in tests/CMakeLists.txt) cover every puzzle.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "checker/registry.hpp"

TEST_CASE("the grading tests cover exactly the puzzles of the registry, in order") {
  std::vector<std::string> graded;
  std::stringstream list(TILEPUZZLES_GRADED_IDS);
  for (std::string id; std::getline(list, id, ',');) graded.push_back(id);

  std::vector<std::string> registered;
  for (const tp::puzzle_spec* p : tp::all_puzzles()) registered.push_back(p->id);

  CHECK(graded == registered);
}
