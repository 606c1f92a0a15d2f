// One self-contained HTML page (`show --html FILE`, `check --html FILE`): for each puzzle its
// verdict, the maps of a run as SVG (every program coloured by program, or one program picked
// from a list), the diagnostic with the kernel's lines around its source line, and the counters.
// No network: the styles and the small script are inline, the fonts are the system's.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "checker/access_map.hpp"

namespace tp {

// The verdict of a run `show` drew that matches the reference: not a check's "solved" (one case
// only), and never drawn as a failure.
inline constexpr const char* html_right_verdict = "right on this case";

// The colour of program `linear` in the maps and the legend ("#1f77b4"): twelve categorical
// colours first, then colours spread around the hue circle, each different from every other
// program's and from the colours the maps give other meanings (masked, untouched, several).
std::string program_colour(int linear);

struct html_section {
  const puzzle_spec* spec = nullptr;
  std::string verdict;       // "solved", "not solved", "FAILED out-of-bounds", ...
  std::string kernel_file;   // as reports show it
  std::optional<tl::sim::diagnostic> problem;
  std::optional<traced_run> run;  // the run whose maps are drawn, where there is one
  std::string note;          // why there are no maps, when there are none
};

std::string html_page(const std::string& title, const std::vector<html_section>& sections);

// Writes `text` to `path`; an error message when it cannot.
std::optional<std::string> write_file(const std::string& path, const std::string& text);

}  // namespace tp
