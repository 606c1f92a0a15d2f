// `tilepuzzles bench --plot FILE.svg`: one line plot per benchmarked puzzle, GB/s against size
// (a logarithmic axis), a line per variant and the copy ceiling dashed, in the manner of Triton's
// perf_report plots. A self-contained SVG: no script, no font file, no library.
#pragma once

#include <string>
#include <vector>

#include "checker/bench_report.hpp"

namespace tp::bench {

std::string svg_plot(const std::vector<row>& rows, const run_info& info);

}  // namespace tp::bench
