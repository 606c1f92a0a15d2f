#include <algorithm>
#include <sstream>

#include "checker/specs/common.hpp"
#include "simulator/context.hpp"

namespace tp::specs {

Eigen::ArrayXd as_array(const tensor& t) {
  return Eigen::Map<const Eigen::ArrayXf>(t.values.data(), t.count()).cast<double>();
}

matrix as_matrix(const tensor& t, long long rows, long long cols, long long first) {
  using fmatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const fmatrix>(t.values.data() + first, rows, cols).cast<double>();
}

void set_from(tensor& t, const Eigen::ArrayXd& values) {
  Eigen::Map<Eigen::ArrayXf>(t.values.data(), t.count()) = values.cast<float>();
}

void set_from(tensor& t, const matrix& values, long long first) {
  using fmatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<fmatrix>(t.values.data() + first, values.rows(), values.cols()) =
      values.cast<float>();
}

void softmax_reference(const std::vector<int>& n, std::vector<tensor>& t) {
  const matrix x = as_matrix(t[0], n[0], n[1]);
  const Eigen::VectorXd row_max = x.rowwise().maxCoeff();
  const matrix e = (x.colwise() - row_max).array().exp().matrix();
  const Eigen::VectorXd row_sum = e.rowwise().sum();
  set_from(t[1], matrix(e.array().colwise() / row_sum.array()));
}

std::function<std::vector<long long>(const std::vector<int>&)> sizes_at(
    std::vector<int> size_indices) {
  return [size_indices = std::move(size_indices)](const std::vector<int>& n) {
    std::vector<long long> shape;
    for (int i : size_indices) shape.push_back(n.at(i));
    return shape;
  };
}

fill_fn signed_fill(double spread) {
  return [spread](std::vector<float>& values, rng& random) { fill_signed(values, random, spread); };
}

case_fill values_around(double center, double spread) {
  return [center, spread](std::vector<float>& values, const std::vector<long long>&, rng& random) {
    fill_signed(values, random, spread);
    for (float& v : values) v = static_cast<float>(center + v);
  };
}

case_fill peak_at_row_end(double peak, double spread) {
  return [peak, spread](std::vector<float>& values, const std::vector<long long>& shape,
                        rng& random) {
    fill_signed(values, random, spread);
    const long long row = shape.empty() ? 1 : shape.back();
    for (long long i = row - 1; i < static_cast<long long>(values.size()); i += row)
      values[i] = static_cast<float>(peak);
  };
}

case_fill magnitudes_with_row_sign(double low, double high) {
  return [low, high](std::vector<float>& values, const std::vector<long long>& shape,
                     rng& random) {
    const long long row = shape.empty() ? 1 : shape.back();
    int sign = 1;
    for (long long i = 0; i < static_cast<long long>(values.size()); ++i) {
      if (i % row == 0) sign = random.next() & 1 ? 1 : -1;
      values[i] = static_cast<float>(sign * (low + (high - low) * random.uniform()));
    }
  };
}

case_fill integers_with_row_sign(int low, int high) {
  return [low, high](std::vector<float>& values, const std::vector<long long>& shape, rng& random) {
    const long long cols = shape.empty() ? 1 : shape.back();
    float sign = 1.0f;
    for (long long i = 0; i < static_cast<long long>(values.size()); ++i) {
      if (i % cols == 0) sign = random.below(2) ? 1.0f : -1.0f;
      values[i] = sign * static_cast<float>(low + static_cast<int>(random.below(high - low + 1)));
    }
  };
}

case_fill peak_in_last_row(double peak, double spread) {
  return [peak, spread](std::vector<float>& values, const std::vector<long long>& shape,
                        rng& random) {
    fill_signed(values, random, spread);
    const long long cols = shape.empty() ? 1 : shape.back();
    const long long rows = shape.size() < 2 ? 1 : shape[shape.size() - 2];
    for (long long first = (rows - 1) * cols; first < static_cast<long long>(values.size());
         first += rows * cols)
      for (long long c = 0; c < cols; ++c) values[first + c] = static_cast<float>(peak);
  };
}

case_fill magnitudes_between(double low, double high, int sign) {
  return [low, high, sign](std::vector<float>& values, const std::vector<long long>&,
                           rng& random) {
    for (float& v : values) {
      const double magnitude = low + (high - low) * random.uniform();
      const int s = sign != 0 ? sign : (random.next() & 1 ? 1 : -1);
      v = static_cast<float>(s * magnitude);
    }
  };
}

case_fill integers_between(int low, int high, int sign, double unit) {
  return [low, high, sign, unit](std::vector<float>& values, const std::vector<long long>&,
                                 rng& random) {
    for (float& v : values) {
      const int magnitude = low + static_cast<int>(random.below(high - low + 1));
      const int s = sign != 0 ? sign : (random.next() & 1 ? 1 : -1);
      v = static_cast<float>(s * magnitude * unit);
    }
  };
}

case_fill rows_equal_but_last(double value, double last) {
  return [value, last](std::vector<float>& values, const std::vector<long long>& shape, rng&) {
    const long long cols = shape.empty() ? 1 : shape.back();
    const long long rows = shape.size() < 2 ? 1 : shape[shape.size() - 2];
    for (long long i = 0; i < static_cast<long long>(values.size()); ++i)
      values[i] = static_cast<float>((i / cols) % rows == rows - 1 ? last : value);
  };
}

test_case large_case(std::vector<int> sizes, std::string about,
                     std::vector<std::pair<std::string, case_fill>> fills) {
  test_case c(std::move(sizes), std::move(about), std::move(fills));
  c.large = true;
  return c;
}

std::vector<test_case> outer_block_cases() {
  // With (B0, B1) = (32, 32) and (64, 16).
  return {
      // Catches a mask missing on either axis.
      {{1, 1}, "A single element: one program, every lane but one masked off on both axes."},
      // Catches a mask on one axis only.
      {{3, 2}, "One partial tile, 3 x 2."},
      // Catches offsets that ignore program_id on either axis.
      {{100, 90}, "The classic puzzle set's 100 x 90: grids of 4 x 3 and 2 x 6 programs."},
      // Catches masks off by one.
      {{33, 34}, "Tails of 1 along N0 and of 2 along N1 past a multiple of 32."},
      // Catches the program_id axes swapped.
      {{66, 17}, "Tails of 2 and 1 on a grid that is not square."},
      // Catches a mask that compares an axis with the other axis's size.
      {{131, 35}, "Tails of 3 and 3 (131 = 2^7 + 3, a prime), N0 far from N1."},
      // Catches the grid axes swapped and sizes hard-coded to 64 or 256.
      {{67, 259},
       "67 = 2^6 + 3 by 259 = 2^8 + 3: a ragged last tile on both axes with every block size, and "
       "grids of 3 x 9 and 2 x 17 programs."},
  };
}

std::vector<test_case> outer_block_large_cases() {
  // Each catches an axis bound or a grid hard-coded up to 2^16 elements, on its axis.
  return {large_case({65539, 3},
                     "The large tier: N0 = 65539 = 2^16 + 3, 2049 or 1025 programs along axis 0 "
                     "with a ragged last one."),
          large_case({5, 65539},
                     "The large tier: N1 = 65539 = 2^16 + 3, 2049 or 4097 programs along axis 1 "
                     "with a ragged last one.")};
}

std::vector<test_case> row_block_cases(std::string long_rows_about) {
  return {
      // Catch a ragged last block taken as full: a mean or sum over B1 columns, or over the
      // columns the loop walked, cdiv(D, B1) * B1, instead of D.
      {{3, 65}, "A tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{5, 34}, "A tail of 2 past a multiple of 32."},
      {{6, 131}, "A tail of 3 past a multiple of 32 and of 64."},
      // Catches a row mask left out (of a load, a per-row store, a gather), or a per-column
      // tensor indexed by the row.
      {{13, 200}, "13 rows: the last program of B0 = 4 has one real row."},
      // Catch a loop that stops after one block, and state reset inside the loop.
      {{2, 1000}, "Long rows of 1000, 16 to 32 blocks each."},
      {{3, 4099},
       "Rows of 4099 = 2^12 + 3: past loop bounds a kernel might hard-code (1024, 4096), with a "
       "ragged last block for every B1."},
      // Catches a loop bound or an array hard-coded up to 65536.
      large_case({2, 131075}, std::move(long_rows_about)),
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 5},
                 "The large tier: 4099 = 2^12 + 3 rows, a ragged last block of rows for B0 = 4."),
  };
}

