// Turning puzzle reports into text for people and JSON for programs.
#pragma once

#include <string>
#include <vector>

#include "checker/check.hpp"

namespace tp {

const char* status_name(status s);  // "solved", "not-solved", "failed"

// "  3  long-softmax-2loop      FAILED      efficiency-budget"
std::string report_line(const puzzle_report& report);
// The diagnostics of a report that did not pass, indented, or "" when it passed or is unsolved.
std::string report_details(const puzzle_report& report);
// One JSON object (no trailing newline).
std::string report_json(const puzzle_report& report);

std::string json_string(const std::string& s);

}  // namespace tp
