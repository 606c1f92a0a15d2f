// tl::dot of data tiles with fp32 accumulation: a [M, K] @ b [K, N] (+ acc [M, N]). The operands
// become float tiles and poison flows per row of a and column of b; the products themselves are
// simulator/dot.hpp's kernel, compiled once into the simulator's library, which picks the
// machine's widest vector instructions at run time. int8 and uint8 operands accumulate exactly
// in int32 instead (dot_integer below).
#pragma once

#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <source_location>
#include <type_traits>
#include <vector>

#include "simulator/batch.hpp"
#include "simulator/context.hpp"
#include "simulator/dot.hpp"
#include "simulator/evaluate.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/origin.hpp"
#include "simulator/tile_storage.hpp"
#include "simulator/diagnostic.hpp"
#include "tile/dtypes.hpp"
#include "tile/expr.hpp"
#include "tile/precision.hpp"

namespace tl {
inline namespace TL_ABI {

namespace detail {

// The step of a dot product that first made a NaN or an infinity, for the nan-inf report: a
// product (0 * inf) or the running sum (inf - inf, overflow).
inline void note_dot_nonfinite(const float* a, const float* b, int stride_b, int K, float start,
                               const std::source_location& loc) {
  // Each step is one fused multiply-add: its product, exact in double, is never rounded to
  // float, so a step turns non-finite either in the product (an infinite or NaN operand: inf * 0)
  // or in the rounding of the sum.
  float s = start;
  for (int k = 0; k < K; ++k) {
    const float x = a[k], y = b[k * stride_b];
    const double p = static_cast<double>(x) * y;
    const float next = std::fma(x, y, s);
    if (!std::isfinite(p)) sim::note_nonfinite("*", true, x, y, p, loc);
    else if (!std::isfinite(next)) sim::note_nonfinite("+", true, s, p, next, loc);
    s = next;
  }
}

}  // namespace detail

namespace backend {

namespace bulk {
template <class Flags>
bool any_of(const Flags& flags) {
  return batch::any_set(flags.data(), static_cast<long long>(flags.size()));
}

// An operand of dot as a data tile of T: itself when it is one, else converted (exactly, for
// float16 and bfloat16 operands to float, and int8 and uint8 operands to int).
template <class T, class S, class E>
class typed_operand {
 public:
  explicit typed_operand(const E& e) : tile_(detail::uninitialized_t{}) { assign(tile_, e); }
  const backend::data_tile<T, S>& get() const { return tile_; }

 private:
  backend::data_tile<T, S> tile_;
};
template <class T, class S>
class typed_operand<T, S, backend::data_tile<T, S>> {
 public:
  explicit typed_operand(const backend::data_tile<T, S>& t) : tile_(t) {}
  const backend::data_tile<T, S>& get() const { return tile_; }

 private:
  const backend::data_tile<T, S>& tile_;
};
template <class S, class E>
using float_operand = typed_operand<float, S, E>;

// Poison flows per row of a and column of b.
template <int M, int N, int K, class PA, class PB, class PO>
void dot_poison(const PA& pa, const PB& pb, PO& po) {
  if (!any_of(pa) && !any_of(pb)) return;
  std::array<bool, M> row_poison{};
  std::array<bool, N> col_poison{};
  for (int i = 0; i < M; ++i)
    for (int k = 0; k < K; ++k) row_poison[i] = row_poison[i] | pa[i * K + k];
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) col_poison[j] = col_poison[j] | pb[k * N + j];
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) po[i * N + j] = po[i * N + j] | row_poison[i] | col_poison[j];
}
}  // namespace bulk

// int8 or uint8 operands: each output lane starts from the int32 acc and adds the K exact
// products in order of k. A running sum that leaves int32 is reported (`index-overflow`): the
// GPU's integer multiply-adds wrap around there.
template <int M, int N, int K, class A, class B, class C>
auto dot_integer(const A& a, const B& b, const C& acc, const std::source_location& loc) {
  data_tile<int, shape<M, N>> out(detail::uninitialized_t{});
  auto& vo = out.storage;
  if (sim::current_context().dry) {
    vo.values.fill(0);
    vo.poison.fill(false);
    vo.origin = {};
    return out;
  }
  const bulk::typed_operand<int, shape<M, K>, std::remove_cvref_t<A>> ia(a);
  const bulk::typed_operand<int, shape<K, N>, std::remove_cvref_t<B>> ib(b);
  const bulk::typed_operand<int, shape<M, N>, std::remove_cvref_t<C>> iacc(acc);
  const auto& va = ia.get().storage;
  const auto& vb = ib.get().storage;
  vo.poison = iacc.get().storage.poison;
  vo.origin = iacc.get().storage.origin;
  if (!vo.origin.what) vo.origin = va.origin.what ? va.origin : vb.origin;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      long long sum = iacc.get().storage.values[i * N + j];
      for (int k = 0; k < K; ++k) {
        sum += static_cast<long long>(va.values[i * K + k]) * vb.values[k * N + j];
        if (sum < std::numeric_limits<int>::min() || sum > std::numeric_limits<int>::max())
            [[unlikely]]
          sim::raise_at(sim::kind::index_overflow,
                        "tl::dot's int32 accumulator at [" + std::to_string(i) + ", " +
                            std::to_string(j) + "] reaches " + std::to_string(sum) +
                            " at k = " + std::to_string(k) +
                            ", outside int32; the GPU's integer dot wraps around there. Take "
                            "a smaller K per dot and add the partial sums in float, or check "
                            "the range of the operands.",
                        loc);
      }
      vo.values[i * N + j] = static_cast<int>(sum);
    }
  bulk::dot_poison<M, N, K>(va.poison, vb.poison, vo.poison);
  return out;
}

