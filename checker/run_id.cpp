// Where a run is and how to name it: a case's label ("N0=200, B0=32, order reverse"), a
// report's failed run and `show`'s arguments that replay it, and `--blocks` read back.
#include "checker/check.hpp"

#include <algorithm>
#include <sstream>

#include "checker/check_passes.hpp"

namespace tp {

namespace kind = tl::sim::kind;

std::string case_label(const puzzle_spec& spec, const std::vector<int>& sizes,
                       const std::vector<int>& blocks, const std::string& order, dtype element) {
  std::ostringstream s;
  for (std::size_t i = 0; i < sizes.size() && i < spec.size_names.size(); ++i)
    s << (i ? ", " : "") << spec.size_names[i] << "=" << sizes[i];
  for (std::size_t i = 0; i < blocks.size() && i < spec.block_names.size(); ++i)
    s << ", " << spec.block_names[i] << "=" << blocks[i];
  if (element != dtype::float32) s << ", " << dtype_name(element);
  if (!order.empty()) s << ", order " << order;
  return s.str();
}

std::string numbered_case_label(const puzzle_spec& spec, std::size_t case_index,
                                const std::vector<int>& blocks, const std::string& order,
                                dtype element) {
  return std::to_string(case_index + 1) + " of " + std::to_string(spec.cases.size()) + ": " +
         case_label(spec, spec.cases[case_index].sizes, blocks, order, element);
}

// "B0=1, B1=32" (", float16" after them for a kernel of another dtype than float32).
std::string blocks_label(const puzzle_spec& spec, const kernel_entry& kernel) {
  const std::string label = case_label(spec, {}, kernel.blocks, "", kernel.dtype);
  return label.rfind(", ", 0) == 0 ? label.substr(2) : label;
}

// "tilepuzzles show 8 --case 3 --blocks B0=4,B1=64 --order reverse", with the options that
// make `show` run the same kernel (--impl, --puzzles) as the check did.
std::string show_command(const puzzle_spec& spec, const run_id& run, const check_options& options) {
  std::string command = "tilepuzzles show " + std::to_string(spec.number) + " " +
                        replay_arguments(spec, run);
  if (options.which == impl::solution) command += " --impl solution";
  if (!options.modules.puzzles_dir.empty()) command += " --puzzles " + options.modules.puzzles_dir;
  return command;
}

std::string puzzle_report::case_label() const {
  if (!spec) return {};
  if (case_index >= 0 && case_index < static_cast<int>(spec->cases.size()))
    return numbered_case_label(*spec, static_cast<std::size_t>(case_index), blocks, order, dtype);
  return tp::case_label(*spec, sizes, blocks, order, dtype);
}

std::optional<run_id> failed_run(const puzzle_report& report) {
  if (report.status != status::failed || !report.spec || report.diagnostics.empty() ||
      report.case_index < 0 || report.kernel_index < 0 || report.order.empty())
    return std::nullopt;
  const std::string& kind = report.diagnostics.front().kind;
  if (kind == kind::compile_error || kind == kind::not_solved) return std::nullopt;
  return run_id{report.case_index, report.kernel_index, report.order, report.seed};
}

std::string blocks_argument(const puzzle_spec& spec, std::size_t kernel_index) {
  const kernel_entry& kernel = spec.kernels[kernel_index];
  std::string text;
  for (std::size_t i = 0; i < kernel.blocks.size() && i < spec.block_names.size(); ++i)
    text += (i ? "," : "") + spec.block_names[i] + "=" + std::to_string(kernel.blocks[i]);
  const auto same_blocks = std::count_if(spec.kernels.begin(), spec.kernels.end(),
                                         [&](const kernel_entry& k) { return k.blocks == kernel.blocks; });
  if (same_blocks > 1) text += std::string(",") + dtype_name(kernel.dtype);
  return text;
}

std::string replay_arguments(const puzzle_spec& spec, const run_id& run) {
  std::string text = "--case " + std::to_string(run.case_index + 1) + " --blocks " +
                     blocks_argument(spec, static_cast<std::size_t>(run.kernel_index));
  if (!run.order.empty() && run.order != "forward") text += " --order " + run.order;
  if (run.seed != 0) text += " --seed " + std::to_string(run.seed);
  return text;
}

std::optional<std::size_t> parse_blocks(const puzzle_spec& spec, const std::string& text,
                                        std::string& error) {
  std::string choices;
  for (std::size_t k = 0; k < spec.kernels.size(); ++k)
    choices += (k ? ", " : "") + blocks_argument(spec, k);
  error = "--blocks " + text + ": puzzle " + std::to_string(spec.number) + " (" + spec.id +
          ") is checked with " + choices + "; name one of them";
  std::vector<int> values(spec.block_names.size(), -1);
  std::optional<dtype> element;
  std::size_t position = 0;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(std::remove(item.begin(), item.end(), ' '), item.end());
    if (item.empty()) return std::nullopt;
    bool is_dtype = false;
    for (dtype d : {dtype::float32, dtype::float16, dtype::bfloat16, dtype::int8, dtype::uint8})
      if (item == dtype_name(d)) element = d, is_dtype = true;
    if (is_dtype) continue;
    std::size_t axis = position;
    std::string number = item;
    if (const std::size_t eq = item.find('='); eq != std::string::npos) {
      const std::string name = item.substr(0, eq);
      const auto named = std::find(spec.block_names.begin(), spec.block_names.end(), name);
      if (named == spec.block_names.end()) return std::nullopt;
      axis = static_cast<std::size_t>(named - spec.block_names.begin());
      number = item.substr(eq + 1);
    }
    if (axis >= values.size() || number.empty() || number.size() > 6 ||
        number.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    values[axis] = std::stoi(number);
    position = axis + 1;
  }
  if (std::count(values.begin(), values.end(), -1) > 0) return std::nullopt;
  std::optional<std::size_t> found;
  for (std::size_t k = 0; k < spec.kernels.size(); ++k) {
    if (spec.kernels[k].blocks != values) continue;
    if (element && spec.kernels[k].dtype != *element) continue;
    if (found) {  // the same block sizes in two dtypes: the dtype must say which
      error = "--blocks " + text + ": puzzle " + std::to_string(spec.number) +
              " has these block sizes in more than one dtype; add it: " + choices;
      return std::nullopt;
    }
    found = k;
  }
  if (found) error.clear();
  return found;
}

}  // namespace tp
