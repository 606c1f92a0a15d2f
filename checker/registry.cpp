#include "checker/registry.hpp"

#include "checker/specs/specs.hpp"

namespace tp {

const std::vector<const puzzle_spec*>& all_puzzles() {
  static const std::vector<const puzzle_spec*> puzzles = {
      &specs::constant_add(),
      &specs::constant_add_block(),
      &specs::vector_add(),
      &specs::outer_add(),
      &specs::outer_add_block(),
      &specs::outer_mul_relu(),
      &specs::outer_mul_relu_backward(),
      &specs::long_sum(),
      &specs::long_softmax_3loop(),
      &specs::long_softmax_2loop(),
      &specs::softmax_fused(),
      &specs::flash_attention_simple(),
      &specs::conv2d(),
      &specs::matmul(),
      &specs::matmul_int4(),
      &specs::flash_attention(),
  };
  return puzzles;
}

const puzzle_spec* find_puzzle(const std::string& name) {
  for (const puzzle_spec* p : all_puzzles())
    if (p->id == name || std::to_string(p->number) == name) return p;
  return nullptr;
}

std::string puzzle_choices() {
  std::string s;
  for (const puzzle_spec* p : all_puzzles())
    s += (s.empty() ? "" : ", ") + std::to_string(p->number) + " (" + p->id + ")";
  return s;
}

}  // namespace tp
