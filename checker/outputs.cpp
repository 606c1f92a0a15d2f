// A case's tensors (seeded inputs, rounded to their dtype) and the reference's outputs, and a
// run's outputs compared with them: the first NaN or infinity, the worst wrong elements, a map.
#include "checker/check.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

#include <Eigen/Core>

#include "checker/check_passes.hpp"

namespace tp {

using tl::sim::diagnostic;
namespace kind = tl::sim::kind;

namespace {
// A float tensor's values rounded to its dtype, so that the reference sees what the kernel sees.
void round_to_dtype(tensor& x) {
  for (float& v : x.values) {
    if (x.dtype == dtype::float16) v = static_cast<float>(Eigen::half(v));
    else if (x.dtype == dtype::bfloat16) v = static_cast<float>(Eigen::bfloat16(v));
  }
}
}  // namespace

case_data make_case(const puzzle_spec& spec, const test_case& the_case, std::uint64_t seed,
                    std::size_t case_index, dtype kernel_dtype, bool with_reference) {
  case_data data;
  for (std::size_t t = 0; t < spec.tensors.size(); ++t) {
    const auto& ts = spec.tensors[t];
    tensor x;
    x.name = ts.name;
    x.output = ts.output;
    x.zeroed = ts.zeroed;
    x.shape = ts.shape(the_case.sizes);
    x.dtype = ts.dtype.value_or(kernel_dtype);
    const auto count = static_cast<std::size_t>(x.count());
    rng random(mix_seed(seed, case_index, t));
    if (holds_ints(x.dtype)) {
      x.ints.assign(count, 0);
      if (ts.output) {
      } else if (const case_fill* fill = the_case.fill_for(ts.name)) {
        // A case's own fill of an integer tensor makes whole numbers (integers_between, say).
        std::vector<float> whole(count, 0.0f);
        (*fill)(whole, x.shape, random);
        for (std::size_t i = 0; i < count; ++i) x.ints[i] = static_cast<std::int32_t>(whole[i]);
      } else if (ts.fill_ints_for_sizes) {
        ts.fill_ints_for_sizes(x.ints, the_case.sizes, random);
      } else if (ts.fill_ints) {
        ts.fill_ints(x.ints, random);
      }
    } else {
      x.values.assign(count, 0.0f);
      if (ts.output) {
      } else if (const case_fill* fill = the_case.fill_for(ts.name)) {
        (*fill)(x.values, x.shape, random);
      } else if (ts.fill) {
        ts.fill(x.values, random);
      }
      round_to_dtype(x);
    }
    data.tensors.push_back(std::move(x));
  }
  if (spec.derive_inputs) spec.derive_inputs(the_case.sizes, data.tensors);
  if (!with_reference) return data;
  data.expected = data.tensors;
  spec.reference(the_case.sizes, data.expected);
  return data;
}

namespace {

std::string coords_of(const tensor& t, long long offset) {
  std::vector<long long> c(t.shape.size());
  for (std::size_t a = t.shape.size(); a-- > 0;) {
    c[a] = offset % t.shape[a];
    offset /= t.shape[a];
  }
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < c.size(); ++i) s << (i ? ", " : "") << c[i];
  s << "]";
  return s.str();
}

}  // namespace

// A small picture of where the wrong elements are: '#' wrong, '.' right.
std::string wrong_map(const tensor& t, const std::vector<bool>& wrong) {
  const long long cols_total = t.shape.empty() ? 1 : t.shape.back();
  const long long rows_total = t.count() / std::max(1LL, cols_total);
  const long long rows = std::min(rows_total, 16LL), cols = std::min(cols_total, 64LL);
  std::ostringstream s;
  s << "    map of " << t.name << " (" << rows_total << " x " << cols_total << " elements as "
    << rows << " x " << cols << " cells, # = wrong):\n";
  for (long long r = 0; r < rows; ++r) {
    s << "      ";
    const long long r0 = r * rows_total / rows, r1 = (r + 1) * rows_total / rows;
    for (long long c = 0; c < cols; ++c) {
      const long long c0 = c * cols_total / cols, c1 = (c + 1) * cols_total / cols;
      bool any = false;
      for (long long i = r0; i < r1 && !any; ++i)
        for (long long j = c0; j < c1 && !any; ++j) any = wrong[i * cols_total + j];
      s << (any ? '#' : '.');
    }
    s << "\n";
  }
  return s.str();
}