std::array<int, 3> outer_block_grid(const std::vector<int>& n, const std::vector<int>& b) {
  return {cdiv(n[0], b[0]), cdiv(n[1], b[1]), 1};
}

std::vector<test_case> outer_block_cases_with_negative_inputs(std::string about) {
  std::vector<test_case> cases = outer_block_cases();
  cases.insert(cases.begin() + 2,
               test_case({35, 66}, std::move(about),
                         {{"x", magnitudes_between(0.25, 3.0, -1)},
                          {"y", magnitudes_between(0.25, 3.0, -1)}}));
  return cases;
}

std::vector<tensor_spec> outer_tensors(double y_spread) {
  return {{"x", false, sizes_at({0}), signed_fill()},
          {"y", false, sizes_at({1}), signed_fill(y_spread)},
          {"z", true, sizes_at({1, 0}), nullptr}};
}

void outer_add_reference(const std::vector<int>&, std::vector<tensor>& t) {
  const Eigen::ArrayXd x = as_array(t[0]), y = as_array(t[1]);
  set_from(t[2], matrix(y.matrix().replicate(1, x.size()).rowwise() + x.matrix().transpose()));
}

namespace {

std::string plural(long long n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The kernel lines that load (or store) a buffer, the most first: "line 27 loads x 8 times in all;
// line 21 loads x 4 times in all (puzzles/long_sum.hpp)". Per program: the most lanes the line
// loaded in one program ("line 23 loads k up to 64 times per program").
std::string lines_that_access(const tl::sim::buffer& buf, bool stores, bool per_program) {
  std::vector<const tl::sim::line_accesses*> lines;
  for (const auto& l : buf.by_line)
    if (l.stores == stores && (per_program ? l.max_program_lanes : l.lanes) > 0)
      lines.push_back(&l);
  if (lines.empty()) return "";
  std::stable_sort(lines.begin(), lines.end(), [&](const auto* a, const auto* b) {
    return per_program ? a->max_program_lanes > b->max_program_lanes : a->lanes > b->lanes;
  });
  constexpr std::size_t shown = 4;
  const auto file_of = [](const tl::sim::line_accesses& l) {
    const std::string at = tl::sim::source_string(l.where);
    return at.substr(0, at.rfind(':'));
  };
  bool one_file = true;
  for (const auto* l : lines) one_file = one_file && file_of(*l) == file_of(*lines[0]);
  std::ostringstream s;
  for (std::size_t i = 0; i < lines.size() && i < shown; ++i) {
    const auto& l = *lines[i];
    s << (i ? "; " : "") << "line " << l.where.line();
    if (!one_file) s << " of " << file_of(l);
    s << (stores ? " stores " : " loads ") << buf.name() << " ";
    if (per_program)
      s << "up to " << plural(l.max_program_lanes, "time", "times") << " per program";
    else
      s << plural(l.lanes, "time", "times") << " in all";
  }
  if (lines.size() > shown) s << "; and " << lines.size() - shown << " more lines";
  if (one_file) s << " (" << file_of(*lines[0]) << ")";
  return s.str();
}

// At most `times(sizes)` accesses of each element. `bound_name` says what the bound is ("KH * KW")
// and `why` why; both are empty for a constant bound.
budget element_access_budget(std::vector<std::string> names, std::string bound_name,
                             std::function<int(const std::vector<int>&)> times, bool reads,
                             std::string why) {
  const char* verb = reads ? "read" : "written";
  budget b;
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? " and " : "") + names[i];
  const std::string bound = bound_name.empty()
                                ? plural(times({}), "time", "times")  // a constant: any sizes
                                : bound_name + " times";
  b.description = "each element of " + list + " is " + verb + " at most " + bound +
                  " over the whole launch" + (why.empty() ? "" : " (" + why + ")");
  b.check = [names, bound_name, times, reads, verb](const run_facts& f)
      -> std::optional<std::string> {
    const int allowed = times(f.sizes);
    for (const auto& name : names) {
      const auto& buf = f.buffer(name);
      for (long long i = 0; i < buf.count(); ++i) {
        const int count = reads ? buf.shadow[i].reads : buf.shadow[i].writes;
        if (count <= allowed) continue;
        std::ostringstream s;
        s << name << buf.coords_of(i) << " was " << verb << " " << count << " times (at most "
          << (bound_name.empty() ? "" : bound_name + " = ") << allowed << " allowed)";
        if (reads)
          s << "; " << name << " was loaded " << buf.counters.loads << " times in all for its "
            << plural(buf.count(), "element", "elements");
        s << ".";
        const std::string lines = lines_that_access(buf, !reads, false);
        if (!lines.empty()) s << " By line: " << lines << ".";
        return s.str();
      }
    }
    return std::nullopt;
  };
  return b;
}

budget element_access_budget(std::vector<std::string> names, int times, bool reads) {
  return element_access_budget(
      std::move(names), "", [times](const std::vector<int>&) { return times; }, reads, "");
}

}  // namespace