// Each output lane starts from acc and adds the K products in order of k, each with one fused
// multiply-add: the order and roundings of the lane-by-lane loop, whatever the vector width
// (simulator/dot.hpp), and of the GPU's FFMA (cuda/dot.cuh).
// With tl::tf32 the operands are first rounded to TF32 as the GPU rounds them
// (tl::round_to_tf32, tile/precision.hpp); the product is then the same exact dot.
template <int M, int N, int K, class Precision, class A, class B, class C>
auto dot_float(const A& a, const B& b, const C& acc, const std::source_location& loc) {
  if (sim::current_context().dry) {
    // A dry launch computes no values (launch_options::dry).
    data_tile<float, shape<M, N>> zeros(detail::uninitialized_t{});
    zeros.storage.values.fill(0.0f);
    zeros.storage.poison.fill(false);
    zeros.storage.origin = {};
    return zeros;
  }
  const bulk::float_operand<shape<M, K>, std::remove_cvref_t<A>> fa(a);
  const bulk::float_operand<shape<K, N>, std::remove_cvref_t<B>> fb(b);
  const auto& va = fa.get().storage;
  const auto& vb = fb.get().storage;
  const bulk::float_operand<shape<M, N>, std::remove_cvref_t<C>> facc(acc);
  data_tile<float, shape<M, N>> out(detail::uninitialized_t{});
  auto& vo = out.storage;
  vo.poison = facc.get().storage.poison;
  vo.origin = facc.get().storage.origin;
  if (!vo.origin.what) vo.origin = va.origin.what ? va.origin : vb.origin;
  const float* pacc = facc.get().storage.values.data();
  const auto accumulate = [&](const float* pa, const float* pb) {
    if (sim::lane_by_lane()) {
      // The reference: one output lane at a time, its K products added in order of k, each
      // with one fused multiply-add.
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
          float sum = pacc[i * N + j];
          for (int k = 0; k < K; ++k) sum = std::fma(pa[i * K + k], pb[k * N + j], sum);
          if (sim::tracing_nonfinite() && !std::isfinite(sum)) [[unlikely]]
            detail::note_dot_nonfinite(pa + i * K, pb + j, N, K, pacc[i * N + j], loc);
          vo.values[i * N + j] = sum;
        }
    } else {
      sim::dot_accumulate(pa, pb, pacc, vo.values.data(), M, N, K);
    }
  };
  if constexpr (std::is_same_v<Precision, tf32_t>) {
    // Only a TF32 dot pays for the rounded copies of its operands.
    std::vector<float> rounded(M * K + K * N);
    for (int i = 0; i < M * K; ++i) rounded[i] = round_to_tf32(va.values[i]);
    for (int i = 0; i < K * N; ++i) rounded[M * K + i] = round_to_tf32(vb.values[i]);
    accumulate(rounded.data(), rounded.data() + M * K);
  } else {
    accumulate(va.values.data(), vb.values.data());
  }
  bulk::dot_poison<M, N, K>(va.poison, vb.poison, vo.poison);
  return out;
}

template <int M, int N, int K, class Precision, class A, class B, class C>
auto dot(const A& a, const B& b, const C& acc, const std::source_location& loc) {
  sim::current_context().tick(loc);
  if constexpr (is_8bit_integer_v<value_of_t<A>>) return dot_integer<M, N, K>(a, b, acc, loc);
  else return dot_float<M, N, K, Precision>(a, b, acc, loc);
}

}  // namespace backend

}  // namespace TL_ABI
}  // namespace tl
