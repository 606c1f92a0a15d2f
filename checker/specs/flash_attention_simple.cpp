// Puzzle 12: one-dimensional attention with a single pass over k and v.
#include "checker/bindings/flash_attention_simple.hpp"
#include "checker/spec.hpp"
#include "checker/specs/specs.hpp"

namespace tp::specs {

const puzzle_spec& flash_attention_simple() {
  static const puzzle_spec spec = [] {
    puzzle_spec s;
    s.id = bindings::flash_attention_simple::id;
    s.number = 12;
    s.title = "Flash attention, simple";
    s.summary = "z[i] = sum_j softmax_j(q[i] * k[j]) * v[j]; B0 queries per program, one loop "
                "over T in steps of B1";
    s.stub_file = "puzzles/flash_attention_simple.hpp";
    s.solution_file = "solutions/flash_attention_simple.hpp";
    s.doc_file = "docs/puzzles/flash-attention-simple.md";
    s.size_names = {"N0", "T"};
    s.block_names = {"B0", "B1"};
    // T past a multiple of B1 (16 or 32) by 1, 2 and 3, a single key, and the classic set's
    // 200 queries and 200 keys.
    s.cases = {{1, 1}, {3, 17}, {5, 34}, {9, 67}, {40, 200}, {200, 200}};
    auto n0 = [](const std::vector<int>& n) { return std::vector<long long>{n[0]}; };
    auto t = [](const std::vector<int>& n) { return std::vector<long long>{n[1]}; };
    s.tensors = {{"q", false, n0, [](auto& v, rng& r) { fill_signed(v, r, 3.0); }},
                 {"k", false, t, [](auto& v, rng& r) { fill_signed(v, r, 3.0); }},
                 {"v", false, t, [](auto& v, rng& r) { fill_signed(v, r); }},
                 {"z", true, n0, nullptr}};
    s.grid = [](const std::vector<int>& n, const std::vector<int>& b) {
      return std::array<int, 3>{(n[0] + b[0] - 1) / b[0], 1, 1};
    };
    s.reference = [](const std::vector<int>&, std::vector<tensor>& t) {
      const Eigen::ArrayXd q = as_array(t[0]), k = as_array(t[1]), v = as_array(t[2]);
      const matrix scores = q.matrix() * k.matrix().transpose();
      const Eigen::VectorXd row_max = scores.rowwise().maxCoeff();
      const matrix e = (scores.colwise() - row_max).array().exp().matrix();
      set_from(t[3], Eigen::ArrayXd((e * v.matrix()).array() / e.rowwise().sum().array()));
    };
    s.rtol = 1e-4;
    s.atol = 1e-5;
    s.budgets = {each_program_reads_each_element_at_most({"k", "v"}, 1),
                 each_element_read_at_most({"q"}, 1), each_element_written_at_most({"z"}, 1)};
    s.kernels = make_kernel_entries<bindings::flash_attention_simple>();
    return s;
  }();
  return spec;
}

}  // namespace tp::specs
