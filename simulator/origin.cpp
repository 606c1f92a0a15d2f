#include "simulator/origin.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>

#include "simulator/context.hpp"

namespace tl::sim {

std::string origin_string(const poison_origin& origin) {
  if (!origin.what) return {};
  std::string s = origin.what;
  if (origin.where.line() != 0) s += " at " + source_string(origin.where);
  return s;
}

std::string poison_cause(const poison_origin& origin) {
  const std::string what = origin.what ? origin.what : "";
  const std::string from = "The poison comes from " + origin_string(origin);
  if (what == "the masked load without `other`")
    return from + ": the lanes its mask switched off have no value. Give that load an `other` "
                  "(the value those lanes stand for: 0 in a sum, -inf in a maximum), or keep "
                  "those lanes out with the mask.";
  if (what == "a tl::tile declared without a value")
    return from + ". Give it a value where it is declared (tl::tile<float, B> acc = 0.0f;), or "
                  "assign it before it is used.";
  if (what == "the masked-off lanes of an atomic")
    return from + ": an atomic returns no old value where its mask is off (the GPU gives 0 "
                  "there). Use its result under the same mask as the atomic.";
  if (what.rfind("an integer", 0) == 0)
    return from + " (the GPU gives 0 there). Keep zero divisors out with a mask or tl::where.";
  return "Poison comes from lanes a masked load switched off with no `other`, or from a tl::tile "
         "declared without a value. Give the load an `other`, initialize the tile, or do not "
         "use those lanes.";
}

bool tracing_nonfinite() {
  const context* ctx = current_context_or_null();
  return ctx && ctx->nonfinite;
}

namespace {

void record(nonfinite_event& slot, const char* op, bool binary, double a, double b, double result,
            const std::source_location& where) {
  if (slot.seen) return;
  const context* ctx = current_context_or_null();
  slot.seen = true;
  slot.op = op;
  slot.binary = binary;
  slot.a = a;
  slot.b = b;
  slot.result = result;
  slot.where = where.line() != 0 ? where : ctx->last_op;
  slot.program = ctx->program;
}

std::string number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  std::ostringstream s;
  s << v;
  return s.str();
}

bool is_function(const std::string& op) { return op.rfind("tl::", 0) == 0; }

// "0 * -inf = nan", "tl::exp(95.3) = inf", "tl::sum of ... = nan"
std::string computation(const nonfinite_event& e) {
  std::string s;
  if (e.op == "tl::sum") s = "a sum adding " + number(e.a) + " and " + number(e.b);
  else if (e.binary && is_function(e.op)) s = e.op + "(" + number(e.a) + ", " + number(e.b) + ")";
  else if (e.binary) s = number(e.a) + " " + e.op + " " + number(e.b);
  else if (is_function(e.op)) s = e.op + "(" + number(e.a) + ")";
  else s = e.op + "(" + number(e.a) + ")";
  return s + " = " + number(e.result);
}

std::string place(const nonfinite_event& e) {
  return source_string(e.where) + " (program " + program_string(e.program) + ")";
}

// What made a NaN: "0 * inf", "inf - inf", ...
std::string nan_kind(const nonfinite_event& e) {
  if (e.op == "*") return "0 * inf";
  if (e.op == "+" || e.op == "-" || e.op == "tl::sum") return "inf - inf";
  if (e.op == "/") return e.a == 0 && e.b == 0 ? "0 / 0" : "inf / inf";
  if (e.op == "tl::log" || e.op == "tl::log2" || e.op == "tl::sqrt") return e.op + " of a negative number";
  if (e.op == "tl::sin" || e.op == "tl::cos") return e.op + " of an infinity";
  return "an operation on an infinity";
}

// Where an infinity came from and what to do about it.
std::string inf_cause(const nonfinite_event& e) {
  std::ostringstream s;
  if (e.op == "tl::exp" || e.op == "tl::exp2") {
    s << "exp overflow: " << computation(e) << " at " << place(e) << ". "
      << (e.op == "tl::exp" ? "tl::exp(x) is infinite in float past x = 88.7"
                            : "tl::exp2(x) is infinite in float past x = 128")
      << ". Subtract the row's maximum (the running maximum, in a loop) before exponentiating, "
         "so that the largest argument is 0; if the kernel subtracts one already, it is not the "
         "largest value of the row (its start, or the value it is updated with).";
  } else if (e.op == "/") {
    s << "division by zero: " << computation(e) << " at " << place(e)
      << ". Check what the denominator sums: lanes masked off, or a row with nothing in it.";
  } else if (e.op == "tl::log" || e.op == "tl::log2") {
    s << "the logarithm of 0: " << computation(e) << " at " << place(e) << ".";
  } else {
    s << "float overflow: " << computation(e) << " at " << place(e)
      << ". The values grow past 3.4e38: scale them down first (subtract the maximum, divide "
         "before multiplying).";
  }
  return s.str();
}

std::string other_cause(const nonfinite_event& e, const char* meets) {
  std::ostringstream s;
  s << "the masked load at " << place(e) << " fills its switched-off lanes with `other` = "
    << number(e.a) << ", and those lanes reach " << meets
    << ". Use -inf as `other` only where a maximum is taken; where the values are multiplied or "
       "summed, load with `other` = 0, or clean the lanes with tl::where(mask, x, 0.0f) first.";
  return s.str();
}

}  // namespace