budget each_element_read_at_most(std::vector<std::string> names, int times) {
  return element_access_budget(std::move(names), times, true);
}

budget each_element_written_at_most(std::vector<std::string> names, int times) {
  return element_access_budget(std::move(names), times, false);
}

budget each_element_read_at_most(std::vector<std::string> names, std::string times_name,
                                 std::function<int(const std::vector<int>& sizes)> times,
                                 std::string why) {
  return element_access_budget(std::move(names), std::move(times_name), std::move(times), true,
                               std::move(why));
}

budget each_program_reads_each_element_at_most(std::vector<std::string> names, int times) {
  budget b;
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? " and " : "") + names[i];
  b.description = "each program loads each element of " + list + " at most " +
                  plural(times, "time", "times");
  b.check = [names, times](const run_facts& f) -> std::optional<std::string> {
    for (const auto& name : names) {
      const auto& buf = f.buffer(name);
      if (buf.counters.max_program_element_reads <= times) continue;
      const std::string lines = lines_that_access(buf, false, true);
      return "a program loaded an element of " + name + " " +
             std::to_string(buf.counters.max_program_element_reads) + " times (at most " +
             std::to_string(times) + " allowed); the busiest program loaded " +
             std::to_string(buf.counters.max_program_loads) + " lanes of " + name + "." +
             (lines.empty() ? "" : " By line: " + lines + ".");
    }
    return std::nullopt;
  };
  return b;
}

