// The corpus (tests/corpus.hpp) for puzzle 34, sliding-window-attention. Each wrong kernel below
// is a mistake that reads as right (the loop over keys from block 0 as in causal attention, or on
// to N; the window one key too wide; its lower bound left to the loop's start; a finite padding;
// no care for a query whose window misses a block; the loop started at the first query's own
// block), and each fails on every seed with the kind beside its line at the bottom.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "check_as_puzzle.hpp"
#include "checker/specs/sliding_window_attention.hpp"
#include "corpus.hpp"

namespace {

// What varies among the wrong kernels below.
enum class mistake {
  none,
  from_block_zero,     // the loop over keys from block 0, as causal attention's: right values
  to_the_end,          // the loop over keys on to N: right values, the future blocks all masked
  window_too_wide,     // i - W <= j: a query sees W + 1 keys
  lower_bound_unmasked,  // only j <= i masked: the loop's start taken for every query's window
  finite_padding,      // masked scores -1e4 instead of -inf
  no_empty_row_care,   // exp(s - m) with m still -inf for a query that has seen no key: NaN
  from_first_query     // the loop from the block of the program's first query, not its oldest key
};

// Which (query, key) pairs of a block count, [B0, B1]: key j below N and i - W < j <= i.
template <mistake M, class Rows, class Cols>
TL_FN auto seen_by(const Rows& rows, const Cols& cols, int N, int W) {
  auto causal = (cols.row() <= rows.col()) & (cols < N).row();
  if constexpr (M == mistake::lower_bound_unmasked) return causal;
  else if constexpr (M == mistake::window_too_wide) return causal & (cols.row() >= rows.col() - W);
  else return causal & (cols.row() > rows.col() - W);
}

template <int B0, int B1, int D, mistake M>
struct sliding_window_with {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int N, int HEAD_DIM,
                            int W) const {
    const int start_m = tl::program_id(0) * B0;
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    const float scale = 1.0f / std::sqrt(static_cast<float>(D));
    auto queries = tl::load(q + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;
    int first = std::max(0, start_m - W + 1) / B1 * B1;
    if constexpr (M == mistake::from_block_zero) first = 0;
    if constexpr (M == mistake::from_first_query) first = start_m / B1 * B1;
    const int end = M == mistake::to_the_end ? N : std::min(N, start_m + B0);
    const float padding = M == mistake::finite_padding ? -1e4f : -INFINITY;
    for (int start_n = first; start_n < end; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto col_mask = cols < N;
      auto keys_t = tl::load(k + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
      auto values = tl::load(v + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
      auto in_window = seen_by<M>(rows, cols, N, W);
      auto scores = tl::where(in_window, tl::dot(queries, keys_t) * scale, padding);
      auto m_new = tl::maximum(m_i, tl::max<1>(scores));
      tl::tile<float, B0> m_safe = m_new;
      if constexpr (M != mistake::no_empty_row_care)
        m_safe = tl::where(m_new == -INFINITY, 0.0f, m_new);
      auto p = tl::exp(scores - m_safe.col());
      auto alpha = tl::exp(m_i - m_safe);
      l_i = l_i * alpha + tl::sum<1>(p);
      acc = tl::dot(p, values, acc * alpha.col());
      m_i = m_new;
    }
    tl::store(o + rows.col() * D + dims.row(), acc / l_i.col(), row_mask.col());
  }
};

}  // namespace

namespace wrong {

// Causal flash attention's loop, from key block 0: right values (the old keys are masked), but
// every program reads the whole past; on a sequence ten windows long (N = 200, W = 20) the first
// keys are loaded by every program, past the budget.
template <int B0, int B1, int D>
using SlidingWindowFromBlockZero = sliding_window_with<B0, B1, D, mistake::from_block_zero>;
// The loop on to N: right values (the future is masked), but the last keys are loaded by every
// program.
template <int B0, int B1, int D>
using SlidingWindowToTheEnd = sliding_window_with<B0, B1, D, mistake::to_the_end>;
// The window one key too wide, i - W <= j <= i: W + 1 keys (with W = 1, two).
template <int B0, int B1, int D>
using SlidingWindowTooWide = sliding_window_with<B0, B1, D, mistake::window_too_wide>;
// Only the causal mask: the loop's start is taken for the window's lower bound, but the first
// block visited starts at the first query's oldest key, and holds older keys for the others.
template <int B0, int B1, int D>
using SlidingWindowLowerBoundUnmasked =
    sliding_window_with<B0, B1, D, mistake::lower_bound_unmasked>;
// Masked scores -1e4: where every real score lies below -1e4 (case 12), the masked keys, older
// than the window, past N or in the future, take all the weight.
template <int B0, int B1, int D>
using SlidingWindowFinitePadding = sliding_window_with<B0, B1, D, mistake::finite_padding>;
// Puzzle 16's update as it is: a query whose window misses the first block of keys visited still
// has a running maximum of -inf after it, and exp(-inf - (-inf)) is NaN.
template <int B0, int B1, int D>
using SlidingWindowNaNOnEmptyRows = sliding_window_with<B0, B1, D, mistake::no_empty_row_care>;
// The loop from the block that holds the program's first query: the older keys of its windows
// (W - 1 of them for the first query) are never visited.
template <int B0, int B1, int D>
using SlidingWindowFromFirstQuery = sliding_window_with<B0, B1, D, mistake::from_first_query>;

}  // namespace wrong

namespace twin {

// The blocks of keys visited backwards, from the one holding the program's last query down to the
// one holding its first query's oldest key, counted as a number of blocks; scores in base 2; a
// query with no key seen yet kept at 0 by tl::where on p and alpha rather than by a safe maximum.
template <int B0, int B1, int D>
struct SlidingWindowBackwards {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> q, tl::ptr<const float> k,
                            tl::ptr<const float> v, tl::ptr<float> o, int N, int HEAD_DIM,
                            int W) const {
    auto rows = tl::program_id(0) * B0 + tl::arange<B0>();
    auto dims = tl::arange<D>();
    const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(HEAD_DIM));
    auto qs = tl::load(q + rows.col() * HEAD_DIM + dims.row(), (rows < N).col(), 0.0f);
    const int last_row = std::min(N, tl::program_id(0) * B0 + B0) - 1;
    const int oldest = tl::program_id(0) * B0 - W + 1;
    const int last_block = last_row / B1;
    const int first_block = oldest > 0 ? oldest / B1 : 0;
    tl::tile<float, B0> m = tl::full<B0>(-INFINITY);
    tl::tile<float, B0> l = 0.0f;
    tl::tile<float, B0, D> out = 0.0f;
    for (int blk = last_block; blk >= first_block; --blk) {
      auto cols = blk * B1 + tl::arange<B1>();
      auto kt = tl::load(k + cols.row() * HEAD_DIM + dims.col(), (cols < N).row(), 0.0f);
      auto vs = tl::load(v + cols.col() * HEAD_DIM + dims.row(), (cols < N).col(), 0.0f);
      auto seen = (cols < N).row() & (rows.col() - cols.row() >= 0) &
                  (rows.col() - cols.row() < W);
      auto s = tl::where(seen, tl::dot(qs, kt) * qk_scale, -INFINITY);
      auto m_next = tl::maximum(m, tl::max<1>(s));
      auto p = tl::where(seen, tl::exp2(s - m_next.col()), 0.0f);
      auto alpha = tl::where(m == m_next, 1.0f, tl::exp2(m - m_next));
      l = l * alpha + tl::sum<1>(p);
      out = tl::dot(p, vs, out * alpha.col());
      m = m_next;
    }
    tl::store(o + rows.col() * HEAD_DIM + dims.row(), out / l.col(), (rows < N).col());
  }
};

}  // namespace twin

TP_CORPUS_GROUP("sliding-window attention");
TP_WRONG(SlidingWindowFromBlockZero, sliding_window_attention, "efficiency-budget",
         "times (at most cdiv(W + B0 + B1 - 2, B0)");
TP_WRONG(SlidingWindowToTheEnd, sliding_window_attention, "efficiency-budget",
         "times (at most cdiv(W + B0 + B1 - 2, B0)");
TP_WRONG(SlidingWindowTooWide, sliding_window_attention, "wrong-result", "");
TP_WRONG(SlidingWindowLowerBoundUnmasked, sliding_window_attention, "wrong-result", "");
TP_WRONG(SlidingWindowFinitePadding, sliding_window_attention, "wrong-result", "");
TP_WRONG(SlidingWindowNaNOnEmptyRows, sliding_window_attention, "nan-inf", "");
TP_WRONG(SlidingWindowFromFirstQuery, sliding_window_attention, "wrong-result", "");
TP_TWIN(SlidingWindowBackwards, sliding_window_attention);
TP_CORPUS_TESTS("sliding-window attention")
