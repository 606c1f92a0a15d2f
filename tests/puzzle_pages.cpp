// Every puzzle has its page, its rows in the two puzzle tables, a stub that names it by its number,
// and hints in the one format a reader (and `tilepuzzles hint`) can rely on: a `## Hints` section
// of exactly three folded blocks, gentle, specific, nearly the answer. No page points into
// solutions/.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "checker/hints.hpp"
#include "checker/registry.hpp"

namespace {

std::string read_project_file(const std::string& relative) {
  std::ifstream file(std::string(TILEPUZZLES_SOURCE_DIR) + "/" + relative);
  INFO("file " << relative);
  REQUIRE(file.good());
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("Each puzzle's page has its title and three hints in the folded format",
          "[pages]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    DYNAMIC_SECTION(spec->number << " " << spec->id) {
      const std::string page = read_project_file(spec->doc_file);
      CHECK(page.rfind("# Puzzle " + std::to_string(spec->number) + ": " + spec->id + "\n", 0) ==
            0);
      const std::string hints_text = tp::page_section(page, "## Hints");
      REQUIRE_FALSE(hints_text.empty());
      std::string leftover;
      const auto hints = tp::parse_hints(hints_text, leftover);
      CHECK(leftover.empty());  // nothing in the section but the three blocks
      REQUIRE(hints.size() == 3);
      CHECK(hints[0].summary == "Hint 1: gentle");
      CHECK(hints[1].summary == "Hint 2: specific");
      CHECK(hints[2].summary == "Hint 3: nearly the answer");
      for (const auto& h : hints) {
        INFO(h.summary);
        CHECK(h.body.size() > 40);
        CHECK(h.body.find("<details>") == std::string::npos);
      }
      CHECK(page.find("\n## What the checker enforces\n") != std::string::npos);
      CHECK(page.find("solutions/") == std::string::npos);
    }
  }
}

TEST_CASE("The hints parser rejects what is not the format", "[pages]") {
  std::string leftover;
  const std::string good =
      "<details><summary>Hint 1: gentle</summary>\n\nText.\n\n</details>\n";
  CHECK(tp::parse_hints(good, leftover).size() == 1);
  CHECK(leftover.empty());
  // A stray paragraph, a block without its blank lines, and an unclosed block are not hints.
  tp::parse_hints("Read one at a time.\n\n" + good, leftover);
  CHECK_FALSE(leftover.empty());
  CHECK(tp::parse_hints("<details><summary>Hint 1: gentle</summary>\nText.\n</details>\n", leftover)
            .empty());
  CHECK(tp::parse_hints("<details><summary>Hint 1: gentle</summary>\n\nText.\n\n", leftover).empty());
}

TEST_CASE("Each puzzle has a row in both puzzle tables and a stub that names its number",
          "[pages]") {
  const std::string index = read_project_file("docs/puzzles/README.md");
  const std::string readme = read_project_file("README.md");
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    DYNAMIC_SECTION(spec->number << " " << spec->id) {
      const std::string n = std::to_string(spec->number);
      const std::string page = spec->doc_file.substr(spec->doc_file.rfind('/') + 1);
      CHECK_THAT(index, Catch::Contains("\n| " + n + " | `" + spec->id + "` | [" + page + "](" +
                                        page + ") |"));
      CHECK_THAT(readme, Catch::Contains("\n| " + n + " | [`" + spec->id + "`](" + spec->doc_file +
                                         ") | "));
      const std::string stub = read_project_file(spec->stub_file);
      CHECK(stub.rfind("// Puzzle " + n + ", " + spec->id + ": ", 0) == 0);
      CHECK_THAT(stub, Catch::Contains("`./build/tilepuzzles check " + n + "`"));
      CHECK_THAT(stub, Catch::Contains(spec->doc_file));
    }
  }
}
