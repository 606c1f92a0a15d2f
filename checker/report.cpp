#include "checker/report.hpp"

#include <cstdio>
#include <sstream>

namespace tp {

const char* status_name(status s) {
  switch (s) {
    case status::solved: return "solved";
    case status::not_solved: return "not-solved";
    case status::failed: return "failed";
  }
  return "failed";
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

namespace {
// The file the report is about, as the check showed it (a --puzzles directory's, say).
std::string kernel_file_of(const puzzle_report& r) {
  if (!r.kernel_file.empty()) return r.kernel_file;
  return r.which == impl::stub ? r.spec->stub_file : r.spec->solution_file;
}
}  // namespace

std::string report_line(const puzzle_report& r) {
  char buf[256];
  const char* state = r.status == status::solved       ? "solved"
                      : r.status == status::not_solved ? "not solved"
                                                       : "FAILED";
  std::string note;
  if (r.status == status::not_solved)
    note = "write it in " + kernel_file_of(r);
  else if (r.status == status::failed && !r.diagnostics.empty())
    note = r.diagnostics.front().kind;
  else if (r.status == status::solved) {
    note = std::to_string(r.runs) + " simulator runs";
    if (!r.gpu_note.empty()) note += "; " + r.gpu_note;
  }
  std::snprintf(buf, sizeof buf, "  %2d  %-24s %-11s %s", r.spec->number, r.spec->id.c_str(),
                state, note.c_str());
  return buf;
}

std::string report_details(const puzzle_report& r) {
  if (r.status != status::failed) return {};
  std::ostringstream s;
  const std::string file = kernel_file_of(r);
  s << "--- " << r.spec->number << " " << r.spec->id << " (" << file << ")\n";
  for (const auto& d : r.diagnostics) {
    std::istringstream lines(d.message);
    std::string line;
    while (std::getline(lines, line)) s << "  " << line << "\n";
  }
  return s.str();
}

std::string report_json(const puzzle_report& r) {
  std::ostringstream s;
  const auto& spec = *r.spec;
  s << "{\"id\": " << json_string(spec.id) << ", \"number\": " << spec.number
    << ", \"title\": " << json_string(spec.title) << ", \"impl\": " << json_string(impl_name(r.which))
    << ", \"passed\": " << (r.passed() ? "true" : "false")
    << ", \"status\": " << json_string(status_name(r.status));
  s << ", \"case\": {\"sizes\": {";
  for (std::size_t i = 0; i < r.sizes.size() && i < spec.size_names.size(); ++i)
    s << (i ? ", " : "") << json_string(spec.size_names[i]) << ": " << r.sizes[i];
  s << "}, \"blocks\": {";
  for (std::size_t i = 0; i < r.blocks.size() && i < spec.block_names.size(); ++i)
    s << (i ? ", " : "") << json_string(spec.block_names[i]) << ": " << r.blocks[i];
  s << "}, \"order\": " << json_string(r.order) << ", \"seed\": " << r.seed
    << ", \"index\": " << r.case_index << ", \"number\": " << r.case_index + 1
    << ", \"about\": " << json_string(r.case_about)
    << ", \"dtype\": " << json_string(dtype_name(r.dtype)) << "}";
  s << ", \"runs\": " << r.runs << ", \"gpu_runs\": " << r.gpu_runs;
  if (!r.gpu_note.empty()) s << ", \"gpu\": " << json_string(r.gpu_note);
  s << ", \"diagnostics\": [";
  for (std::size_t i = 0; i < r.diagnostics.size(); ++i) {
    const auto& d = r.diagnostics[i];
    s << (i ? ", " : "") << "{\"kind\": " << json_string(d.kind)
      << ", \"message\": " << json_string(d.message);
    if (d.program[0] >= 0)
      s << ", \"program\": [" << d.program[0] << ", " << d.program[1] << ", " << d.program[2]
        << "]";
    if (!d.buffer.empty()) s << ", \"buffer\": " << json_string(d.buffer);
    if (!d.source.empty()) s << ", \"source\": " << json_string(d.source);
    if (!d.cause.empty()) s << ", \"cause\": " << json_string(d.cause);
    if (!d.lanes.empty()) {
      s << ", \"lanes\": [";
      for (std::size_t k = 0; k < d.lanes.size(); ++k) {
        const auto& l = d.lanes[k];
        s << (k ? ", " : "") << "{\"lane\": " << l.lane << ", \"coords\": [";
        for (std::size_t c = 0; c < l.coords.size(); ++c) s << (c ? ", " : "") << l.coords[c];
        s << "], \"offset\": " << l.offset;
        if (!l.note.empty()) s << ", \"note\": " << json_string(l.note);
        s << "}";
      }
      s << "]";
    }
    s << "}";
  }
  s << "], \"counters\": {";
  for (std::size_t i = 0; i < r.counters.size(); ++i) {
    const auto& c = r.counters[i];
    s << (i ? ", " : "") << json_string(c.name) << ": {\"loads\": " << c.loads
      << ", \"stores\": " << c.stores << ", \"bytes\": " << c.bytes
      << ", \"masked_lanes\": " << c.masked << ", \"max_element_reads\": " << c.max_element_reads
      << ", \"max_program_element_reads\": " << c.max_program_element_reads
      << ", \"max_program_loads\": " << c.max_program_loads << "}";
  }
  s << "}}";
  return s.str();
}

}  // namespace tp
