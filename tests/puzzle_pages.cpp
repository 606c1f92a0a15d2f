// Every puzzle has its page, its rows in the two puzzle tables, a stub that names it by its number,
// and hints in a file of their own (docs/hints/), in the one format `tilepuzzles hint` relies on:
// a `## Hints` section of exactly three folded blocks, gentle, specific, nearly the answer. No
// page holds a hint's words, and none points into solutions/.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checker/check.hpp"
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

namespace {

// A page's text as `grep -i` sees it: lower case, each line on its own.
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

// The lines of a hint worth searching for: long enough to be the hint's own words, not a code
// fence or a table rule.
std::vector<std::string> hint_lines(const std::string& body) {
  std::vector<std::string> lines;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    line = line.substr(first);
    if (line.size() >= 30 && line.rfind("```", 0) != 0) lines.push_back(lower(line));
  }
  return lines;
}

// The first line of `hint` that `pages` (every page, lower case) holds, or "".
std::string hint_line_in(const std::string& pages, const std::string& hint) {
  for (const std::string& line : hint_lines(hint))
    if (pages.find(line) != std::string::npos) return line;
  return {};
}

// Lines of C++ as a comparison of code sees them: comments, blank lines, lines of braces and a
// kernel's head dropped, every name that is not tl's or a keyword made `_`, spaces removed. A
// kernel with its names changed reads the same.
std::vector<std::string> normalized_code(const std::string& code) {
  static const std::regex name(R"((tl::)?\b[A-Za-z_][A-Za-z0-9_]*\b)");
  static const std::set<std::string> kept = {"auto", "for", "if", "else", "int", "float", "bool",
                                             "const", "return", "template", "struct", "static",
                                             "constexpr", "void", "TL_KERNEL", "col", "row"};
  std::vector<std::string> lines;
  std::istringstream in(code);
  for (std::string line; std::getline(in, line);) {
    if (const std::size_t comment = line.find("//"); comment != std::string::npos)
      line = line.substr(0, comment);
    std::string out;
    std::size_t last = 0;
    for (std::sregex_iterator it(line.begin(), line.end(), name), end; it != end; ++it) {
      out += line.substr(last, it->position() - last);
      const std::string word = it->str();
      out += word.rfind("tl::", 0) == 0 || kept.count(word) ? word : "_";
      last = it->position() + it->length();
    }
    out += line.substr(last);
    out.erase(std::remove(out.begin(), out.end(), ' '), out.end());
    // The head every kernel has (template, struct, num_warps, call operator) says nothing.
    bool head = false;
    for (const char* start : {"#", "template<", "struct_", "staticconstexpr", "TL_KERNELvoid"})
      head = head || out.rfind(start, 0) == 0;
    if (out.find_first_not_of("{};()") != std::string::npos && !head) lines.push_back(out);
  }
  return lines;
}

// The most consecutive normalized lines that `example` and `solution` share.
std::size_t longest_shared_run(const std::vector<std::string>& example,
                               const std::vector<std::string>& solution) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < example.size(); ++i)
    for (std::size_t j = 0; j < solution.size(); ++j) {
      std::size_t run = 0;
      while (i + run < example.size() && j + run < solution.size() &&
             example[i + run] == solution[j + run])
        ++run;
      best = std::max(best, run);
    }
  return best;
}

// The ```cpp blocks of a Markdown file.
std::vector<std::string> cpp_blocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  for (std::size_t at = 0; (at = markdown.find("```cpp\n", at)) != std::string::npos;) {
    const std::size_t end = markdown.find("```", at + 7);
    blocks.push_back(markdown.substr(at + 7, end - at - 7));
    at = end + 3;
  }
  return blocks;
}

// What a page says the checker runs (its "What the checker enforces" section), as the checker
// knows it: the block sizes, the cases in `show --case`'s numbering, and the number of runs.
std::vector<std::string> checker_facts(const tp::puzzle_spec& spec) {
  std::string blocks, cases, names;
  for (std::size_t k = 0; k < spec.kernels.size(); ++k) {
    blocks += (k ? ", `" : "`") + tp::blocks_argument(spec, k) + "`";
    if (spec.kernels.front().dtype != tp::dtype::float32)
      blocks += std::string(" (") + tp::dtype_name(spec.kernels[k].dtype) + ")";
  }
  for (std::size_t i = 0; i < spec.size_names.size(); ++i) names += (i ? ", " : "") + spec.size_names[i];
  for (std::size_t c = 0; c < spec.cases.size(); ++c) {
    cases += (c ? ", " : "") + std::to_string(c + 1) + " `(";
    for (std::size_t i = 0; i < spec.cases[c].sizes.size(); ++i)
      cases += (i ? ", " : "") + std::to_string(spec.cases[c].sizes[i]);
    cases += ")`";
  }
  std::string large;
  for (std::size_t c = 0; c < spec.cases.size(); ++c)
    if (spec.cases[c].large) large += (large.empty() ? "case " : ", ") + std::to_string(c + 1);
  const std::string n = std::to_string(spec.number);
  const std::string which = spec.case_fits_rule.empty()
                                ? "every case with every block size"
                                : "each case with the block sizes that fit it, " + spec.case_fits_rule;
  return {"- **Block sizes (`--blocks`):** " + blocks + ".",
          "- **Cases (`--case`), `(" + names + ")`:** " + cases + ". `./build/tilepuzzles show " + n +
              " --no-run` says what each holds.",
          "- **Runs:** " + which + ", in forward, reverse and shuffled order (`--seed` seeds the "
              "inputs and the shuffle), the large tier (" + large + ") once the others pass, in "
              "forward order only: " + std::to_string(tp::simulator_runs(spec)) + " runs."};
}

