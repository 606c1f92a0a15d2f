#include "checker/registry.hpp"

#include "checker/puzzle_list.hpp"

namespace tp {

const std::vector<const puzzle_spec*>& all_puzzles() {
  static const std::vector<const puzzle_spec*> puzzles = {
#define TP_PUZZLE(number, stem, ...) &specs::stem::spec(),
#include "checker/puzzle_list.def"
#undef TP_PUZZLE
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
