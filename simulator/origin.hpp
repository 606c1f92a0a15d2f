// Where a bad value was made, so that a report names the cause and not only the symptom: the
// poison a store, a mask or a branch runs into, and the first NaN or infinity of a run.
#pragma once

#include <array>
#include <source_location>
#include <string>
#include <vector>

namespace tl::sim {

// Where the poison of a data tile was made: a masked load without `other`, a tl::tile declared
// without a value, an integer division by zero. A tile keeps one: its first poisoned lane's.
struct poison_origin {
  const char* what = nullptr;  // null while the tile holds no poison
  std::source_location where{};
};

// "the masked load without `other` at kernels/softmax.hpp:21"; empty when not known.
std::string origin_string(const poison_origin& origin);
// "The poison comes from <origin>: <what to do>", for a report; general advice when not known.
std::string poison_cause(const poison_origin& origin);

// One operation that turned numbers into a NaN, or finite numbers into an infinity.
struct nonfinite_event {
  bool seen = false;
  std::string op;  // "*", "-", "tl::exp", "tl::sum", "other"
  bool binary = false;
  double a = 0, b = 0, result = 0;
  std::source_location where{};
  std::array<int, 3> program{-1, -1, -1};
};

// The first of each kind in a run. Recorded only while a launch traces (launch_options::
// trace_nonfinite): the checker reruns a case that ended in nan-inf with tracing on.
struct nonfinite_trace {
  int only_program = -1;  // record only in this program (linear id): the one that wrote the output
  nonfinite_event nan;    // a NaN from operands that were not NaN
  nonfinite_event inf;    // an infinity from finite operands
  nonfinite_event other;  // a masked load whose `other` is infinite or NaN
};

// The cause of a NaN (or, when `nan` is false, an infinity) in an output and advice that fits
// it, from a trace: a few lines for the nan-inf report. Empty when the trace saw nothing.
std::string nonfinite_cause(const nonfinite_trace& trace, bool nan);
// The same in one line, for the report's `cause` field: "0 * inf: 0 * inf = nan at ...".
std::string nonfinite_summary(const nonfinite_trace& trace, bool nan);

// Called by tile operations (tile/expr.hpp, simulator/backend.hpp) for a lane whose result is
// NaN or infinite; records it when the running launch traces and it is the first of its kind.
void note_nonfinite(const char* op, bool binary, double a, double b, double result,
                    const std::source_location& where);
void note_nonfinite_other(double value, const std::source_location& where);
bool tracing_nonfinite();

// The `other` of masked loads, watched and, on request, replaced. A wrong maximum or sum may be
// decided by lanes a mask switched off (an `other` of 0 in the maximum of negative numbers): the
// checker reruns such a run with a probe to find the loads whose `other` filled lanes, then once
// per load with another `other` in their place, to say which load's lanes decide the result.
// Loads of floating-point tiles only; every load with `other` runs lane by lane meanwhile.
struct other_probe {
  struct site {
    std::source_location where{};
    double value = 0;     // the `other` its first masked-off lane took
    bool several = false;  // its lanes took more than one value
  };
  std::vector<site> sites;  // in the order of their first masked-off lane
  // Set: the loads at this file and line take `value` in their masked-off lanes instead.
  const char* replace_file = nullptr;
  unsigned replace_line = 0;
  double value = 0;
};

// Called by a floating-point load for each lane its mask switched off, with the `other` the lane
// takes; returns the value the lane holds (the probe's replacement, or `value`). Only while the
// running launch has a probe (launch_options::other).
double probe_other(double value, const std::source_location& where);

}  // namespace tl::sim
