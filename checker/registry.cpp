#include "checker/registry.hpp"

#include "checker/specs/specs.hpp"

namespace tp {

const std::vector<const puzzle_spec*>& all_puzzles() {
  static const std::vector<const puzzle_spec*> puzzles = {
      &specs::vector_add(),
      &specs::long_softmax_3loop(),
      &specs::long_softmax_2loop(),
      &specs::flash_attention_simple(),
      &specs::matmul(),
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
