// A puzzle's hints, kept apart from its page so that reading the page (with `cat`, in an editor,
// rendered or not) never shows one: `docs/hints/<id>.md`, a `## Hints` section of folded
// `<details><summary>Hint N: ...</summary>` blocks, gentle first. `tilepuzzles hint` shows them
// one at a time; tests/puzzle_pages.cpp holds every file to this format with the same parser.
#pragma once

#include <string>
#include <vector>

#include "checker/spec.hpp"

namespace tp {

struct hint {
  std::string summary;  // "Hint 1: gentle"
  std::string body;     // the Markdown between the summary and </details>
};

// "docs/hints/long-sum.md": where a puzzle's hints are, relative to the project.
std::string hints_file(const puzzle_spec& spec);

// The text of the section that starts with `heading` (a whole line), up to the next "## "
// heading; empty when the page has no such section.
std::string page_section(const std::string& page, const std::string& heading);

// The folded blocks of a hints section, in order. `leftover` receives whatever else the section
// holds, whitespace removed: empty for a section in the format.
std::vector<hint> parse_hints(const std::string& section, std::string& leftover);

// The hints of a hints file's `## Hints` section.
std::vector<hint> hints_in(const std::string& hints_text);

}  // namespace tp
