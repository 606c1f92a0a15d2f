// How far a learner is: the last verdict of each puzzle's stub, kept next to its module
// (`build/modules/<stem>.stub.verdict`) by every `tilepuzzles check` of the stubs, and read back
// by `list` without compiling or running anything. A verdict counts only while the kernel file
// is the one it was given for (same content); otherwise `list` says the file changed since.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checker/check.hpp"
#include "checker/report.hpp"
#include "checker/modules.hpp"

namespace tp {

enum class progress { solved, failing, compile_error, not_solved, not_started, changed };

struct puzzle_progress {
  tp::progress state = progress::not_started;
  std::string kind;  // the diagnostic kind of a failing verdict
};

// A stable hash of a file's content (FNV-1a); nullopt when it cannot be read.
std::optional<std::uint64_t> content_hash(const std::string& path);

// Remembers the verdict of a check of `spec`'s stub, given for the content whose hash is `hash`
// (taken before the check, so an edit made while it ran is not covered by it).
void record_verdict(const puzzle_spec& spec, const module_options& options, std::uint64_t hash,
                    status verdict, const std::string& kind);

// Remembers the run that the last check of `spec`'s stub failed on
// (`build/modules/<stem>.stub.failed-run`), or forgets it when `run` is empty (the check passed,
// or failed where `show` has nothing to draw): `tilepuzzles show N` replays it.
void record_failed_run(const puzzle_spec& spec, const module_options& options,
                       const std::optional<run_id>& run);

// The run the last check of the stub failed on, if it did.
std::optional<run_id> last_failed_run(const puzzle_spec& spec, const module_options& options);

// The puzzle's state from its last verdict and its kernel file as it is now.
puzzle_progress progress_of(const puzzle_spec& spec, const module_options& options);

// "solved", "failing (wrong-result)", "compile-error", "not solved", "not started",
// "changed since checked".
std::string progress_text(const puzzle_progress& p);

// The diagnostic kind in a report line ("   3  vector-add   FAILED   out-of-bounds"), or "".
std::string kind_of_report_line(const std::string& line);

}  // namespace tp
