// The simulator's side of tl::print (tile/print.hpp): formats a tile into the launch's print
// output (launch_options::print_output), if the launch collects one.
#pragma once

#include <cstdio>
#include <source_location>
#include <string>
#include <type_traits>

#include "simulator/context.hpp"
#include "simulator/front_hooks.hpp"
#include "simulator/tile_storage.hpp"
#include "tile/expr.hpp"

namespace tl {
inline namespace TL_ABI {
namespace backend {

namespace print_detail {

template <class T>
std::string value_text(T v) {
  char buf[32];
  if constexpr (std::is_same_v<T, bool>) return v ? "1" : "0";
  else if constexpr (std::is_integral_v<T>) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
  else std::snprintf(buf, sizeof buf, "%.4g", static_cast<double>(v));
  return buf;
}

template <class T>
const char* dtype_text() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_integral_v<T>) return "int32";
  else return "value";
}

constexpr int max_rows = 8;
constexpr int max_cols = 32;

}  // namespace print_detail

template <class E, class MaskE>
void print(const char* name, const E& x, const MaskE& mask, const std::source_location& loc) {
  auto& ctx = sim::current_context();
  if (!ctx.print_output) return;
  std::string& out = *ctx.print_output;
  out += "[program " + sim::program_string(ctx.program) + "] " + sim::source_string(loc) + " " +
         name + ": ";
  if constexpr (std::is_arithmetic_v<E>) {
    out += std::string(print_detail::dtype_text<E>()) + " = " + print_detail::value_text(x) + "\n";
  } else {
    using S = shape_of_t<E>;
    using T = value_of_t<E>;
    using MS = shape_of_t<MaskE>;
    out += print_detail::dtype_text<T>();
    out += " [";
    for (int a = 0; a < S::rank; ++a) out += (a ? ", " : "") + std::to_string(S::dim(a));
    out += "]";
    const long long cols = S::rank == 0 ? 1 : S::dim(S::rank - 1);
    const long long rows = S::size / cols;
    std::string line;
    long long row = 0;
    detail::for_each_pos<S>([&](const pos<S::rank>& p, long long i) {
      const long long c = i % cols;
      const long long r = i / cols;
      if (r >= print_detail::max_rows || c >= print_detail::max_cols) return;
      if (c == 0) line = S::rank <= 1 ? "[" : "  [";
      const auto pm = broadcast_pos<MS, S>(p);
      bool poison = false;
      if constexpr (has_data_v<E>) poison = x.poison(p);
      if (!mask.eval(pm)) line += "-";
      else if (poison) line += "?";
      else line += print_detail::value_text(static_cast<T>(x.eval(p)));
      if (c + 1 < cols && c + 1 < print_detail::max_cols) line += ", ";
      if (c + 1 == cols || c + 1 == print_detail::max_cols) {
        if (cols > print_detail::max_cols) line += ", ... (" + std::to_string(cols) + " in all)";
        line += "]";
        out += S::rank <= 1 ? " = " + line + "\n" : (r == 0 ? " =\n" : "") + line + "\n";
        row = r + 1;
      }
    });
    if (S::rank == 0 && row == 0) out += "\n";
    if (rows > print_detail::max_rows)
      out += "  ... (" + std::to_string(rows) + " rows in all)\n";
  }
}

}  // namespace backend
}  // namespace TL_ABI
}  // namespace tl
