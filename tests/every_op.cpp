// The kernel that uses every operation of docs/tl.md (tests/kernels/every_op.hpp) runs clean in
// the simulator, and a few of its slices hold the values worked out by hand. nvcc builds the same
// kernel for the GPU (tests/CMakeLists.txt), and the GPU parity test compares the two.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "simulator/launch.hpp"
#include "tests/kernels/every_op.hpp"

namespace {

constexpr int B0 = 4, B1 = 8, N = B0 * B1;
using kernel = test_kernels::EveryOp<B0, B1>;

std::vector<float> every_op_input() {
  std::vector<float> x(N);
  for (int i = 0; i < N; ++i) x[i] = -2.0f + 4.0f * static_cast<float>((i * 13) % N) / N;
  return x;
}

}  // namespace

TEST_CASE("a kernel that uses every tl operation runs clean in the simulator", "[tl][api]") {
  auto x = every_op_input();
  std::vector<float> z(kernel::outputs, NAN);
  tl::sim::buffer bx("x", {N}, "float32", sizeof(float), x.data(), true);
  tl::sim::buffer bz("z", {kernel::outputs}, "float32", sizeof(float), z.data(), false);
  const auto r = tl::sim::run_grid({1, 1, 1}, {}, {&bx, &bz}, [&] {
    kernel{}(tl::ptr<const float>{&bx}, tl::ptr<float>{&bz}, N);
  });
  INFO((r.error ? r.error->message : std::string("no diagnostic")));
  REQUIRE_FALSE(r.error.has_value());

  auto slice = [&](int s, int i) { return z[s * N + i]; };
  for (int i = 0; i < N; ++i) {
    INFO("element " << i);
    CHECK(slice(1, i) == -x[i] * 2 / 3.0f);
    CHECK(slice(4, i) == static_cast<float>((i - 9) / 4 * 10 + (i - 9) % 4));
    CHECK(slice(13, i) == 3.0f);
    CHECK(slice(14, i) == x[i]);  // masked-off lanes take `other`, the same values
    CHECK(slice(15, i) == 1.0f);
    CHECK(slice(12, i) == (x[i % B1] > 0.0f ? 4.0f : 1.0f));  // counted 3 times, plus 1
    // floor, ceil, fma, sqrt and rsqrt are exact (docs/tl.md): the same bits as the C library's.
    const float c = static_cast<float>(i % B1);
    CHECK(slice(16, i) == std::fma(std::floor(x[i]), 4.0f, std::ceil(x[i] * 0.5f)) +
                              std::fma(c, 0.25f, 1.0f / std::sqrt(std::fabs(x[i]) + 1.0f)) -
                              std::sqrt(std::fabs(x[i])));
    // The others within 1 ulp each: their sum within a few ulp of the double-precision one.
    const double v = x[i], a = std::fabs(v);
    const double others = 1 / (1 + std::exp(-v)) + std::tanh(v) + std::erf(v) + std::log1p(a) +
                          std::pow(a, 1.5) + std::exp2(v) + 1 / (1 + std::exp(-i * 0.125));
    CHECK(slice(17, i) == Approx(others).epsilon(1e-6));
    CHECK(slice(21, i) == std::max(2 * x[i], 3 * x[i]));  // the atomics' chain
    // Random numbers are functions of the seed and the offset alone (tile/lanes.hpp's).
    const int blocks = (N + B1 - 1) / B1;
    CHECK(slice(22, i) == tl::lanes::random_uniform(blocks, i) +
                              tl::lanes::random_normal(7, static_cast<int>(x[i] * 4.0f)) +
                              static_cast<float>(tl::lanes::random_int(-3, i) & 255));
  }
  CHECK(z[kernel::slices * N] == 5.0f);

  // Scans, sorts and index reductions against the sequential definitions. Sums may differ from
  // the sequential order in the last bits (the scan adds in a tree); maxima, sorts and indices
  // are exact.
  std::vector<int> order(B1);
  for (int r = 0; r < B0; ++r) {
    double row_sum = 0, row_prod = 1;
    float row_max = -INFINITY;
    for (int c = 0; c < B1; ++c) {
      const int i = r * B1 + c;
      row_sum += x[i];
      row_prod *= x[i] * 0.5;
      row_max = std::max(row_max, x[i]);
      double col_rest = 0;  // x[r..B0-1, c], the reverse scan down the column
      long long offs_sum = 0;
      for (int k = r; k < B0; ++k) col_rest += x[k * B1 + c];
      for (int k = 0; k <= r; ++k) offs_sum += k * B1 + c;
      INFO("row " << r << ", column " << c);
      CHECK(slice(18, i) == Approx(row_sum + col_rest + row_prod + row_max - offs_sum).margin(1e-5));
    }
    std::vector<float> row(x.begin() + r * B1, x.begin() + (r + 1) * B1);
    std::sort(row.begin(), row.end());
    for (int c = 0; c < B1; ++c) {
      std::vector<float> col;
      for (int k = 0; k < B0; ++k) col.push_back(x[k * B1 + c]);
      std::sort(col.begin(), col.end(), std::greater<float>());
      CHECK(slice(19, r * B1 + c) == row[c] + col[r]);
    }
  }
  const auto first_extreme = [](auto begin, auto end, auto better) {
    auto best = begin;
    for (auto it = begin; it != end; it += 1)
      if (better(*it, *best)) best = it;
    return best;
  };
  const int flat_max = static_cast<int>(first_extreme(x.begin(), x.end(), std::greater<float>()) - x.begin());
  const int row0_min = static_cast<int>(first_extreme(x.begin(), x.begin() + B1, std::less<float>()) - x.begin());
  for (int r = 0; r < B0; ++r)
    for (int c = 0; c < B1; ++c) {
      const int row_argmax = static_cast<int>(
          first_extreme(x.begin() + r * B1, x.begin() + (r + 1) * B1, std::greater<float>()) -
          (x.begin() + r * B1));
      int col_argmin = 0;
      for (int k = 1; k < B0; ++k)
        if (x[k * B1 + c] < x[col_argmin * B1 + c]) col_argmin = k;
      CHECK(slice(20, r * B1 + c) == row_argmax * 100 + col_argmin * 10 + flat_max - row0_min);
    }
}
