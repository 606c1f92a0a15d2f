// What the check loop (check.cpp) shares with the files it is split into: the runs' requests and
// names (run_id.cpp), the output map (outputs.cpp), and the diagnosis passes that explain a
// failed run (diagnosis.cpp). Not part of the checker's interface: check.hpp is.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "checker/check.hpp"

namespace tp {

// The launch of case c of `spec` with `kernel`'s block sizes over `tensors`.
launch_request request_for(const puzzle_spec& spec, std::size_t c, const kernel_entry& kernel,
                           std::vector<tensor>& tensors);
long long total_stores(const sim_outcome& run);

// "B0=1, B1=32" (", float16" after them for a kernel of another dtype than float32).
std::string blocks_label(const puzzle_spec& spec, const kernel_entry& kernel);
// "tilepuzzles show 8 --case 3 --blocks B0=4,B1=64 --order reverse" with the check's options.
std::string show_command(const puzzle_spec& spec, const run_id& run, const check_options& options);

// A small picture of where the wrong elements of t are: '#' wrong, '.' right.
std::string wrong_map(const tensor& t, const std::vector<bool>& wrong);

// What a kernel did across the small cases of one set of block sizes, when a run stored nothing.
struct activity {
  bool stores = false;  // some case stores something, or fails on its own
  bool works = false;   // some case runs a tile operation
};
activity activity_in_cases(const kernel_entry& kernel, sim_launcher launcher,
                           const check_options& options, const puzzle_spec& spec,
                           const std::function<const case_data&(std::size_t)>& case_at);

// The not-solved, unwritten-output findings of a run that raised nothing: an empty kernel, a
// kernel that stores nothing (`nothing_stored`), or outputs left unwritten; `covering(t)` names
// the block sizes with which the kernel writes every element of output t in this case.
std::optional<tl::sim::diagnostic> check_clean_run(
    const puzzle_spec& spec, const std::string& kernel_file, const sim_outcome& run,
    const std::vector<tensor>& tensors, const std::string& where, const activity* nothing_stored,
    const std::function<std::string(std::size_t)>& covering);

// The block sizes with which kernel entries other than k write every element of output t in
// case c ("B0=1, B1=32 and with B0=4, B1=8"), or "" where none does.
std::string blocks_covering(const puzzle_spec& spec, std::size_t c, std::size_t k,
                            const std::vector<sim_launcher>& launchers, std::size_t t,
                            const std::function<const case_data&(std::size_t kernel)>& case_of,
                            unsigned long long op_budget);

// A `nan-inf` finding `d` of a run whose outputs are `got`: the run again, traced, and `d`
// rewritten with where the program that wrote the first bad element made its first NaN or
// infinity (unchanged where the trace finds no cause).
void trace_nonfinite(const puzzle_spec& spec, std::size_t c, const kernel_entry& kernel,
                     sim_launcher launcher, const case_data& the_case,
                     const std::vector<tensor>& got, const sim_outcome& run,
                     const tl::sim::launch_options& launch, const std::string& where,
                     tl::sim::diagnostic& d);

}  // namespace tp
