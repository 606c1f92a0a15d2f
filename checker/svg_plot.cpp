#include "checker/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tp::bench {

namespace {

constexpr double width = 860, height = 400;
constexpr double left = 70, right = 330, top = 40, bottom = 50;  // margins; the legend on the right
const char* const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
                               "#393b79", "#637939", "#843c39", "#7b4173"};

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string whole(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string shortest(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

// 1, 2, 5 times a power of ten: about five steps from 0 to top.
double nice_step(double top_value) {
  const double raw = top_value / 5;
  const double p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

std::string size_label(double x) {
  const double l = std::log2(x);
  if (std::fabs(l - std::round(l)) < 1e-9 && x >= 1024) return "2^" + std::to_string(static_cast<int>(std::round(l)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", x);
  return buf;
}

void panel(std::ostringstream& svg, const std::string& benchmark, const std::vector<row>& rows,
           const run_info& info, double y0) {
  std::vector<const row*> mine;
  for (const auto& r : rows)
    if (table_of(r.benchmark) == benchmark && r.timed() && r.x > 0) mine.push_back(&r);
  // A sweep that counts flops (matmul, beside cuBLAS) plots TFLOP/s, a line per implementation,
  // variant and dtype, the library's dashed; the others GB/s under the copy ceiling.
  const bool flops = std::any_of(mine.begin(), mine.end(), [](const row* r) { return r->flops > 0; });
  auto value = [&](const row* r) { return flops ? r->tflops() : r->gbps(); };
  auto series_of = [&](const row* r) {
    if (!flops) return r->variant;
    return (r->benchmark == "cublas" ? "cuBLAS " : "tl ") + r->variant +
           (r->benchmark == "cublas" ? std::string() : " " + r->dtype);
  };
  const double ceiling = flops ? 0 : info.ceiling_gbps;
  std::vector<std::string> variants;
  for (const row* r : mine)
    if (std::find(variants.begin(), variants.end(), series_of(r)) == variants.end())
      variants.push_back(series_of(r));
  double xmin = INFINITY, xmax = -INFINITY, ymax = ceiling;
  for (const row* r : mine) {
    xmin = std::min(xmin, std::log2(r->x));
    xmax = std::max(xmax, std::log2(r->x));
    ymax = std::max(ymax, value(r));
  }
  const double pw = width - left - right, ph = height - top - bottom;
  svg << "<g transform=\"translate(0," << num(y0) << ")\">\n";
  std::string title = benchmark + " (" + (mine.empty() ? std::string("no timed rows") : flops ? std::string("against cuBLAS") : mine[0]->dtype) + ")";
  if (!info.gpu.empty()) title += ", " + info.gpu;
  svg << "<text x=\"" << num(left + pw / 2) << "\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">"
      << escape(title) << "</text>\n";
  svg << "<rect x=\"" << num(left) << "\" y=\"" << num(top) << "\" width=\"" << num(pw)
      << "\" height=\"" << num(ph) << "\" fill=\"none\" stroke=\"#444\"/>\n";
  if (mine.empty()) {
    svg << "</g>\n";
    return;
  }
  if (xmax == xmin) xmin -= 1, xmax += 1;
  const double step = nice_step(ymax * 1.05);
  const double ytop = step * std::ceil(ymax * 1.05 / step);
  auto px = [&](double x) { return left + (std::log2(x) - xmin) / (xmax - xmin) * pw; };
  // TFLOP/s span decades (fp32 FFMA beside fp16 tensor cores): a logarithmic axis, whole decades.
  double ymin_log = 0, ymax_log = 1;
  if (flops) {
    double lo = INFINITY;
    for (const row* r : mine) lo = std::min(lo, value(r));
    ymin_log = std::floor(std::log10(lo));
    ymax_log = std::max(ymin_log + 1, std::ceil(std::log10(ymax)));
  }
  auto py = [&](double y) {
    if (flops) return top + ph - (std::log10(y) - ymin_log) / (ymax_log - ymin_log) * ph;
    return top + ph - y / ytop * ph;
  };
  std::vector<double> ticks;
  if (flops) {
    for (double d = ymin_log; d < ymax_log + 0.5; ++d)
      for (double m : {1.0, 2.0, 5.0})
        if (d + std::log10(m) <= ymax_log + 1e-9) ticks.push_back(m * std::pow(10, d));
  } else {
    for (double y = 0; y <= ytop + step / 2; y += step) ticks.push_back(y);
  }
  for (double y : ticks) {
    svg << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + pw) << "\" y1=\"" << num(py(y))
        << "\" y2=\"" << num(py(y)) << "\" stroke=\"#ddd\"/>\n";
    svg << "<text x=\"" << num(left - 6) << "\" y=\"" << num(py(y) + 4)
        << "\" text-anchor=\"end\" font-size=\"11\">" << (flops ? shortest(y) : whole(y))
        << "</text>\n";
  }
  std::vector<double> xs;
  for (const row* r : mine)
    if (std::find(xs.begin(), xs.end(), r->x) == xs.end()) xs.push_back(r->x);
  for (double x : xs)
    svg << "<text x=\"" << num(px(x)) << "\" y=\"" << num(top + ph + 16)
        << "\" text-anchor=\"middle\" font-size=\"11\">" << size_label(x) << "</text>\n";
  svg << "<text x=\"" << num(left + pw / 2) << "\" y=\"" << num(height - 12)
      << "\" text-anchor=\"middle\" font-size=\"12\">" << escape(mine[0]->x_name)
      << " (log scale)</text>\n";
  svg << "<text transform=\"translate(18," << num(top + ph / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" << (flops ? "TFLOP/s (log scale)" : "GB/s")
      << "</text>\n";
  double legend_y = top + 10;
  auto legend = [&](const std::string& colour, const std::string& label, bool dashed) {
    svg << "<line x1=\"" << num(left + pw + 12) << "\" x2=\"" << num(left + pw + 36) << "\" y1=\""
        << num(legend_y) << "\" y2=\"" << num(legend_y) << "\" stroke=\"" << colour
        << "\" stroke-width=\"2\"" << (dashed ? " stroke-dasharray=\"6 4\"" : "") << "/>\n";
    svg << "<text x=\"" << num(left + pw + 42) << "\" y=\"" << num(legend_y + 4)
        << "\" font-size=\"11\">" << escape(label) << "</text>\n";
    legend_y += 18;
  };
  if (ceiling > 0) {
    svg << "<line x1=\"" << num(left) << "\" x2=\"" << num(left + pw) << "\" y1=\""
        << num(py(ceiling)) << "\" y2=\"" << num(py(ceiling))
        << "\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n";
    legend("#555", "copy, 1 GiB: " + whole(info.ceiling_gbps) + " GB/s", true);
  }
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const std::string colour = colours[v % (sizeof colours / sizeof *colours)];
    std::vector<const row*> series;
    for (const row* r : mine)
      if (series_of(r) == variants[v]) series.push_back(r);
    const bool library = series.front()->benchmark == "cublas";
    std::sort(series.begin(), series.end(), [](const row* a, const row* b) { return a->x < b->x; });
    svg << "<polyline class=\"series\" fill=\"none\" stroke=\"" << colour
        << "\" stroke-width=\"2\"" << (library ? " stroke-dasharray=\"3 3\"" : "") << " points=\"";
    for (const row* r : series) svg << num(px(r->x)) << "," << num(py(value(r))) << " ";
    svg << "\"/>\n";
    for (const row* r : series)
      svg << "<circle cx=\"" << num(px(r->x)) << "\" cy=\"" << num(py(value(r)))
          << "\" r=\"3\" fill=\"" << colour << "\"><title>" << escape(r->size) << ": "
          << num(value(r)) << (flops ? " TFLOP/s, " : " GB/s, ") << r->time_ms
          << " ms</title></circle>\n";
    legend(colour, variants[v], library);
  }
  svg << "</g>\n";
}

}  // namespace

std::string svg_plot(const std::vector<row>& rows, const run_info& info) {
  const auto benchmarks = benchmarks_in(rows);
  const double total = height * std::max<std::size_t>(1, benchmarks.size());
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\""
      << num(total) << "\" viewBox=\"0 0 " << num(width) << " " << num(total)
      << "\" font-family=\"sans-serif\">\n";
  svg << "<title>tilepuzzles bench" << (info.commit.empty() ? "" : ", commit " + escape(info.commit))
      << "</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (std::size_t i = 0; i < benchmarks.size(); ++i)
    panel(svg, benchmarks[i], rows, info, height * static_cast<double>(i));
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace tp::bench
