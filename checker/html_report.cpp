#include "checker/html_report.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

namespace tp {

namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Twelve colours far apart, for the first programs; program_colour makes the others.
const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                         "#17becf", "#bcbd22", "#7f7f7f", "#393b79", "#637939", "#843c39"};

// The colours the maps give other meanings than a program.
const char* reserved_colours[] = {"#444444", "#d9d9d9", "#f4f4f4", "#ffb3b3", "#ffffff"};

std::string hex_of_hsl(double hue, double saturation, double lightness) {
  const double c = (1 - std::abs(2 * lightness - 1)) * saturation;
  const double h = hue / 60;
  const double x = c * (1 - std::abs(std::fmod(h, 2) - 1));
  double r = 0, g = 0, b = 0;
  if (h < 1) r = c, g = x;
  else if (h < 2) r = x, g = c;
  else if (h < 3) g = c, b = x;
  else if (h < 4) g = x, b = c;
  else if (h < 5) r = x, b = c;
  else r = c, b = x;
  const double m = lightness - c / 2;
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", static_cast<int>(std::lround((r + m) * 255)),
                static_cast<int>(std::lround((g + m) * 255)),
                static_cast<int>(std::lround((b + m) * 255)));
  return text;
}

const char* state_name(cell_state s) {
  switch (s) {
    case cell_state::none: return "none";
    case cell_state::untouched: return "untouched";
    case cell_state::masked: return "masked";
    case cell_state::loaded: return "loaded";
    case cell_state::stored: return "stored";
    case cell_state::loaded_stored: return "loaded-stored";
  }
  return "none";
}

std::string fill_of(const cell& c) {
  if (c.state == cell_state::none) return "none";
  if (c.wrong && (c.state == cell_state::untouched || c.state == cell_state::masked))
    return "#ffb3b3";
  if (c.state == cell_state::untouched) return "#f4f4f4";
  if (c.state == cell_state::masked) return "#d9d9d9";
  if (c.program == -2) return "#444444";
  return program_colour(c.program);
}

constexpr int cell_px = 12;
constexpr int max_rows = 32, max_cols = 64;

// The kernel's lines around `line` (or its first lines when there is none), numbered.
std::string snippet(const std::string& file, int line) {
  std::string path = file;
#ifdef TILEPUZZLES_SOURCE_DIR
  if (!path.empty() && path[0] != '/') path = std::string(TILEPUZZLES_SOURCE_DIR) + "/" + path;
#endif
  std::ifstream in(path);
  if (!in) return {};
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const int first = line > 0 ? std::max(1, line - 6) : 1;
  const int last = line > 0 ? std::min<int>(lines.size(), line + 4) : std::min<int>(lines.size(), 60);
  std::ostringstream s;
  s << "<pre class=\"kernel\">";
  for (int i = first; i <= last; ++i) {
    const bool hit = i == line;
    s << (hit ? "<mark class=\"source-line\">" : "") << (i < 10 ? " " : "") << i << "  "
      << escape(lines[i - 1]) << (hit ? "</mark>" : "") << "\n";
  }
  s << "</pre>";
  return s.str();
}

// "puzzles/vector_add.hpp:17" -> (file, 17).
std::pair<std::string, int> split_source(const std::string& source) {
  const std::size_t colon = source.find_last_of(':');
  if (colon == std::string::npos) return {source, 0};
  try {
    return {source.substr(0, colon), std::stoi(source.substr(colon + 1))};
  } catch (...) {
    return {source, 0};
  }
}

