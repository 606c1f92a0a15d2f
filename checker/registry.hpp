// The puzzles, in curriculum order, and finding one by number or id.
#pragma once

#include <string>
#include <vector>

#include "checker/spec.hpp"

namespace tp {

const std::vector<const puzzle_spec*>& all_puzzles();

// The puzzle named by its number ("3") or its id ("long-softmax-2loop"); null if none.
const puzzle_spec* find_puzzle(const std::string& name);

// "1 (vector-add), 2 (long-softmax-3loop), ..." for error messages.
std::string puzzle_choices();

}  // namespace tp