// A page's bullets each on one line: a continuation line ("\n  ...") joined to its bullet.
std::string joined_bullets(const std::string& page) {
  std::string out;
  for (std::size_t i = 0; i < page.size(); ++i) {
    if (page.compare(i, 3, "\n  ") == 0 && page.compare(i + 3, 1, " ") != 0) {
      out += ' ';
      i += 2;
    } else {
      out += page[i];
    }
  }
  return out;
}

// The facts of `spec` that `page` does not state, each as it should read.
std::vector<std::string> facts_missing(const std::string& page, const tp::puzzle_spec& spec) {
  std::vector<std::string> missing;
  const std::string text = joined_bullets(page);
  for (const std::string& fact : checker_facts(spec))
    if (text.find("\n" + fact + "\n") == std::string::npos) missing.push_back(fact);
  return missing;
}

}  // namespace

TEST_CASE("Each page states its block sizes, cases and runs as the checker makes them", "[pages]") {
  const tp::puzzle_spec& long_sum = *tp::find_puzzle("long-sum");
  const std::string right = "x\n" + checker_facts(long_sum)[2] + "\n";
  // A count one off, or a case left out, is found; the page as the checker says it is not.
  CHECK(facts_missing(right, long_sum).size() == 2);
  std::string one_off = right;
  one_off.replace(one_off.find(" runs."), 0, "0");
  CHECK(facts_missing(one_off, long_sum).size() == 3);
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    DYNAMIC_SECTION(spec->number << " " << spec->id) {
      const std::string page = read_project_file(spec->doc_file);
      // On failure, the lines the page should have, under "## What the checker enforces".
      for (const std::string& fact : facts_missing(page, *spec)) FAIL_CHECK(fact);
      const std::string joined = joined_bullets(page);
      CHECK(joined.find("\n## What the checker enforces\n") <
            joined.find("\n" + checker_facts(*spec)[0]));
    }
  }
}

TEST_CASE("Each puzzle's page has its title, and says how to ask for its hints", "[pages]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    DYNAMIC_SECTION(spec->number << " " << spec->id) {
      const std::string page = read_project_file(spec->doc_file);
      const std::string n = std::to_string(spec->number);
      CHECK(page.rfind("# Puzzle " + n + ": " + spec->id + "\n", 0) == 0);
      const std::string hints_text = tp::page_section(page, "## Hints");
      CHECK_THAT(hints_text, Catch::Contains("`./build/tilepuzzles hint " + n + "` (gentle)"));
      CHECK_THAT(hints_text, Catch::Contains("`hint " + n + " 3` (nearly the answer)"));
      CHECK(page.find("<details>") == std::string::npos);
      CHECK(page.find("\n## What the checker enforces\n") != std::string::npos);
      CHECK(page.find("solutions/") == std::string::npos);
    }
  }
}

TEST_CASE("Each puzzle has three hints, in a file of their own, in the folded format", "[pages]") {
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    DYNAMIC_SECTION(spec->number << " " << spec->id) {
      const std::string file = read_project_file(tp::hints_file(*spec));
      CHECK(file.rfind("# Puzzle " + std::to_string(spec->number) + ": " + spec->id + ", the hints\n",
                       0) == 0);
      const std::string hints_text = tp::page_section(file, "## Hints");
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
      CHECK(file.find("solutions/") == std::string::npos);
    }
  }
}