void note_nonfinite(const char* op, bool binary, double a, double b, double result,
                    const std::source_location& where) {
  const context* ctx = current_context_or_null();
  if (!ctx || !ctx->nonfinite) return;
  if (ctx->nonfinite->only_program >= 0 && ctx->nonfinite->only_program != ctx->linear_program)
    return;
  const bool operands_numbers = !std::isnan(a) && !(binary && std::isnan(b));
  const bool operands_finite = std::isfinite(a) && (!binary || std::isfinite(b));
  if (std::isnan(result) && operands_numbers)
    record(ctx->nonfinite->nan, op, binary, a, b, result, where);
  else if (std::isinf(result) && operands_finite)
    record(ctx->nonfinite->inf, op, binary, a, b, result, where);
}

void note_nonfinite_other(double value, const std::source_location& where) {
  const context* ctx = current_context_or_null();
  if (!ctx || !ctx->nonfinite) return;
  if (ctx->nonfinite->only_program >= 0 && ctx->nonfinite->only_program != ctx->linear_program)
    return;
  record(ctx->nonfinite->other, "other", false, value, 0, value, where);
}

double probe_other(double value, const std::source_location& where) {
  const context* ctx = current_context_or_null();
  if (!ctx || !ctx->other) return value;
  other_probe& probe = *ctx->other;
  auto same_line = [&](const std::source_location& a) {
    return a.line() == where.line() && std::string_view(a.file_name()) == where.file_name();
  };
  auto seen = std::find_if(probe.sites.begin(), probe.sites.end(),
                           [&](const other_probe::site& s) { return same_line(s.where); });
  if (seen == probe.sites.end()) probe.sites.push_back({where, value, false});
  else if (!(seen->value == value) && !(std::isnan(seen->value) && std::isnan(value)))
    seen->several = true;
  if (probe.replace_file && probe.replace_line == where.line() &&
      std::string_view(probe.replace_file) == where.file_name())
    return probe.value;
  return value;
}

std::string nonfinite_summary(const nonfinite_trace& t, bool nan) {
  if (nan && t.nan.seen) return nan_kind(t.nan) + ": " + computation(t.nan) + " at " + place(t.nan);
  if (!nan && t.inf.seen) return computation(t.inf) + " at " + place(t.inf);
  if (t.other.seen) return "`other` = " + number(t.other.a) + " of the masked load at " + place(t.other);
  return {};
}

std::string nonfinite_cause(const nonfinite_trace& t, bool nan) {
  std::ostringstream s;
  if (nan && t.nan.seen) {
    const std::string kind = nan_kind(t.nan);
    s << "  Cause: the first NaN is " << kind << ": " << computation(t.nan) << " at "
      << place(t.nan) << ".\n";
    const bool from_infinity = std::isinf(t.nan.a) || (t.nan.binary && std::isinf(t.nan.b));
    if (kind == "0 / 0") {
      s << "  A sum or a count that is 0 divides: a sum of exponentials all of which underflowed "
           "(tl::exp(x) is 0 in float below x = -103, as in a row far below zero), or a row with "
           "no lane in it. Subtract the row's maximum before exponentiating (start a running "
           "maximum at -inf, not 0), so that the largest term is exp(0) = 1.";
    } else if (!from_infinity) {
      s << "  Check the operands' range at that line.";
    } else if (t.inf.seen) {
      // An infinity computed from finite numbers is the likelier culprit than a masked load's
      // infinite `other`, which is harmless where only a maximum or an exp sees it.
      s << "  The infinity comes from " << inf_cause(t.inf);
      if (kind == "0 * inf")
        s << " In a rescale (acc * alpha, l * alpha), alpha = exp(m_old - m_new) is at most 1 "
             "when m_new is the maximum of m_old and the new block.";
    } else if (t.other.seen && std::isinf(t.other.a)) {
      s << "  The infinity comes from -inf in a masked load's `other`: "
        << other_cause(t.other, kind == "0 * inf" ? "a multiplication" : "an addition or "
                                                                          "subtraction");
    } else if (kind == "inf - inf") {
      s << "  The infinities were not computed: they are constants, such as a running maximum "
           "that starts at -inf. Where a row has no valid lane yet, its maximum is still -inf "
           "and m - m is NaN: start the maximum at a large finite negative number, or keep such "
           "lanes out with tl::where.";
    } else {
      s << "  The infinity was not computed from finite numbers: it is a constant (such as "
           "tl::full(-INFINITY)) or an input. Keep it out of multiplications with tl::where.";
    }
    return s.str();
  }
  if (!nan && t.inf.seen) {
    s << "  Cause: " << inf_cause(t.inf);
    return s.str();
  }
  if (t.other.seen) {
    s << "  Cause: " << other_cause(t.other, "the output");
    return s.str();
  }
  return {};
}

}  // namespace tl::sim