std::pair<int, long long> first_nonfinite(const std::vector<tensor>& got,
                                          const std::vector<tensor>& expected) {
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (!got[t].output || holds_ints(got[t].dtype)) continue;
    for (long long i = 0; i < got[t].count(); ++i)
      if (!std::isfinite(got[t].values[i]) && std::isfinite(expected[t].values[i]))
        return {static_cast<int>(t), i};
  }
  return {-1, -1};
}

std::optional<diagnostic> compare_outputs(const puzzle_spec& spec, const std::vector<tensor>& got,
                                          const std::vector<tensor>& expected,
                                          const std::string& where,
                                          const std::string& nonfinite_cause) {
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (!got[t].output) continue;
    const tensor& y = got[t];
    const tensor& r = expected[t];
    const long long n = y.count();
    double rtol = spec.rtol, atol = spec.atol;
    for (const auto& tol : spec.tolerances)
      if (tol.dtype == y.dtype) rtol = tol.rtol, atol = tol.atol;
    const bool ints = holds_ints(y.dtype);
    auto got_at = [&](long long i) -> double { return ints ? y.ints[i] : y.values[i]; };
    auto expected_at = [&](long long i) -> double { return ints ? r.ints[i] : r.values[i]; };
    std::vector<bool> wrong(n, false);
    long long wrong_count = 0, nonfinite = 0, first_nonfinite = -1;
    std::vector<std::pair<double, long long>> worst;
    for (long long i = 0; i < n; ++i) {
      const double yi = got_at(i), ri = expected_at(i);
      if (std::isnan(yi) && std::isnan(ri)) continue;  // a NaN the reference makes too (amax's)
      if (!std::isfinite(yi) && std::isfinite(ri)) {
        if (first_nonfinite < 0) first_nonfinite = i;
        ++nonfinite;
        wrong[i] = true;
        ++wrong_count;
        continue;
      }
      const double err = std::abs(yi - ri);
      if (!(err <= atol + rtol * std::abs(ri)) && !(yi == ri)) {
        wrong[i] = true;
        ++wrong_count;
        worst.emplace_back(err, i);
      }
    }
    if (wrong_count == 0) continue;
    diagnostic d;
    d.buffer = y.name;
    std::ostringstream s;
    if (nonfinite > 0) {
      d.kind = kind::nan_inf;
      s << "nan-inf: " << where << ": " << nonfinite << " of " << n << " elements of " << y.name
        << " are NaN or infinite where the reference is finite; the first is " << y.name
        << coords_of(y, first_nonfinite) << " = " << got_at(first_nonfinite) << " (expected "
        << expected_at(first_nonfinite) << ").\n";
      if (!nonfinite_cause.empty())
        s << nonfinite_cause << "\n";
      else
        s << "  Overflow in exp? Subtract the row's maximum before exponentiating. Division by "
             "zero? Check what the denominator sums.\n";
    } else {
      d.kind = kind::wrong_result;
      std::sort(worst.begin(), worst.end(), std::greater<>());
      s << "wrong-result: " << where << ": " << wrong_count << " of " << n << " elements of "
        << y.name << " differ from the reference (" << dtype_name(y.dtype) << ", rtol " << rtol
        << ", atol " << atol << "). The worst:\n";
      for (std::size_t k = 0; k < worst.size() && k < 5; ++k) {
        const long long i = worst[k].second;
        s << "    " << y.name << coords_of(y, i) << ": yours " << got_at(i) << ", expected "
          << expected_at(i) << "\n";
      }
    }
    s << wrong_map(y, wrong);
    d.message = s.str();
    while (!d.message.empty() && d.message.back() == '\n') d.message.pop_back();
    return d;
  }
  return std::nullopt;
}

}  // namespace tp