void write_svg(std::ostringstream& s, const buffer_view& v, const map_grid& g) {
  const long long w = g.shown_cols * cell_px, h = g.shown_rows * cell_px;
  s << "<svg class=\"map\" data-buffer=\"" << escape(v.name) << "\" width=\"" << w
    << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h
    << "\" xmlns=\"http://www.w3.org/2000/svg\">";
  for (long long r = 0; r < g.shown_rows; ++r)
    for (long long c = 0; c < g.shown_cols; ++c) {
      const cell& x = g.cells[static_cast<std::size_t>(r * g.shown_cols + c)];
      if (x.state == cell_state::none) continue;
      s << "<rect class=\"cell" << (x.wrong ? " wrong" : "") << "\" data-r=\"" << r
        << "\" data-c=\"" << c << "\" data-state=\"" << state_name(x.state) << "\" data-program=\""
        << (x.program == -2 ? std::string("several") : x.program == -1 ? std::string("")
                                                                        : std::to_string(x.program))
        << "\" x=\"" << c * cell_px << "\" y=\"" << r * cell_px << "\" width=\"" << cell_px - 1
        << "\" height=\"" << cell_px - 1 << "\" fill=\"" << fill_of(x) << "\"/>";
    }
  s << "</svg>";
}

// Per program, for the picker: for each buffer the cells it touched, as "index:state" pairs.
std::string program_data(const traced_run& run, std::size_t max_programs) {
  std::ostringstream s;
  s << "[";
  const long long count = std::min<long long>(run.program_count(), max_programs);
  for (long long p = 0; p < count; ++p) {
    s << (p ? "," : "") << "[";
    const auto views = views_of(run, static_cast<int>(p));
    for (std::size_t b = 0; b < views.size(); ++b) {
      const map_grid g = grid_of(views[b], max_rows, max_cols);
      s << (b ? "," : "") << "\"";
      bool first = true;
      for (std::size_t i = 0; i < g.cells.size(); ++i) {
        const cell_state st = g.cells[i].state;
        if (st == cell_state::none || st == cell_state::untouched) continue;
        s << (first ? "" : " ") << i << ":" << state_name(st);
        first = false;
      }
      s << "\"";
    }
    s << "]";
  }
  s << "]";
  return s.str();
}

