// Puzzle 16: multi-head flash attention forward, float16 and bfloat16, causal or not.
#include <cmath>

#include "checker/bindings/flash_attention.hpp"
#include "checker/spec.hpp"
#include "checker/specs/specs.hpp"

namespace tp::specs {

const puzzle_spec& flash_attention() {
  static const puzzle_spec spec = [] {
    puzzle_spec s;
    s.id = bindings::flash_attention::id;
    s.not_on_gpu_because = "it needs float16 and bfloat16 tiles and their tl::dot, which the GPU backend does not have yet";
    s.number = 16;
    s.title = "Flash attention";
    s.summary = "o = softmax(q kᵀ / sqrt(d)) v for q, k, v of [Z, H, N, HEAD_DIM] in float16 and "
                "bfloat16, causal or not; B0 queries of one batch and head per program, one loop "
                "over the keys in steps of B1";
    s.stub_file = "puzzles/flash_attention.hpp";
    s.solution_file = "solutions/flash_attention.hpp";
    s.doc_file = "docs/puzzles/flash-attention.md";
    s.size_names = {"Z", "H", "N", "HEAD_DIM", "CAUSAL"};
    s.block_names = {"B0", "B1", "D"};
    // One query and key; N past a multiple of 16 or 32 by 1, 2 and 3; several batches and heads;
    // head_dim 64 and 128, each with and without the causal mask.
    s.cases = {{{1, 1, 1, 64, 0}, "One query and one key: every block but the first lane masked off."},
               {{1, 2, 17, 64, 1}, "N past a multiple of 16 by 1, causal, two heads."},
               {{2, 2, 34, 64, 0}, "N past a multiple of 16 and 32 by 2, two batches and heads."},
               {{1, 1, 67, 64, 1}, "N past a multiple of 16, 32 and 64 by 3, causal."},
               {{1, 1, 1, 128, 1}, "One query and one key at head_dim 128, causal."},
               {{2, 1, 35, 128, 0}, "N past a multiple of 16 and 32 by 3 at head_dim 128."},
               {{1, 2, 50, 128, 1}, "N past a multiple of 16 by 2 at head_dim 128, causal."}};
    s.case_fits = [](const std::vector<int>& n, const std::vector<int>& b) { return n[3] == b[2]; };
    s.case_fits_rule = "HEAD_DIM = D";
    auto qkv = [](const std::vector<int>& n) {
      return std::vector<long long>{n[0], n[1], n[2], n[3]};
    };
    // Large scores (q up to about 40 after outliers): exp without the running maximum overflows.
    s.tensors = {{"q", false, qkv, [](auto& v, rng& r) { fill_signed(v, r, 10.0); }},
                 {"k", false, qkv, [](auto& v, rng& r) { fill_signed(v, r); }},
                 {"v", false, qkv, [](auto& v, rng& r) { fill_signed(v, r); }},
                 {"o", true, qkv, nullptr}};
    s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
      return std::array<int, 3>{cdiv(n[2], b[0]), n[0] * n[1], 1};
    };
    s.reference = [](const std::vector<int>& n, std::vector<tensor>& t) {
      const long long heads = 1LL * n[0] * n[1], N = n[2], d = n[3];
      const bool causal = n[4] != 0;
      for (long long h = 0; h < heads; ++h) {
        const long long first = h * N * d;
        const matrix q = as_matrix(t[0], N, d, first), k = as_matrix(t[1], N, d, first);
        const matrix v = as_matrix(t[2], N, d, first);
        matrix scores = q * k.transpose() / std::sqrt(static_cast<double>(d));
        if (causal)
          for (long long i = 0; i < N; ++i)
            for (long long j = i + 1; j < N; ++j) scores(i, j) = -INFINITY;
        const Eigen::VectorXd row_max = scores.rowwise().maxCoeff();
        const matrix e = (scores.colwise() - row_max).array().exp().matrix();
        const Eigen::VectorXd row_sum = e.rowwise().sum();
        set_from(t[3], matrix((e * v).array().colwise() / row_sum.array()), first);
      }
    };
    // float16 and bfloat16 round p before p @ v and round o (half an ulp: 2^-11 and 2^-8
    // relative); the solution's worst errors are about 2.4e-4 and 2.2e-3 relative.
    s.tolerances = {{dtype::float16, 2e-3, 2e-3}, {dtype::bfloat16, 1e-2, 1e-2}};
    s.budgets = {each_program_reads_each_element_at_most({"k", "v"}, 1),
                 each_element_read_at_most({"q"}, 1), each_element_written_at_most({"o"}, 1)};
    s.kernels = make_kernel_entries<bindings::flash_attention>();
    return s;
  }();
  return spec;
}

}  // namespace tp::specs