budget loads_in_all_at_most(std::string name, std::string bound_name,
                            std::function<long long(const std::vector<int>& sizes)> bound,
                            std::string why) {
  budget b;
  b.description = "all of " + name + " is loaded at most " + bound_name +
                  " times over the whole launch (" + why + ")";
  b.check = [name, bound_name, bound](const run_facts& f) -> std::optional<std::string> {
    const auto& buf = f.buffer(name);
    const long long allowed = bound(f.sizes);
    if (buf.counters.loads <= allowed) return std::nullopt;
    const std::string lines = lines_that_access(buf, false, false);
    return name + " was loaded " + std::to_string(buf.counters.loads) + " times in all (at most " +
           bound_name + " = " + std::to_string(allowed) + " allowed) for its " +
           plural(buf.count(), "element", "elements") + "." +
           (lines.empty() ? "" : " By line: " + lines + ".");
  };
  return b;
}

budget atomics_per_program_at_most(
    std::string name, std::string bound_name,
    std::function<long long(const std::vector<int>& sizes, const std::vector<int>& blocks)>
        per_program,
    std::string why) {
  budget b;
  b.description = "at most " + bound_name + " atomics on " + name + " per program (" + why + ")";
  b.check = [name, bound_name, per_program](const run_facts& f) -> std::optional<std::string> {
    const auto& buf = f.buffer(name);
    const long long programs = 1LL * f.grid[0] * f.grid[1] * f.grid[2];
    const long long allowed = programs * per_program(f.sizes, f.blocks);
    if (buf.counters.atomics <= allowed) return std::nullopt;
    const std::string lines = lines_that_access(buf, true, false);
    return "the atomics on " + name + " had " + std::to_string(buf.counters.atomics) +
           " active lanes in all, at most " + bound_name + " per program = " +
           std::to_string(allowed) + " for " + plural(programs, "program", "programs") +
           " allowed." + (lines.empty() ? "" : " By line: " + lines + ".");
  };
  return b;
}

