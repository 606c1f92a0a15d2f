#include "checker/access_map.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "checker/modules.hpp"

namespace tp {

namespace {

// The comparison `check` makes (checker/check.cpp, compare_outputs), element by element.
bool element_wrong(const puzzle_spec& spec, dtype element, double yours, double expected) {
  if (!std::isfinite(yours) && std::isfinite(expected)) return true;
  double rtol = spec.rtol, atol = spec.atol;
  for (const auto& tol : spec.tolerances)
    if (tol.dtype == element) rtol = tol.rtol, atol = tol.atol;
  return !(std::abs(yours - expected) <= atol + rtol * std::abs(expected)) &&
         !(yours == expected);
}

int rank_of(cell_state s) { return static_cast<int>(s); }

cell merge(cell a, const cell& b) {
  if (b.state == cell_state::none) return a;
  if (a.state == cell_state::none) return b;
  const bool a_load = a.state == cell_state::loaded || a.state == cell_state::loaded_stored;
  const bool a_store = a.state == cell_state::stored || a.state == cell_state::loaded_stored;
  const bool b_load = b.state == cell_state::loaded || b.state == cell_state::loaded_stored;
  const bool b_store = b.state == cell_state::stored || b.state == cell_state::loaded_stored;
  if ((a_load || b_load) && (a_store || b_store)) a.state = cell_state::loaded_stored;
  else if (rank_of(b.state) > rank_of(a.state)) a.state = b.state;
  if (b.program != -1) {
    if (a.program == -1) a.program = b.program;
    else if (a.program != b.program) a.program = -2;
  }
  a.wrong = a.wrong || b.wrong;
  return a;
}

const char* palette[] = {"38;5;39",  "38;5;208", "38;5;40",  "38;5;199", "38;5;226", "38;5;45",
                         "38;5;202", "38;5;141", "38;5;82",  "38;5;33",  "38;5;214", "38;5;161",
                         "38;5;51",  "38;5;118", "38;5;171", "38;5;220"};

}  // namespace

std::string traced_run::label() const {
  return "case " + numbered_case_label(*spec, case_index, blocks, order, dtype);
}

std::optional<std::size_t> kernel_for_case(const puzzle_spec& spec, std::size_t c) {
  for (std::size_t k = 0; k < spec.kernels.size(); ++k)
    if (spec.runs(spec.cases[c].sizes, spec.kernels[k].blocks)) return k;
  return std::nullopt;
}

std::size_t default_case(const puzzle_spec& spec, std::optional<std::size_t> kernel_index) {
  std::optional<std::size_t> first;
  for (std::size_t c = 0; c < spec.cases.size(); ++c) {
    const auto k = kernel_index ? kernel_index : kernel_for_case(spec, c);
    if (!k || !spec.runs(spec.cases[c].sizes, spec.kernels[*k].blocks)) continue;
    if (!first) first = c;
    const auto g = spec.grid(spec.cases[c].sizes, spec.kernels[*k].blocks);
    if (1LL * g[0] * g[1] * g[2] > 1) return c;
  }
  return first.value_or(0);
}

std::variant<traced_run, tl::sim::diagnostic> run_traced(const puzzle_spec& spec, impl which,
                                                         const module_options& modules,
                                                         std::size_t case_index, std::uint64_t seed,
                                                         std::optional<std::size_t> kernel_index,
                                                         tl::sim::order order) {
  const module_ref ref{&spec, which, backend::simulator};
  if (modules.build) {
    auto built = build_modules({ref}, modules);
    if (built[0]) return *built[0];
  }
  auto loaded = load_module(ref, modules);
  if (auto* d = std::get_if<tl::sim::diagnostic>(&loaded)) return *d;
  return run_traced_with(spec, which, shown_kernel_file(spec, which, modules),
                         std::get<loaded_module>(loaded).launchers, case_index, seed, kernel_index,
                         order);
}

std::variant<traced_run, tl::sim::diagnostic> run_traced_with(
    const puzzle_spec& spec, impl which, const std::string& kernel_file,
    const std::vector<void (*)()>& launchers, std::size_t case_index, std::uint64_t seed,
    std::optional<std::size_t> kernel_index, tl::sim::order order) {
  traced_run run;
  run.spec = &spec;
  run.which = which;
  run.kernel_file = kernel_file;
  run.case_index = case_index;
  run.sizes = spec.cases[case_index].sizes;
  const auto k = kernel_index ? kernel_index : kernel_for_case(spec, case_index);
  if (!k || *k >= spec.kernels.size()) {
    tl::sim::diagnostic d;
    d.kind = tl::sim::kind::crash;
    d.message = "no block sizes of this puzzle fit this case";
    return d;
  }
  run.blocks = spec.kernels[*k].blocks;
  run.kernel_index = *k;
  run.dtype = spec.kernels[*k].dtype;
  run.grid = spec.grid(run.sizes, run.blocks);

  // The kernel entry's dtype: a float16 kernel gets float16 tensors, as `check` gives it.
  case_data data = make_case(spec, spec.cases[case_index], seed, case_index, spec.kernels[*k].dtype);
  run.tensors = data.tensors;
  launch_request request;
  request.grid = run.grid;
  request.tensors = &run.tensors;
  request.sizes = run.sizes;
  tl::sim::access_trace trace;
  tl::sim::launch_options options;
  options.trace = &trace;
  options.print_output = &run.printed;
  options.order = order;
  options.seed = mix_seed(seed, case_index, 0x5eed);  // the shuffled order `check` runs
  run.order = tl::sim::order_name(order);
  const auto launcher = reinterpret_cast<sim_launcher>(launchers[*k]);
  const sim_outcome out = launcher(request, options);
  run.entries = trace.entries();
  run.truncated = trace.truncated();
  run.programs_run = out.result.programs_run;
  long long stores = 0;
  for (const auto& b : out.buffers) {
    const auto& c = b.counters;
    stores += c.stores;
    run.counters.push_back({b.name(), c.loads, c.stores, c.load_bytes + c.store_bytes,
                            c.masked_loads + c.masked_stores, c.max_element_reads,
                            c.max_program_element_reads, c.max_program_loads});
  }
  run.wrong.resize(run.tensors.size());
  for (std::size_t t = 0; t < run.tensors.size(); ++t) {
    if (!run.tensors[t].output) continue;
    auto& wrong = run.wrong[t];
    wrong.assign(run.tensors[t].values.size(), false);
    for (std::size_t i = 0; i < wrong.size(); ++i)
      wrong[i] = out.buffers[t].shadow[i].writer == tl::sim::never_written ||
                 element_wrong(spec, run.tensors[t].dtype, run.tensors[t].values[i],
                               data.expected[t].values[i]);
  }
  const std::string where = run.label();
  if (out.result.error) {
    run.problem = *out.result.error;
  } else if (stores == 0) {
    tl::sim::diagnostic d;
    d.kind = tl::sim::kind::not_solved;
    d.message = "not-solved: the kernel stores nothing yet. Write it in " + run.kernel_file + ".";
    run.problem = d;
  }
  // Unwritten outputs before the comparison, as `check` orders them: an element nothing wrote is
  // poison (NaN), and calling it nan-inf would send the learner after an overflow.
  for (std::size_t t = 0; t < run.tensors.size() && !run.problem; ++t)
    if (run.tensors[t].output) run.problem = tl::sim::unwritten_output(out.buffers[t], where);
  if (!run.problem)
    if (auto d = compare_outputs(spec, run.tensors, data.expected, where)) {
      tl::sim::launch_options again;
      again.order = order;
      again.seed = options.seed;
      explain_by_other(spec, case_index, spec.kernels[*k], launcher, data, again, *d);
      run.problem = *d;
    }
  return run;
}

std::vector<buffer_view> views_of(const traced_run& run, int program) {
  std::vector<buffer_view> views;
  for (std::size_t t = 0; t < run.tensors.size(); ++t) {
    buffer_view v;
    v.name = run.tensors[t].name;
    v.shape = run.tensors[t].shape;
    v.output = run.tensors[t].output;
    v.cells.assign(static_cast<std::size_t>(run.tensors[t].count()), cell{});
    if (v.output)
      for (std::size_t i = 0; i < v.cells.size(); ++i)
        if (run.wrong[t][i]) {
          v.cells[i].wrong = true;
          ++v.wrong_count;
        }
    views.push_back(std::move(v));
  }
  std::map<std::pair<int, bool>, outside_lanes> outside[64];
  for (const auto& e : run.entries) {
    if (program >= 0 && e.program != program) continue;
    if (e.buffer < 0 || e.buffer >= static_cast<int>(views.size())) continue;
    buffer_view& v = views[e.buffer];
    const bool inside = e.offset >= 0 && e.offset < static_cast<long long>(v.cells.size());
    if (e.what & (tl::sim::traced_outside_load | tl::sim::traced_outside_store)) {
      const bool store = e.what & tl::sim::traced_outside_store;
      auto& o = outside[e.buffer % 64][{e.program, store}];
      if (o.count == 0) o = {e.program, store, 0, e.offset, e.offset};
      ++o.count;
      o.first = std::min(o.first, e.offset);
      o.last = std::max(o.last, e.offset);
    }
    if (!inside) {
      if (e.what & (tl::sim::traced_masked_load | tl::sim::traced_masked_store)) ++v.masked_outside;
      continue;
    }
    cell c;
    const bool load = e.what & tl::sim::traced_load, store = e.what & tl::sim::traced_store;
    if (load && store) c.state = cell_state::loaded_stored;
    else if (store) c.state = cell_state::stored;
    else if (load) c.state = cell_state::loaded;
    else if (e.what & (tl::sim::traced_masked_load | tl::sim::traced_masked_store))
      c.state = cell_state::masked;
    else continue;
    if (load || store) c.program = e.program;
    cell& target = v.cells[static_cast<std::size_t>(e.offset)];
    c.wrong = target.wrong;
    target = merge(target, c);
  }
  for (std::size_t t = 0; t < views.size(); ++t)
    for (const auto& [key, o] : outside[t % 64]) views[t].outside.push_back(o);
  return views;
}

std::optional<int> parse_program(const std::string& text, const std::array<int, 3>& grid,
                                 std::string& error) {
  std::array<int, 3> id{0, 0, 0};
  std::string cleaned;
  for (char ch : text)
    if (ch != '(' && ch != ')' && ch != ' ') cleaned += ch;
  std::istringstream in(cleaned);
  int axis = 0;
  for (std::string part; std::getline(in, part, ',');) {
    if (axis == 3 || part.empty() ||
        part.find_first_not_of("0123456789") != std::string::npos) {
      error = "--program " + text + ": give the program's ids along the grid's axes, e.g. 1 or 1,0";
      return std::nullopt;
    }
    id[axis++] = std::stoi(part);
  }
  if (axis == 0) {
    error = "--program " + text + ": give the program's ids along the grid's axes, e.g. 1 or 1,0";
    return std::nullopt;
  }
  for (int a = 0; a < 3; ++a)
    if (id[a] >= grid[a]) {
      error = "--program " + text + ": this run's grid is [" + std::to_string(grid[0]) + ", " +
              std::to_string(grid[1]) + ", " + std::to_string(grid[2]) +
              "], so program ids go from (0, 0, 0) to (" + std::to_string(grid[0] - 1) + ", " +
              std::to_string(grid[1] - 1) + ", " + std::to_string(grid[2] - 1) + ")";
      return std::nullopt;
    }
  return id[0] + grid[0] * (id[1] + grid[1] * id[2]);
}

char program_symbol(int linear) {
  static const char symbols[] =
      "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return symbols[linear % 62];
}

namespace {

std::string shape_string(const std::vector<long long>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

map_grid grid_of(const buffer_view& v, int max_rows, int max_cols) {
  map_grid g;
  const long long n = static_cast<long long>(v.cells.size());
  if (v.shape.size() <= 1) {
    g.cols = std::min<long long>(std::max<long long>(n, 1), max_cols);
    g.rows = (n + g.cols - 1) / g.cols;
  } else {
    g.cols = std::max<long long>(1, v.shape.back());
    g.rows = n / g.cols;
  }
  g.rows = std::max<long long>(g.rows, 1);
  // Every cell covers the same number of rows and of columns (the last ones fewer), so that an
  // edge in the data (the last row of an image) is an edge between cells and not smeared over
  // cells of one and of two rows.
  g.rows_per_cell = (g.rows + max_rows - 1) / max_rows;
  g.cols_per_cell = (g.cols + max_cols - 1) / max_cols;
  g.shown_rows = (g.rows + g.rows_per_cell - 1) / g.rows_per_cell;
  g.shown_cols = (g.cols + g.cols_per_cell - 1) / g.cols_per_cell;
  g.cells.reserve(static_cast<std::size_t>(g.shown_rows * g.shown_cols));
  for (long long r = 0; r < g.shown_rows; ++r)
    for (long long c = 0; c < g.shown_cols; ++c) {
      const long long r0 = r * g.rows_per_cell, r1 = std::min(g.rows, r0 + g.rows_per_cell);
      const long long c0 = c * g.cols_per_cell, c1 = std::min(g.cols, c0 + g.cols_per_cell);
      cell out;
      out.state = cell_state::none;
      for (long long i = r0; i < r1; ++i)
        for (long long j = c0; j < c1; ++j) {
          const long long e = i * g.cols + j;
          if (e < n) out = merge(out, v.cells[e]);
        }
      g.cells.push_back(out);
    }
  return g;
}

std::string program_name(const std::array<int, 3>& grid, int linear) {
  return tl::sim::program_string(std::array<int, 3>{linear % grid[0], (linear / grid[0]) % grid[1],
                                                    linear / (grid[0] * grid[1])});
}

std::string render_maps(const traced_run& run, int program, const render_options& options) {
  std::ostringstream s;
  const bool all = program < 0;
  const auto views = views_of(run, program);
  auto paint = [&](const std::string& text, const std::string& code) {
    return options.color && !code.empty() ? "\033[" + code + "m" + text + "\033[0m" : text;
  };
  s << "Run: " << run.kernel_file << ", " << run.label() << ", grid [" << run.grid[0] << ", "
    << run.grid[1] << ", " << run.grid[2] << "] (" << run.program_count()
    << (run.program_count() == 1 ? " program)\n" : " programs)\n");
  if (all) {
    s << "Maps of every program: each element shows the program that stored it (or loaded it):";
    const long long shown = std::min<long long>(run.program_count(), 12);
    for (long long p = 0; p < shown; ++p)
      s << " " << paint(std::string(1, program_symbol(static_cast<int>(p))),
                        palette[p % 16])
        << "=" << program_name(run.grid, static_cast<int>(p));
    if (run.program_count() > shown) s << " ... (ids in order, 0-9a-zA-Z, then again)";
    s << "\n  * several programs, - only masked-off lanes, . untouched, "
      << (options.color ? paint("red", "41") : std::string("#")) << " wrong or unwritten output\n";
  } else {
    s << "Maps of program " << program_name(run.grid, program)
      << ": L loaded, S stored, B both, - masked-off lane, . untouched, "
      << (options.color ? paint("red", "41") + " background" : std::string("#"))
      << " wrong or unwritten output\n";
  }
  if (run.truncated) s << "(the trace stopped recording: the run touches too many elements)\n";
  if (run.programs_run < run.program_count())
    s << "The run stopped after " << run.programs_run << " of " << run.program_count()
      << " programs, at the problem below.\n";

  for (std::size_t t = 0; t < views.size(); ++t) {
    const buffer_view& v = views[t];
    const map_grid l = grid_of(v, options.max_rows, options.max_cols);
    s << "\n" << v.name << ": float32 " << shape_string(v.shape) << ", "
      << (v.output ? "output" : "input");
    if (l.shown_rows != l.rows || l.shown_cols != l.cols)
      s << ", " << l.rows << " x " << l.cols << " elements as " << l.shown_rows << " x "
        << l.shown_cols << " cells of " << l.rows_per_cell << " x " << l.cols_per_cell
        << " (a cell shows what happened to any of its elements)";
    else if (v.shape.size() <= 1 && l.rows > 1)
      s << ", " << l.cols << " elements a row";
    s << "\n";
    for (long long r = 0; r < l.shown_rows; ++r) {
      s << "  ";
      for (long long c = 0; c < l.shown_cols; ++c) {
        const cell x = l.cells[static_cast<std::size_t>(r * l.shown_cols + c)];
        char ch = ' ';
        std::string code;
        switch (x.state) {
          case cell_state::none: ch = ' '; break;
          case cell_state::untouched: ch = '.'; code = "2"; break;
          case cell_state::masked: ch = '-'; code = "2"; break;
          default:
            if (all) {
              ch = x.program == -2 ? '*' : program_symbol(x.program);
              code = x.program == -2 ? "1" : palette[x.program % 16];
            } else {
              ch = x.state == cell_state::loaded ? 'L' : x.state == cell_state::stored ? 'S' : 'B';
              code = x.state == cell_state::loaded ? "38;5;39" : "38;5;208";
            }
        }
        if (x.wrong) {
          if (options.color) code = "97;41";
          else ch = '#';
        }
        s << paint(std::string(1, ch), code);
      }
      s << "\n";
    }
    for (const auto& o : v.outside)
      s << "  " << paint("out of bounds:", options.color ? "1;31" : "") << " program "
        << program_name(run.grid, o.program) << (o.store ? " stores " : " loads ") << o.count
        << (o.count == 1 ? " lane" : " lanes") << " outside " << v.name
        << (o.first == o.last ? ", at offset " + std::to_string(o.first)
                              : ", at offsets " + std::to_string(o.first) + " to " +
                                    std::to_string(o.last))
        << " (valid: 0 to " << v.cells.size() - 1 << ")\n";
    if (v.masked_outside)
      s << "  " << v.masked_outside << " masked-off " << (v.masked_outside == 1 ? "lane points" : "lanes point")
        << " outside " << v.name << " (fine: a masked-off lane touches nothing)\n";
    if (v.wrong_count) s << "  " << v.wrong_count << " of " << v.cells.size() << " elements wrong or unwritten\n";
    if (t < run.counters.size() && all) {
      const auto& c = run.counters[t];
      s << "  counters: " << c.loads << " loads, " << c.stores << " stores, " << c.masked
        << " masked-off lanes";
      if (c.loads)
        s << ", each element read at most "
          << (c.max_element_reads == 1 ? std::string("once")
                                       : std::to_string(c.max_element_reads) + " times");
      s << "\n";
    }
  }
  return s.str();
}

}  // namespace tp
