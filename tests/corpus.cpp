// The corpus as a whole (tests/corpus.hpp): big enough, over every puzzle, every diagnostic kind a
// kernel can earn at run time, and every entry checked by some test.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "checker/registry.hpp"
#include "corpus.hpp"

TEST_CASE("The corpus has at least 60 wrong kernels, over every puzzle, next to correct twins",
          "[corpus]") {
  std::map<std::string, int> wrong, twins;
  for (const auto& e : corpus::entries()) (e.expect == "solved" ? twins : wrong)[e.puzzle]++;
  int wrong_count = 0;
  for (const auto& [puzzle, n] : wrong) wrong_count += n;
  CHECK(wrong_count >= 60);
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    // Puzzles 15 and 16 (matmul-int4, flash-attention) came after the corpus: their wrong kernels
    // are in known_wrong_quantized.cpp and known_wrong_attention.cpp until the corpus has them.
    if (spec->number > 14) continue;
    INFO(spec->id);
    CHECK(wrong[spec->id] >= 3);
    CHECK(twins[spec->id] >= 1);
  }
}

TEST_CASE("The corpus earns every diagnostic kind a kernel can earn when it runs", "[corpus]") {
  std::set<std::string> kinds;
  for (const auto& e : corpus::entries()) kinds.insert(e.expect);
  for (const char* k :
       {"not-solved", "wrong-result", "out-of-bounds", "poison-store", "uninitialized-read",
        "unwritten-output", "race-write-write", "race-read-write", "index-overflow", "op-budget",
        "efficiency-budget", "nan-inf", "crash"}) {
    INFO(k);
    CHECK(kinds.count(k) == 1);
  }
}

TEST_CASE("Every entry of the corpus is checked by a test of its group", "[corpus]") {
  for (const auto& e : corpus::entries()) {
    INFO(e.puzzle << ": " << e.kernel << " in group " << e.group);
    CHECK(corpus::tested_groups().count(e.group) == 1);
  }
  std::set<std::string> names;
  for (const auto& e : corpus::entries()) {
    INFO(e.kernel << " as " << e.puzzle);
    CHECK(names.insert(e.puzzle + " " + e.kernel).second);  // each kernel once per puzzle
  }
}