void describe_long_softmax(puzzle_spec& s, int passes) {
  s.summary = "z = softmax(x) along each row of x[N0, T]; B0 rows per program, B1 columns per step";
  s.size_names = {"N0", "T"};
  s.block_names = {"B0", "B1"};
  s.cases = {
      // Catches masked lanes let into the maximum or the sum (loaded as 0, or as poison with no
      // `other`).
      {{1, 1}, "A single element: one column of a block of 32 or 64 is real."},
      // Catches a running sum that is not rescaled when the maximum grows (the earlier elements
      // keep their full weight) and blocks normalized on their own (0 / 0 where every exp of a
      // block underflows).
      {{5, 131},
       "Every row is small noise (about -1 to 1) but for its last element, 200: the row's maximum "
       "arrives in its last block, far above the rest.",
       {{"x", peak_at_row_end(200.0, 1.0)}}},
      // Catches a running maximum that starts at 0, masked lanes loaded as 0 into the maximum, and
      // no maximum at all.
      {{5, 67},
       "Every row of x lies far below zero (about -1000), so exp(x) underflows to 0 for every "
       "element unless the row's maximum is subtracted first; T = 67 = 2^6 + 3 leaves a ragged "
       "block for every B1.",
       {{"x", values_around(-1000.0, 30.0)}}},
      {{7, 131},
       "Every row of x lies far above zero (about +1000), so exp(x) overflows to infinity for "
       "every element unless the row's maximum is subtracted first.",
       {{"x", values_around(1000.0, 30.0)}}},
      // Catches a running maximum that starts at -1e4 and masked lanes loaded as -1e4 into the
      // maximum (it then exceeds every real element, whose exp underflows to 0: 0 / 0, or a row
      // of zeros). The padding and the initial maximum must be the identity of max, -inf.
      {{5, 67},
       "Every row of x lies far below every padding a kernel might pick instead of -inf (about "
       "-3e4, below -1e4).",
       {{"x", values_around(-3e4, 30.0)}}},
      {{7, 131},
       "Every row of x lies far above zero (about +3e4): exp(x) overflows unless the row's "
       "maximum is subtracted first, at any magnitude.",
       {{"x", values_around(3e4, 30.0)}}},
      {{3, 65}, "A tail of 1 past a multiple of 32 and of 64; N0 = 3 for B0 = 4."},
      {{5, 34}, "A tail of 2 past a multiple of 32."},
      {{6, 131}, "A tail of 3 past a multiple of 32 and of 64."},
      // Catches a row mask left out.
      {{13, 200}, "13 rows: the last program of B0 = 4 has one real row."},
      {{4, 200}, "The classic puzzle set's 4 x 200."},
      // Catches a loop that stops after one block and a running sum reset inside the loop.
      {{2, 1000}, "Long rows of 1000, 16 to 32 blocks each."},
      {{3, 4099},
       "Rows of 4099 = 2^12 + 3, a prime: past loop bounds a kernel might hard-code (1024, "
       "4096), with a ragged last block for every B1."},
      // Catches a loop bound or an array hard-coded up to 65536.
      large_case({2, 131075},
                 "The large tier: rows of 131075 = 2^17 + 3, past the longest rows the "
                 "benchmarks run (131072) and every loop bound or array a kernel might "
                 "hard-code below them (8192, 16384, 65536)."),
      // Catches a grid or a row bound hard-coded up to 4096.
      large_case({4099, 5},
                 "The large tier: 4099 = 2^12 + 3 rows, past the benchmarks' 4096, a ragged last "
                 "block of rows for B0 = 4."),
  };
  s.blocked_sizes = {{0, 0}, {1, 1}};
  auto shape = sizes_at({0, 1});
  // Large magnitudes: a softmax that does not subtract the row maximum overflows exp.
  s.tensors = {{"x", false, shape, signed_fill(30.0)},
               {"z", true, shape, nullptr}};
  s.size_bounds = {{2147483647, 1}, {2047, 1048576}, {46340, 46340}};
  s.size_bounds_rule = "N0 * T < 2^31, T <= 2^20";
  s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
    return std::array<int, 3>{cdiv(n[0], b[0]), 1, 1};
  };
  s.reference = softmax_reference;
  s.rtol = 1e-4;
  s.atol = 1e-7;
  s.budgets = {each_element_read_at_most({"x"}, passes), each_element_written_at_most({"z"}, 1)};
}

}  // namespace tp::specs
