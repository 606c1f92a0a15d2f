#include "checker/bench_report.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace tp::bench {

namespace {
std::string format(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}
// Fields never hold a comma or a double quote (bench/README.md): a reader may split on commas.
std::string field(std::string s) {
  std::replace(s.begin(), s.end(), ',', ';');
  std::replace(s.begin(), s.end(), '"', '\'');
  return s;
}
}  // namespace

double ceiling_gbps(const std::vector<row>& rows) {
  for (const auto& r : rows)
    if (r.benchmark == "copy" && r.timed()) return r.gbps();
  return 0;
}

std::string table_of(const std::string& benchmark) {
  return benchmark == "cublas" ? "matmul" : benchmark;
}

std::vector<std::string> benchmarks_in(const std::vector<row>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) {
    const std::string t = table_of(r.benchmark);
    if (t != "copy" && std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  return out;
}

const row* baseline_of(const row& r, const std::vector<row>& rows) {
  if (r.flops <= 0) return nullptr;
  for (const auto& b : rows)
    if (b.benchmark == "cublas" && b.timed() && b.size == r.size && b.dtype == r.dtype) return &b;
  return nullptr;
}

std::string table(const std::string& benchmark, const std::vector<row>& rows, const run_info& info) {
  std::ostringstream t;
  char line[320];
  bool flops = false;
  for (const auto& r : rows)
    if (table_of(r.benchmark) == benchmark && r.flops > 0) flops = true;
  int variant_width = 14;
  for (const auto& r : rows)
    if (table_of(r.benchmark) == benchmark)
      variant_width = std::max(variant_width, static_cast<int>(r.variant.size()) + (flops ? 7 : 0));
  if (flops)
    std::snprintf(line, sizeof line, "%-*s %-16s %-6s %9s %9s %9s %5s %8s %9s %10s\n",
                  variant_width, "implementation, variant", "size", "dtype", "ms", "min ms",
                  "max ms", "batch", "TFLOP/s", "x cuBLAS", "rel. error");
  else
    std::snprintf(line, sizeof line, "%-*s %-12s %-6s %9s %9s %9s %5s %8s %7s %10s\n",
                  variant_width, "variant", "size", "dtype", "ms", "min ms", "max ms", "batch",
                  "GB/s", "% copy", "rel. error");
  t << line;
  for (const auto& r : rows) {
    if (table_of(r.benchmark) != benchmark) continue;
    const std::string name = flops ? (r.benchmark == "cublas" ? "cuBLAS " : "tl ") + r.variant
                                   : r.variant;
    if (!r.timed()) {
      std::snprintf(line, sizeof line, "%-*s %-*s %-6s  %s\n", variant_width, name.c_str(),
                    flops ? 16 : 12, r.size.c_str(), r.dtype.c_str(), r.problem.c_str());
    } else if (flops) {
      const row* base = baseline_of(r, rows);
      const std::string ratio = base ? format("%.2f", base->time_ms / r.time_ms) : "-";
      std::snprintf(line, sizeof line, "%-*s %-16s %-6s %9.4f %9.4f %9.4f %5d %8.1f %9s %10.1e\n",
                    variant_width, name.c_str(), r.size.c_str(), r.dtype.c_str(), r.time_ms,
                    r.min_ms, r.max_ms, r.launches_per_sample, r.tflops(), ratio.c_str(),
                    r.max_error);
    } else {
      const std::string pct =
          info.ceiling_gbps > 0 ? format("%.1f", 100 * r.gbps() / info.ceiling_gbps) : "-";
      std::snprintf(line, sizeof line, "%-*s %-12s %-6s %9.4f %9.4f %9.4f %5d %8.0f %7s %10.1e\n",
                    variant_width, name.c_str(), r.size.c_str(), r.dtype.c_str(), r.time_ms,
                    r.min_ms, r.max_ms, r.launches_per_sample, r.gbps(), pct.c_str(), r.max_error);
    }
    t << line;
  }
  return t.str();
}

std::string csv(const std::vector<row>& rows, const run_info& info) {
  std::ostringstream c;
  c << "# tilepuzzles bench --csv: " << field(info.command) << "\n";
  c << "# GPU " << field(info.gpu) << ", commit " << field(info.commit) << "\n";
  c << "# GB/s count the fewest bytes the problem moves; pct_copy is GB/s over the copy row's\n";
  c << "benchmark,variant,size,dtype,causal,time_ms,min_ms,max_ms,runs,bytes,flops,gbps,tflops,"
       "pct_copy,vs_cublas,max_error,launches_per_sample,graph,problem,gpu,commit\n";
  for (const auto& r : rows) {
    if (!r.timed()) {  // a row without a time would not parse as one
      c << "# " << field(r.benchmark) << ' ' << field(r.variant) << ' ' << field(r.size) << ' '
        << field(r.dtype) << ": "
        << field(r.problem) << '\n';
      continue;
    }
    c << field(r.benchmark) << ',' << field(r.variant) << ',' << field(r.size) << ','
      << field(r.dtype) << ',' << field(r.causal) << ',';
    c << format("%.5f", r.time_ms) << ',' << format("%.5f", r.min_ms) << ','
      << format("%.5f", r.max_ms) << ',' << r.runs;
    const row* base = baseline_of(r, rows);
    c << ',' << (r.bytes > 0 ? format("%.0f", r.bytes) : "") << ','
      << (r.flops > 0 ? format("%.0f", r.flops) : "") << ','
      << (r.bytes > 0 ? format("%.1f", r.gbps()) : "") << ','
      << (r.flops > 0 ? format("%.2f", r.tflops()) : "") << ','
      << (info.ceiling_gbps > 0 && r.bytes > 0 ? format("%.1f", 100 * r.gbps() / info.ceiling_gbps)
                                               : "")
      << ',' << (base ? format("%.3f", base->time_ms / r.time_ms) : "") << ','
      << format("%.2g", r.max_error) << ',' << r.launches_per_sample << ','
      << (r.graph ? "yes" : "no") << ',' << field(r.problem)
      << ',' << field(info.gpu) << ',' << field(info.commit) << '\n';
  }
  return c.str();
}

}  // namespace tp::bench