TEST_CASE("No hint's words are on a puzzle page: `cat docs/puzzles/*.md | grep -i` finds none",
          "[pages]") {
  std::string pages;
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) pages += lower(read_project_file(spec->doc_file));
  pages += lower(read_project_file("docs/puzzles/README.md"));
  // The search finds a hint that is on a page, and passes one that is not.
  const std::string planted = "Declare the running maximum before the loop, at -inf, and\n";
  CHECK(hint_line_in(lower(planted), planted) == lower(planted.substr(0, planted.size() - 1)));
  CHECK(hint_line_in(pages, planted).empty());
  for (const tp::puzzle_spec* spec : tp::all_puzzles()) {
    const auto hints = tp::hints_in(read_project_file(tp::hints_file(*spec)));
    REQUIRE(hints.size() == 3);
    for (const auto& h : hints) {
      INFO(spec->id << ", " << h.summary);
      CHECK(hint_line_in(pages, h.body) == "");
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

TEST_CASE("The examples of README.md, docs/tl.md and examples/ are none of the puzzles' solutions",
          "[pages]") {
  // Four lines of a solution's body in a row, names changed or not, give a puzzle away; the lines
  // every kernel has (its offsets, its mask) come fewer at a time.
  constexpr std::size_t most_shared = 3;
  std::vector<std::pair<std::string, std::vector<std::string>>> solutions;
  for (const tp::puzzle_spec* spec : tp::all_puzzles())
    solutions.emplace_back(spec->solution_file, normalized_code(read_project_file(spec->solution_file)));

  // The comparison finds a solution with its names changed, and passes a kernel that is not one.
  const std::string long_sum = read_project_file(tp::find_puzzle("long-sum")->solution_file);
  const std::string renamed = std::regex_replace(
      std::regex_replace(long_sum, std::regex("row_sum"), "squares"), std::regex("block"), "tile");
  CHECK(longest_shared_run(normalized_code(renamed), normalized_code(long_sum)) > most_shared);
  const std::string transpose = cpp_blocks(read_project_file("docs/tl.md")).at(1);
  CHECK_THAT(transpose, Catch::Contains("struct Transpose"));
  CHECK(longest_shared_run(normalized_code(transpose), normalized_code(long_sum)) <= most_shared);

  for (const char* doc : {"README.md", "docs/tl.md"}) {
    const auto blocks = cpp_blocks(read_project_file(doc));
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const auto example = normalized_code(blocks[b]);
      for (const auto& [file, solution] : solutions) {
        INFO(doc << ", code block " << b + 1 << ", against " << file << ":\n" << blocks[b]);
        CHECK(longest_shared_run(example, solution) <= most_shared);
      }
    }
  }
  // So are the kernels of the example project that uses tl as a library.
  for (const char* kernel_file : {"examples/row_axpy/row_axpy.hpp",
                                  "examples/row_axpy/row_axpy_test.cpp",
                                  "examples/row_axpy/planted_bug.hpp"}) {
    const auto example = normalized_code(read_project_file(kernel_file));
    for (const auto& [file, solution] : solutions) {
      INFO(kernel_file << " against " << file);
      CHECK(longest_shared_run(example, solution) <= most_shared);
    }
  }
}

namespace {

// The counts of puzzles and runs that `text` states and the checker says otherwise: "2 of 14
// puzzles solved", "Graded 5 copies of 14 puzzles", ctest's " 3/14 Test" and "out of 14", and a
// solved puzzle's "N simulator runs"; each as "what it says (the checker: what it makes)".
std::vector<std::string> wrong_counts(const std::string& text) {
  const std::size_t total = tp::all_puzzles().size();
  std::vector<std::string> wrong;
  static const std::regex of_puzzles(R"((\d+)/(\d+) Test +#|\d+ of (\d+) puzzles|out of (\d+)\n|copies of (\d+) puzzles)");
  for (std::sregex_iterator it(text.begin(), text.end(), of_puzzles), end; it != end; ++it)
    for (int group = 2; group <= 5; ++group)
      if ((*it)[group].matched && std::stoul((*it)[group].str()) != total)
        wrong.push_back(it->str() + " (the checker: " + std::to_string(total) + " puzzles)");
  static const std::regex runs(R"(\n +\d+ +([a-z0-9-]+) +solved +(\d+) simulator runs)");
  for (std::sregex_iterator it(text.begin(), text.end(), runs), end; it != end; ++it) {
    const tp::puzzle_spec* spec = tp::find_puzzle((*it)[1].str());
    if (spec && std::stoi((*it)[2].str()) != tp::simulator_runs(*spec))
      wrong.push_back(it->str().substr(1) + " (the checker: " +
                      std::to_string(tp::simulator_runs(*spec)) + " runs)");
  }
  return wrong;
}

}  // namespace

TEST_CASE("The guides' counts of puzzles and runs are the checker's", "[pages]") {
  const std::string n = std::to_string(tp::all_puzzles().size());
  const std::string vector_add_runs = std::to_string(tp::simulator_runs(*tp::find_puzzle("3")));
  CHECK(wrong_counts("2 of " + n + " puzzles solved.\n   3  vector-add   solved   " +
                     vector_add_runs + " simulator runs\n 1/" + n +
                     " Test  #1: grade_constant-add\n").empty());
  CHECK(wrong_counts("2 of 14 puzzles solved.\n   3  vector-add   solved   36 simulator runs\n"
                     " 1/14 Test  #1: grade_constant-add\n14% tests passed, 12 tests failed out of 14\n")
            .size() == 4);
  for (const char* doc : {"README.md", "docs/instructors.md", "docs/simulator.md",
                          "docs/puzzles/README.md", "docs/ARCHITECTURE.md"}) {
    INFO(doc);
    for (const std::string& wrong : wrong_counts(read_project_file(doc))) FAIL_CHECK(wrong);
  }
}
