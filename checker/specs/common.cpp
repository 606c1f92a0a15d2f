#include <sstream>

#include "checker/specs/specs.hpp"

namespace tp::specs {

Eigen::ArrayXd as_array(const tensor& t) {
  return Eigen::Map<const Eigen::ArrayXf>(t.values.data(), t.count()).cast<double>();
}

matrix as_matrix(const tensor& t, long long rows, long long cols, long long first) {
  using fmatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  return Eigen::Map<const fmatrix>(t.values.data() + first, rows, cols).cast<double>();
}

void set_from(tensor& t, const Eigen::ArrayXd& values) {
  Eigen::Map<Eigen::ArrayXf>(t.values.data(), t.count()) = values.cast<float>();
}

void set_from(tensor& t, const matrix& values, long long first) {
  using fmatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Eigen::Map<fmatrix>(t.values.data() + first, values.rows(), values.cols()) =
      values.cast<float>();
}

namespace {

std::string plural(long long n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

budget element_access_budget(std::vector<std::string> names, int times, bool reads) {
  const char* verb = reads ? "read" : "written";
  budget b;
  b.description = "each element of " + [&] {
    std::string s;
    for (std::size_t i = 0; i < names.size(); ++i) s += (i ? " and " : "") + names[i];
    return s;
  }() + " is " + verb + " at most " + plural(times, "time", "times") + " over the whole launch";
  b.check = [names, times, reads, verb](const run_facts& f) -> std::optional<std::string> {
    for (const auto& name : names) {
      const auto& buf = f.buffer(name);
      for (long long i = 0; i < buf.count(); ++i) {
        const int count = reads ? buf.shadow[i].reads : buf.shadow[i].writes;
        if (count <= times) continue;
        std::ostringstream s;
        s << name << buf.coords_of(i) << " was " << verb << " " << count << " times (at most "
          << times << " allowed)";
        if (reads)
          s << "; " << name << " was loaded " << buf.counters.loads << " times in all for its "
            << plural(buf.count(), "element", "elements");
        s << ".";
        return s.str();
      }
    }
    return std::nullopt;
  };
  return b;
}

}  // namespace

budget each_element_read_at_most(std::vector<std::string> names, int times) {
  return element_access_budget(std::move(names), times, true);
}

budget each_element_written_at_most(std::vector<std::string> names, int times) {
  return element_access_budget(std::move(names), times, false);
}

budget each_program_reads_each_element_at_most(std::vector<std::string> names, int times) {
  budget b;
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) list += (i ? " and " : "") + names[i];
  b.description = "each program loads each element of " + list + " at most " +
                  plural(times, "time", "times");
  b.check = [names, times](const run_facts& f) -> std::optional<std::string> {
    for (const auto& name : names) {
      const auto& buf = f.buffer(name);
      if (buf.counters.max_program_element_reads <= times) continue;
      return "a program loaded an element of " + name + " " +
             std::to_string(buf.counters.max_program_element_reads) + " times (at most " +
             std::to_string(times) + " allowed); the busiest program loaded " +
             std::to_string(buf.counters.max_program_loads) + " lanes of " + name + ".";
    }
    return std::nullopt;
  };
  return b;
}

}  // namespace tp::specs