const char* style = R"(
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
.verdict { font-weight: bold; } .solved { color: #2a7d2a; } .failed { color: #b00020; }
.right { color: #1d6b8a; }
.notsolved { color: #8a6d00; }
pre { background: #f7f7f7; padding: .6em; overflow-x: auto; font-size: 12px; }
pre.diagnostic { border-left: 4px solid #b00020; white-space: pre-wrap; }
mark.source-line { background: #ffe08a; display: inline-block; width: 100%; }
.buffer { margin: 1em 0; } .buffer h3 { font-size: 1em; margin: .3em 0; font-family: monospace; }
svg.map rect.wrong { stroke: #d00000; stroke-width: 2; }
.legend span { display: inline-block; margin-right: 1em; }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
table.counters { border-collapse: collapse; font-size: 13px; }
table.counters td, table.counters th { border: 1px solid #ddd; padding: 2px 8px; text-align: right; }
.outside { color: #b00020; }
)";

// Recolours a section's maps for the program picked; "all" restores the map of every program.
const char* script = R"(
(function () {
  var fills = {loaded: '#1f77b4', stored: '#ff7f0e', 'loaded-stored': '#9467bd', masked: '#d9d9d9'};
  document.querySelectorAll('section.puzzle').forEach(function (section) {
    var picker = section.querySelector('select.program-picker');
    var data = section.querySelector('script.programs');
    if (!picker || !data) return;
    var programs = JSON.parse(data.textContent);
    var maps = section.querySelectorAll('svg.map');
    maps.forEach(function (svg) {
      svg.querySelectorAll('rect.cell').forEach(function (r) { r.dataset.all = r.getAttribute('fill'); });
    });
    picker.addEventListener('change', function () {
      var p = picker.value;
      maps.forEach(function (svg, b) {
        var rects = svg.querySelectorAll('rect.cell');
        if (p === 'all') { rects.forEach(function (r) { r.setAttribute('fill', r.dataset.all); }); return; }
        var byIndex = {};
        var cols = Number(svg.dataset.cols);
        rects.forEach(function (r) {
          byIndex[Number(r.dataset.r) * cols + Number(r.dataset.c)] = r;
          r.setAttribute('fill', '#f4f4f4');
        });
        (programs[Number(p)][b] || '').split(' ').forEach(function (item) {
          if (!item) return;
          var parts = item.split(':');
          var r = byIndex[Number(parts[0])];
          if (r) r.setAttribute('fill', fills[parts[1]]);
        });
      });
    });
  });
  // A link may name a program: report.html#program=3 opens with program 3 picked.
  var named = /program=(\d+)/.exec(location.hash);
  if (named) document.querySelectorAll('select.program-picker').forEach(function (picker) {
    if (picker.querySelector('option[value="' + named[1] + '"]')) {
      picker.value = named[1];
      picker.dispatchEvent(new Event('change'));
    }
  });
  document.body.dataset.ready = '1';
})();
)";

}  // namespace

std::string program_colour(int linear) {
  // Made once, in order, so that each colour is checked against all before it.
  static std::vector<std::string> made(std::begin(colours), std::end(colours));
  static std::set<std::string> used = [] {
    std::set<std::string> all(std::begin(colours), std::end(colours));
    all.insert(std::begin(reserved_colours), std::end(reserved_colours));
    return all;
  }();
  // Hues a golden angle apart never repeat; three lightnesses and two saturations tell neighbours
  // of a long legend apart.
  for (int i = static_cast<int>(made.size()); i <= linear; ++i) {
    std::string colour;
    for (int attempt = 0; colour.empty() || used.count(colour); ++attempt) {
      const int k = i + attempt * 7919;
      colour = hex_of_hsl(std::fmod(k * 137.50776405, 360.0), (k / 3) % 2 ? 0.55 : 0.75,
                          0.32 + 0.14 * (k % 3));
    }
    used.insert(colour);
    made.push_back(colour);
  }
  return made[static_cast<std::size_t>(linear)];
}

std::optional<std::string> write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc | std::ios::binary);
  if (!out) return "cannot write " + path;
  out << text;
  out.close();
  if (!out) return "cannot write " + path;
  return std::nullopt;
}

std::string html_page(const std::string& title, const std::vector<html_section>& sections) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" << escape(title)
    << "</title><style>" << style << "</style></head><body>\n<h1>" << escape(title) << "</h1>\n";
  for (const html_section& sec : sections) {
    const puzzle_spec& p = *sec.spec;
    const char* cls = sec.verdict == "solved"               ? "solved"
                      : sec.verdict == html_right_verdict ? "right"
                      : sec.verdict == "not solved"         ? "notsolved"
                                                            : "failed";
    s << "<section class=\"puzzle\" id=\"puzzle-" << p.number << "\" data-id=\"" << escape(p.id)
      << "\" data-verdict=\"" << escape(sec.verdict) << "\">\n<h2>" << p.number << " "
      << escape(p.id) << ": " << escape(p.title) << " &mdash; <span class=\"verdict " << cls
      << "\">" << escape(sec.verdict) << "</span></h2>\n<p>Kernel: <code>"
      << escape(sec.kernel_file) << "</code>. " << escape(p.summary) << "</p>\n";
    if (sec.problem) {
      s << "<h3>Diagnostic: <code>" << escape(sec.problem->kind) << "</code></h3>\n<pre class=\"diagnostic\">"
        << escape(sec.problem->message) << "</pre>\n";
      const auto [file, line] = split_source(sec.problem->source);
      const std::string code = snippet(sec.problem->source.empty() ? sec.kernel_file : file, line);
      if (!code.empty())
        s << "<p>" << (line > 0 ? "The kernel at " + escape(sec.problem->source) : "The kernel")
          << ":</p>" << code << "\n";
    }
    if (!sec.run) {
      if (!sec.note.empty()) s << "<p>" << escape(sec.note) << "</p>\n";
      s << "</section>\n";
      continue;
    }
    const traced_run& run = *sec.run;
    s << "<p class=\"run\">Maps of one run: " << escape(run.label()) << ", grid [" << run.grid[0]
      << ", " << run.grid[1] << ", " << run.grid[2] << "], " << run.program_count()
      << " programs" << (run.programs_run < run.program_count()
                             ? " (it stopped after " + std::to_string(run.programs_run) + ")"
                             : std::string())
      << ".</p>\n";
    constexpr std::size_t max_picked = 256;
    s << "<p><label>Program: <select class=\"program-picker\"><option value=\"all\">every "
         "program (coloured by program)</option>";
    for (long long q = 0; q < std::min<long long>(run.program_count(), max_picked); ++q)
      s << "<option value=\"" << q << "\">" << program_name(run.grid, static_cast<int>(q))
        << "</option>";
    s << "</select></label></p>\n<p class=\"legend\">";
    // Every program the picker lists, each in its own colour.
    const long long listed = std::min<long long>(run.program_count(), max_picked);
    for (long long q = 0; q < listed; ++q)
      s << "<span class=\"program\"><i class=\"swatch\" style=\"background:"
        << program_colour(static_cast<int>(q)) << "\"></i>"
        << program_name(run.grid, static_cast<int>(q)) << "</span>";
    if (run.program_count() > listed)
      s << "<span>and " << run.program_count() - listed << " more programs</span>";
    s << "<br>";
    s << "<span><i class=\"swatch\" style=\"background:#444\"></i>several programs</span>"
         "<span><i class=\"swatch\" style=\"background:#d9d9d9\"></i>masked-off lanes only</span>"
         "<span><i class=\"swatch\" style=\"background:#f4f4f4;border:1px solid #ccc\"></i>"
         "untouched</span><span><i class=\"swatch\" style=\"border:2px solid #d00000\"></i>wrong "
         "or unwritten output</span><br>One program picked: <span><i class=\"swatch\" "
         "style=\"background:#1f77b4\"></i>loaded</span><span><i class=\"swatch\" "
         "style=\"background:#ff7f0e\"></i>stored</span><span><i class=\"swatch\" "
         "style=\"background:#9467bd\"></i>both</span></p>\n";
    const auto views = views_of(run, -1);
    for (std::size_t b = 0; b < views.size(); ++b) {
      const buffer_view& v = views[b];
      const map_grid g = grid_of(v, max_rows, max_cols);
      s << "<div class=\"buffer\"><h3>" << escape(v.name) << ": float32 [";
      for (std::size_t i = 0; i < v.shape.size(); ++i) s << (i ? ", " : "") << v.shape[i];
      s << "], " << (v.output ? "output" : "input");
      if (g.summarized())
        s << ", " << g.rows << " x " << g.cols << " elements as " << g.shown_rows << " x "
          << g.shown_cols << " cells";
      s << "</h3>";
      std::ostringstream svg;
      write_svg(svg, v, g);
      std::string svg_text = svg.str();
      svg_text.insert(4, " data-cols=\"" + std::to_string(g.shown_cols) + "\"");
      s << svg_text;
      for (const auto& o : v.outside)
        s << "<p class=\"outside\">Out of bounds: program " << program_name(run.grid, o.program)
          << (o.store ? " stores " : " loads ") << o.count << " lanes outside " << escape(v.name)
          << ", at offsets " << o.first << " to " << o.last << ".</p>";
      if (v.wrong_count)
        s << "<p class=\"wrong-count\">" << v.wrong_count << " of " << v.cells.size()
          << " elements wrong or unwritten.</p>";
      s << "</div>\n";
    }
    s << "<table class=\"counters\"><tr><th>buffer</th><th>loads</th><th>stores</th><th>bytes</th>"
         "<th>masked-off lanes</th><th>max reads of an element</th></tr>";
    for (const auto& c : run.counters)
      s << "<tr><td>" << escape(c.name) << "</td><td>" << c.loads << "</td><td>" << c.stores
        << "</td><td>" << c.bytes << "</td><td>" << c.masked << "</td><td>"
        << c.max_element_reads << "</td></tr>";
    s << "</table>\n<script type=\"application/json\" class=\"programs\">"
      << program_data(run, max_picked) << "</script>\n</section>\n";
  }
  s << "<script>" << script << "</script>\n</body></html>\n";
  return s.str();
}

}  // namespace tp
