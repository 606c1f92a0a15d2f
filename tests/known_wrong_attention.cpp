// Known-wrong kernels of puzzle 16 (flash-attention) fail with their diagnostic, next to the
// solution, which passes through the same path, in float16 and bfloat16.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "checker/specs/flash_attention.hpp"
#include "check_as_puzzle.hpp"

namespace wrong {

// The solution's kernel with one mistake switched on.
enum class attention_bug { none, no_causal_mask, exp_for_exp2, no_running_max };

template <attention_bug Bug>
struct Attention {
  template <class T, int B0, int B1, int D>
  struct Kernel {
    static constexpr int num_warps = 4;
    TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                              tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
      int start_m = tl::program_id(0) * B0;
      int head_offset = tl::program_id(1) * N * D;
      auto rows = start_m + tl::arange<B0>();
      auto dims = tl::arange<D>();
      auto row_mask = rows < N;
      const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(D));
      auto queries = tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
      const bool causal = CAUSAL && Bug != attention_bug::no_causal_mask;
      tl::tile<float, B0> m_i = tl::full<B0>(Bug == attention_bug::no_running_max ? 0.0f : -INFINITY);
      tl::tile<float, B0> l_i = 0.0f;
      tl::tile<float, B0, D> acc = 0.0f;
      for (int start_n = 0; start_n < N; start_n += B1) {
        auto cols = start_n + tl::arange<B1>();
        auto col_mask = cols < N;
        auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), col_mask.row(), 0.0f);
        auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), col_mask.col(), 0.0f);
        auto visible = col_mask.row() & ((cols.row() <= rows.col()) | !causal);
        auto scores = tl::where(visible, tl::dot(queries, keys_t) * qk_scale, -INFINITY);
        tl::tile<float, B0> m_new = m_i;
        if (Bug != attention_bug::no_running_max) m_new = tl::maximum(m_i, tl::max<1>(scores));
        tl::tile<float, B0, B1> p = Bug == attention_bug::exp_for_exp2
                                        ? tl::exp(scores - m_new.col())
                                        : tl::exp2(scores - m_new.col());
        tl::tile<float, B0> alpha = Bug == attention_bug::exp_for_exp2 ? tl::exp(m_i - m_new)
                                                                       : tl::exp2(m_i - m_new);
        l_i = l_i * alpha + tl::sum<1>(p);
        acc = tl::dot(tl::cast<T>(p), values, acc * alpha.col());
        m_i = m_new;
      }
      tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(acc / l_i.col()),
                row_mask.col());
    }
  };
};

// Right result, twice the reads: a first loop over the keys for the maximum, a second for the rest.
template <class T, int B0, int B1, int D>
struct AttentionTwoPasses {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const T> q, tl::ptr<const T> k, tl::ptr<const T> v,
                            tl::ptr<T> o, int Z, int H, int N, int HEAD_DIM, int CAUSAL) const {
    int start_m = tl::program_id(0) * B0;
    int head_offset = tl::program_id(1) * N * D;
    auto rows = start_m + tl::arange<B0>();
    auto dims = tl::arange<D>();
    auto row_mask = rows < N;
    const float qk_scale = 1.44269504f / std::sqrt(static_cast<float>(D));
    auto queries = tl::load(q + head_offset + rows.col() * D + dims.row(), row_mask.col(), 0.0f);
    tl::tile<float, B0> m_i = tl::full<B0>(-INFINITY);
    for (int start_n = 0; start_n < N; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), (cols < N).row(), 0.0f);
      auto visible = (cols < N).row() & ((cols.row() <= rows.col()) | (CAUSAL == 0));
      m_i = tl::maximum(m_i, tl::max<1>(tl::where(visible, tl::dot(queries, keys_t) * qk_scale,
                                                  -INFINITY)));
    }
    tl::tile<float, B0> l_i = 0.0f;
    tl::tile<float, B0, D> acc = 0.0f;
    for (int start_n = 0; start_n < N; start_n += B1) {
      auto cols = start_n + tl::arange<B1>();
      auto keys_t = tl::load(k + head_offset + cols.row() * D + dims.col(), (cols < N).row(), 0.0f);
      auto values = tl::load(v + head_offset + cols.col() * D + dims.row(), (cols < N).col(), 0.0f);
      auto visible = (cols < N).row() & ((cols.row() <= rows.col()) | (CAUSAL == 0));
      auto p = tl::exp2(tl::where(visible, tl::dot(queries, keys_t) * qk_scale, -INFINITY) -
                        m_i.col());
      l_i += tl::sum<1>(p);
      acc = tl::dot(tl::cast<T>(p), values, acc);
    }
    tl::store(o + head_offset + rows.col() * D + dims.row(), tl::cast<T>(acc / l_i.col()),
              row_mask.col());
  }
};

}  // namespace wrong

namespace {
using binding = tp::bindings::flash_attention;
using as_puzzle::check_solution;
using as_puzzle::check_typed_as;
using as_puzzle::check_typed_wrong;
using as_puzzle::the_diagnostic;
using wrong::attention_bug;
}  // namespace

TEST_CASE("Known-wrong flash-attention kernels fail with their diagnostic", "[known-wrong]") {
  SECTION("the correct twins pass, in float16 and bfloat16") {
    CHECK(check_typed_as<wrong::Attention<attention_bug::none>::Kernel, binding>("flash-attention")
              .status == tp::status::solved);
    CHECK(check_solution("flash-attention").status == tp::status::solved);
  }
  SECTION("no causal mask: wrong-result in the first causal case with more than one key") {
    const auto report = check_typed_wrong<wrong::Attention<attention_bug::no_causal_mask>::Kernel,
                                          binding>("flash-attention");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "wrong-result");
    CHECK(d.buffer == "o");
    CHECK(report.sizes == std::vector<int>{1, 2, 17, 64, 1});
    CHECK_THAT(d.message, Catch::Contains("float16"));
  }
  SECTION("exp where the log2(e) scale asks for exp2: wrong-result") {
    const auto report = check_typed_wrong<wrong::Attention<attention_bug::exp_for_exp2>::Kernel,
                                          binding>("flash-attention");
    CHECK(the_diagnostic(report).kind == "wrong-result");
  }
  SECTION("no running maximum: the large scores overflow, nan-inf") {
    const auto report = check_typed_wrong<wrong::Attention<attention_bug::no_running_max>::Kernel,
                                          binding>("flash-attention");
    CHECK(the_diagnostic(report).kind == "nan-inf");
  }
  SECTION("two passes over the keys: efficiency-budget") {
    const auto report = check_typed_wrong<wrong::AttentionTwoPasses, binding>("flash-attention");
    const auto& d = the_diagnostic(report);
    CHECK(d.kind == "efficiency-budget");
    CHECK_THAT(d.message, Catch::Contains("an element of k 2 times"));
  }
}
