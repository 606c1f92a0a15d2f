// A puzzle's hints, read from its page (docs/puzzles/*.md): a `## Hints` section of folded
// `<details><summary>Hint N: ...</summary>` blocks, gentle first. `tilepuzzles hint` shows them
// one at a time; tests/puzzle_pages.cpp holds every page to this format with the same parser.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tp {

struct hint {
  std::string summary;  // "Hint 1: gentle"
  std::string body;     // the Markdown between the summary and </details>
};

// The text of the section that starts with `heading` (a whole line), up to the next "## "
// heading; empty when the page has no such section.
std::string page_section(const std::string& page, const std::string& heading);

// The folded blocks of a hints section, in order. `leftover` receives whatever else the section
// holds, whitespace removed: empty for a section in the format.
std::vector<hint> parse_hints(const std::string& section, std::string& leftover);

// The hints of a puzzle page's `## Hints` section.
std::vector<hint> hints_of_page(const std::string& page);

// The page as `tilepuzzles show` prints it: the `## Hints` section's folded blocks (a terminal
// shows every one unfolded, "nearly the answer" included) replaced by how to ask for them one at
// a time with `tilepuzzles hint`. A page without hints is returned as it is.
std::string page_with_hints_folded(const std::string& page, int puzzle_number);

}  // namespace tp
