#include "checker/compile_errors.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <tuple>

namespace tp {

namespace {

// ---------------------------------------------------------------------------------------------
// Reading the compiler's lines

struct location {
  std::string file;
  int line = 0;
  int column = 0;
};

// A place in the instantiation or include chain of a diagnostic, innermost first.
struct frame {
  location where;
  std::string what;  // the function or template instantiated there, as the compiler names it
};

struct error_event {
  location where;
  std::string message;
  std::vector<std::string> notes;
  std::vector<frame> frames;    // "In instantiation of" and "required from", innermost first
  std::vector<location> includes;  // "In file included from", innermost first
  std::string excerpt;          // the source line the compiler quoted, if it did
};

std::string strip_colours(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "FILE:LINE:COL", "FILE:LINE" or "FILE" (g++), "FILE(LINE)" (nvcc's front end).
location parse_location(std::string s) {
  location loc;
  if (!s.empty() && s.back() == ')') {
    const std::size_t open = s.rfind('(');
    if (open != std::string::npos && all_digits(s.substr(open + 1, s.size() - open - 2))) {
      loc.file = s.substr(0, open);
      loc.line = std::stoi(s.substr(open + 1));
      return loc;
    }
  }
  std::vector<int> numbers;
  for (int k = 0; k < 2; ++k) {
    const std::size_t colon = s.rfind(':');
    if (colon == std::string::npos || !all_digits(s.substr(colon + 1))) break;
    numbers.insert(numbers.begin(), std::stoi(s.substr(colon + 1)));
    s.resize(colon);
  }
  loc.file = s;
  if (!numbers.empty()) loc.line = numbers[0];
  if (numbers.size() > 1) loc.column = numbers[1];
  return loc;
}

// The text between the first pair of quotes ('...'), or everything after `from` when unquoted.
std::string quoted(const std::string& s, std::size_t from) {
  const std::size_t open = s.find('\'', from);
  const std::size_t close = s.rfind('\'');
  if (open == std::string::npos || close <= open) return s.substr(std::min(from, s.size()));
  return s.substr(open + 1, close - open - 1);
}

std::vector<error_event> read_errors(const std::string& log) {
  std::vector<error_event> errors;
  std::vector<frame> frames;
  std::vector<location> includes;
  bool context_done = true;  // the next context line starts a new context
  std::size_t last = std::string::npos;  // the error the following notes belong to

  auto start_context = [&] {
    if (context_done) {
      frames.clear();
      includes.clear();
      context_done = false;
    }
  };

  std::istringstream in(log);
  for (std::string raw; std::getline(in, raw);) {
    std::string line = replace_all(replace_all(strip_colours(raw), "\u2018", "'"), "\u2019", "'");
    while (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;

    // In file included from FILE:L:C,   /   from FILE:L:C:
    if (line.rfind("In file included from ", 0) == 0 || line.find_first_not_of(' ') != 0) {
      const std::size_t from = line.rfind("In file included from ", 0) == 0
                                   ? std::string("In file included from ").size()
                                   : line.find("from ") == line.find_first_not_of(' ')
                                         ? line.find("from ") + 5
                                         : std::string::npos;
      if (from != std::string::npos && line.find(' ', from) == std::string::npos) {
        start_context();
        std::string where = line.substr(from);
        if (!where.empty() && (where.back() == ',' || where.back() == ':')) where.pop_back();
        includes.push_back(parse_location(where));
        continue;
      }
    }

    // The quoted source line: "   15 |     auto sum = ..." right after the error.
    if (last != std::string::npos && errors[last].excerpt.empty() && errors[last].notes.empty()) {
      const std::size_t bar = line.find(" | ");
      const std::size_t first = line.find_first_not_of(' ');
      if (bar != std::string::npos && first < bar && all_digits(line.substr(first, bar - first))) {
        errors[last].excerpt = line.substr(bar + 3);
        continue;
      }
    }

    // nvcc: "          detected during:" and "            instantiation of "X" at line N of FILE"
    if (last != std::string::npos && line.find_first_not_of(' ') > 0) {
      const std::size_t at = line.find(" at line ");
      const std::size_t of = line.find(" of ", at == std::string::npos ? 0 : at);
      if (at != std::string::npos && of != std::string::npos) {
        // nvcc names the function instantiated *at* that line; the function the line is in is
        // the next one down the chain. Shift, so that a frame's `what` means the same as g++'s.
        const std::size_t open = line.find('"');
        const std::size_t close = line.rfind('"', at);
        const std::string instantiated =
            open != std::string::npos && close > open ? line.substr(open + 1, close - open - 1) : "";
        auto& chain = errors[last].frames;
        if (!chain.empty() && chain.back().what == "\x01") chain.back().what = instantiated;
        frame f;
        f.where.file = line.substr(of + 4);
        f.where.line = std::atoi(line.c_str() + at + 9);
        f.what = "\x01";  // filled in by the next line
        chain.push_back(f);
        continue;
      }
      continue;  // a source excerpt, a caret line, "detected during:"
    }

    // FILE:L:C: error: MESSAGE (and fatal error, note, warning); nvcc: FILE(L): error: MESSAGE
    std::size_t kind_at = std::string::npos;
    std::string kind;
    for (const char* k : {": fatal error: ", ": error: ", ": note: ", ": warning: "}) {
      const std::size_t at = line.find(k);
      if (at != std::string::npos && at < kind_at) {
        kind_at = at;
        kind = k;
      }
    }
    if (kind_at != std::string::npos) {
      const location where = parse_location(line.substr(0, kind_at));
      std::string message = line.substr(kind_at + kind.size());
      if (kind == ": error: " || kind == ": fatal error: ") {
        error_event e;
        e.where = where;
        e.message = message;
        e.frames = frames;
        e.includes = includes;
        errors.push_back(std::move(e));
        last = errors.size() - 1;
      } else if (kind == ": note: " && last != std::string::npos) {
        errors[last].notes.push_back(message);
      } else if (kind == ": warning: ") {
        last = std::string::npos;  // its notes are not ours
      }
      context_done = true;
      continue;
    }

    // FILE:L:C:   required from 'X'  /  required from here  /  required by substitution of 'X'
    const std::size_t required = line.find(":   ");
    if (required != std::string::npos) {
      start_context();
      frame f;
      f.where = parse_location(line.substr(0, required));
      f.what = quoted(line, required + 4);
      if (line.find("required from here", required) != std::string::npos) f.what.clear();
      frames.push_back(f);
      continue;
    }

    // FILE: In instantiation of 'X':   /   FILE: In member function 'X':   /   FILE: At global scope:
    const std::size_t in = line.find(": In ");
    const std::size_t at_global = line.find(": At global scope");
    if (in != std::string::npos || at_global != std::string::npos) {
      start_context();
      frames.clear();
      frame f;
      f.where = parse_location(line.substr(0, in != std::string::npos ? in : at_global));
      if (in != std::string::npos) f.what = quoted(line, in + 5);
      frames.push_back(f);
      continue;
    }
  }
  for (auto& e : errors)
    for (auto& f : e.frames)
      if (f.what == "\x01") f.what.clear();
  return errors;
}

// ---------------------------------------------------------------------------------------------
// Making a message short

// Template arguments nested deeper than `depth_limit` become "<...>".
std::string shorten_templates(const std::string& s, int depth_limit = 1) {
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // operator<, operator<<, operator<=, operator>...: not template brackets.
    if (s.compare(i, 8, "operator") == 0) {
      std::size_t j = i + 8;
      while (j < s.size() && j < i + 11 && std::string("<>=!&|+-*/%^~").find(s[j]) != std::string::npos)
        ++j;
      if (depth <= depth_limit) out += s.substr(i, j - i);
      i = j - 1;
      continue;
    }
    const bool opens =
        c == '<' && i > 0 &&
        (std::isalnum(static_cast<unsigned char>(s[i - 1])) || s[i - 1] == '_' || s[i - 1] == ' ');
    if (opens) {
      if (depth == depth_limit) out += "<...>";
      else if (depth < depth_limit) out += c;
      ++depth;
      continue;
    }
    if (c == '>' && depth > 0) {
      if (depth <= depth_limit) out += c;
      --depth;
      continue;
    }
    if (depth <= depth_limit) out += c;
  }
  return out;
}

// The index of the '>' that closes the '<' at `open`, or npos.
std::size_t closing_bracket(const std::string& s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && --depth == 0) return i;
  }
  return std::string::npos;
}

// The top-level template arguments in s[open + 1, close).
std::vector<std::string> template_arguments(const std::string& s, std::size_t open,
                                            std::size_t close) {
  std::vector<std::string> args(1);
  int depth = 0;
  for (std::size_t i = open + 1; i < close; ++i) {
    const char c = s[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      args.emplace_back();
      continue;
    }
    if (!(c == ' ' && args.back().empty())) args.back() += c;
  }
  for (auto& a : args)
    while (!a.empty() && a.back() == ' ') a.pop_back();
  return args;
}

// A data tile as the learner writes it: "basic_tile<float, tl::shape<4, 64>, tl::layouts::flat>"
// becomes "tile<float, 4, 64>" (the layout is the backend's business).
std::string learner_tile_types(std::string m) {
  for (std::size_t at = m.find("basic_tile<"); at != std::string::npos;
       at = m.find("basic_tile<", at + 1)) {
    const std::size_t open = at + 10;
    const std::size_t close = closing_bracket(m, open);
    if (close == std::string::npos) break;
    const auto args = template_arguments(m, open, close);
    if (args.size() < 2) continue;
    const std::size_t shape_open = args[1].find("shape<");
    if (shape_open == std::string::npos) continue;
    const std::size_t dims_open = shape_open + 5;
    const std::size_t dims_close = closing_bracket(args[1], dims_open);
    if (dims_close == std::string::npos) continue;
    std::string dims = args[1].substr(dims_open + 1, dims_close - dims_open - 1);
    m.replace(at, close - at + 1, "tile<" + args[0] + (dims.empty() ? "" : ", " + dims) + ">");
  }
  return m;
}

std::string clean_message(std::string m) {
  m = replace_all(m, "tl::cpu::", "tl::");
  m = replace_all(m, "tl::gpu::", "tl::");
  m = learner_tile_types(m);
  bool static_assertion = false;
  for (const char* prefix : {"static assertion failed: ", "static_assert failed: "})
    if (m.rfind(prefix, 0) == 0) {
      m = m.substr(std::string(prefix).size());
      static_assertion = true;
    }
  // nvcc: static assertion failed with "TEXT"
  if (m.rfind("static assertion failed with \"", 0) == 0) {
    m = m.substr(30);
    if (!m.empty() && m.back() == '"') m.pop_back();
    static_assertion = true;
  }
  // " {aka 'std::basic_ostream<char>'}"
  for (std::size_t at; (at = m.find(" {aka ")) != std::string::npos;) {
    const std::size_t end = m.find('}', at);
    m.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
  }
  // A static_assert's text is written for the learner: it stays whole.
  if (static_assertion) return m;
  m = shorten_templates(m);
  constexpr std::size_t max_length = 200;
  if (m.size() > max_length) m = m.substr(0, max_length - 3) + "...";
  return m;
}

// The block sizes in an instantiation's name, "[with int B0 = 1; int B1 = 32]" (g++) or
// "[with B0=1, B1=32]" (nvcc), as "B0=1, B1=32".
std::string block_sizes_in(const std::string& what) {
  const std::size_t with = what.rfind("[with ");
  if (with == std::string::npos) return {};
  // The parameters, split at ';' and at top-level ','.
  std::vector<std::string> parts(1);
  int depth = 0;
  for (std::size_t i = with + 6; i < what.size() && what[i] != ']'; ++i) {
    const char c = what[i];
    if (c == '<' || c == '(') ++depth;
    if (c == '>' || c == ')') --depth;
    if (c == ';' || (c == ',' && depth == 0)) parts.emplace_back();
    else parts.back() += c;
  }
  std::string out;
  for (std::string part : parts) {
    if (part.rfind(" int ", 0) == 0 || part.rfind("int ", 0) == 0) part = part.substr(part.find("int ") + 4);
    part.erase(std::remove(part.begin(), part.end(), ' '), part.end());
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    const std::string name = part.substr(0, eq), value = part.substr(eq + 1);
    const bool number = !value.empty() &&
                        std::all_of(value.begin() + (value[0] == '-' ? 1 : 0), value.end(),
                                    [](unsigned char c) { return std::isdigit(c); }) &&
                        value != "-";
    const bool identifier = std::all_of(name.begin(), name.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_';
    });
    if (number && identifier) out += (out.empty() ? "" : ", ") + name + "=" + value;
  }
  return out;
}

std::string read_line(const std::string& file, int number) {
  std::ifstream in(file);
  std::string line;
  for (int n = 1; n <= number && std::getline(in, line); ++n) {
    if (n == number) {
      const std::size_t first = line.find_first_not_of(" \t");
      line = first == std::string::npos ? "" : line.substr(first);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
      if (line.size() > 100) line = line.substr(0, 97) + "...";
      return line;
    }
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// What a Triton user most likely meant

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

bool has_keyword_argument(const std::string& code) {
  for (const char* name : {"mask", "other", "axis", "keep_dims", "keepdims"}) {
    for (std::size_t at = code.find(name); at != std::string::npos;
         at = code.find(name, at + 1)) {
      const bool word_start =
          at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_');
      std::size_t j = at + std::string(name).size();
      while (j < code.size() && code[j] == ' ') ++j;
      // An argument: after '(' or ',', so that `auto mask = ...` does not count.
      std::size_t k = at;
      while (k > 0 && code[k - 1] == ' ') --k;
      const bool argument = k > 0 && (code[k - 1] == '(' || code[k - 1] == ',');
      if (word_start && argument && j < code.size() && code[j] == '=' &&
          (j + 1 >= code.size() || code[j + 1] != '='))
        return true;
    }
  }
  return false;
}

// Python's `tl.load(...)`: `tl.` followed by a name, not part of a longer identifier.
bool has_python_member_access(const std::string& code) {
  for (std::size_t at = code.find("tl."); at != std::string::npos; at = code.find("tl.", at + 1)) {
    const bool word_start =
        at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_' ||
                     code[at - 1] == ':');
    const bool name_follows =
        at + 3 < code.size() && (std::isalpha(static_cast<unsigned char>(code[at + 3])) || code[at + 3] == '_');
    if (word_start && name_follows) return true;
  }
  return false;
}

// The file an #include could not find: g++ says "PATH: No such file or directory", clang
// "'PATH' file not found".
std::optional<std::string> missing_include(const std::string& message) {
  if (const std::size_t end = message.find(": No such file or directory");
      end != std::string::npos)
    return message.substr(0, end);
  if (const std::size_t end = message.find("' file not found");
      end != std::string::npos && !message.empty() && message[0] == '\'')
    return message.substr(1, end - 1);
  return std::nullopt;
}

std::string hint_for(const error_event& e, const std::string& message, const std::string& code) {
  // The message with what the compiler said around it: its notes and the functions it was in.
  std::string all = message + "\n";
  for (const auto& note : e.notes) all += note + "\n";
  for (const auto& f : e.frames) all += f.what + "\n";
  // An include of a file outside what the sandbox shows a stub's compile (the grader's files, a
  // system file): it is not there, whatever the path says.
  if (missing_include(message) &&
      (contains(code, "#include \"/") || contains(code, "#include </") || contains(code, "..")))
    return "a stub's compile sees only the project's headers (tile/tl.hpp), the standard library "
           "and the stub's own directory: include nothing else.";
  if (has_keyword_argument(code) &&
      (contains(message, "was not declared") || contains(message, "no match for 'operator='") ||
       contains(message, "no matching function") || contains(message, "cannot convert")))
    return "C++ has no keyword arguments: pass them in order, tl::load(pointer, mask, other) "
           "and tl::store(pointer, value, mask); tl.sum(x, axis=1) is tl::sum<1>(x).";
  if (has_python_member_access(code) &&
      (contains(message, "before '.' token") || contains(message, "expected unqualified-id") ||
       contains(message, "'tl' was not declared")))
    return "tl is a C++ namespace: write tl::load, tl::arange<B0>(), tl::program_id(0) with ::, "
           "not Python's tl.load (docs/tl.md has a Triton-to-tl table).";
  for (const char* f : {"arange", "zeros", "full"})
    if (contains(message, std::string("no matching function for call to '") + f + "(") ||
        contains(message, std::string("no matching function for call to 'tl::") + f + "("))
      return "a tile's size is a compile-time template argument: tl.arange(0, B0) is "
             "tl::arange<B0>(), tl.arange(s, s + B0) is s + tl::arange<B0>(), and "
             "tl.zeros([B0, B1], dtype=tl.float32) is tl::zeros<float, B0, B1>().";
  if (contains(message, "operator<<") && contains(all, "ostream"))
    return "a tile cannot be printed with <<: write tl::print(\"acc\", acc) instead, and run "
           "`tilepuzzles show N` to see what it prints (the simulator only).";
  if (contains(message, "operator&&") || contains(message, "operator||") ||
      contains(message, "operator!'") || contains(code, "&&") || contains(code, "||"))
    if (contains(all, "tl::") || contains(message, "tile"))
      return "&&, || and ! need one bool; masks are tiles: combine them lane by lane with & and | "
             "(as in Triton), e.g. (rows < N0).col() & (cols < T).row().";
  const bool std_minmax = contains(code, "std::max") || contains(code, "std::min") ||
                          contains(all, "std::max(") || contains(all, "std::min(") ||
                          contains(code, "fmax") || contains(code, "fmin");
  if (std_minmax)
    return "std::max and std::min compare two numbers. On tiles: tl::maximum(a, b) and "
           "tl::minimum(a, b) lane by lane, tl::max<axis>(x) and tl::min<axis>(x) to reduce.";
  for (const char* f : {"exp", "exp2", "log", "log2", "sqrt", "sin", "cos", "abs", "fabs", "expf"}) {
    const std::string call = std::string(f) + "(";
    if (contains(code, "std::" + call) || contains(code, " " + call) || contains(code, "(" + call) ||
        contains(message, "'" + call)) {
      if (contains(all, "tl::") || contains(all, "tile") || contains(all, "__enable_if"))
        return "std::" + std::string(f) + " and the rest of <cmath> take one number; on a tile "
               "use tl::exp, tl::exp2, tl::log, tl::log2, tl::sqrt, tl::abs (docs/tl.md lists "
               "them).";
    }
  }
  if ((contains(message, "to 'bool'") || contains(message, "contextually convert")) &&
      (contains(all, "tl::") || contains(all, "tile")))
    return "a tile holds one value per lane, so if (tile) or while (tile) has no single answer: "
           "choose lane by lane with tl::where(condition, a, b), or put the condition in the "
           "load's or store's mask.";
  if (contains(message, "does not broadcast to this tile's shape") || contains(message, "acc must be") ||
      contains(message, "the expression's dtype differs") ||
      (contains(message, "tl::tile<") &&
       (contains(message, "conversion from") || contains(message, "cannot convert") ||
        contains(message, "no match for 'operator='") || contains(message, "no matching function for call to 'tl::tile"))))
    return "a tl::tile<T, dims...> variable keeps the dtype and shape it was declared with: "
           "declare it with the shape of what you assign (or use auto), reduce first "
           "(tl::sum<1>(x)), or change the dtype with tl::cast<T>(x).";
  if (contains(message, "expected ';'") || contains(message, "expected ',' or ';'") ||
      contains(message, "expected ';' before"))
    return "the statement before this point is missing its ';' (look at the end of the line "
           "above).";
  if (contains(message, "is not a member of 'tl'"))
    return "tl has no such name: docs/tl.md lists what it offers, with a Triton-to-tl table.";
  if (contains(message, "was not declared in this scope"))
    return "is it spelled as declared? tl functions need their tl:: prefix, block sizes are the "
           "template parameters (B0, B1, ...).";
  return {};
}

}  // namespace

compile_report summarize_compile_log(const std::string& log, const compile_log_context& context) {
  const std::vector<error_event> errors = read_errors(log);
  const std::string learner_prefix = context.learner_dir + "/";
  const std::string solutions_prefix = context.source_dir + "/solutions/";
  auto is_learner = [&](const std::string& file) {
    return file == context.kernel_file || file.rfind(learner_prefix, 0) == 0;
  };
  auto shown = [&](const std::string& file) {
    if (file == context.kernel_file) return context.shown_kernel_file;
    if (file.rfind(learner_prefix, 0) == 0)
      return context.shown_learner_dir + "/" + file.substr(learner_prefix.size());
    if (file.rfind(context.source_dir + "/", 0) == 0) return file.substr(context.source_dir.size() + 1);
    return file;
  };

  struct distinct {
    std::string key;
    location where;  // in the learner's files, when found
    bool located = false;
    std::string message;
    std::string hint;
    std::vector<std::string> block_sizes;
  };
  std::vector<distinct> found;
  bool solution_included = false;

  for (const error_event& e : errors) {
    distinct d;
    // The learner's innermost line: the error's own place, else the first learner frame of the
    // instantiation chain, else the learner file that included the file with the error.
    std::string instantiated;  // the function the learner's line is in, with its block sizes
    if (is_learner(e.where.file) && e.where.line > 0) {
      d.where = e.where;
      d.located = true;
      for (const frame& f : e.frames)
        if (is_learner(f.where.file) && f.where.line == 0) instantiated = f.what;
    } else {
      for (const frame& f : e.frames) {
        if (is_learner(f.where.file) && f.where.line > 0) {
          d.where = f.where;
          d.located = true;
          instantiated = f.what;
          break;
        }
      }
    }
    const location* included_at = nullptr;
    for (const location& inc : e.includes)
      if (is_learner(inc.file)) {
        included_at = &inc;
        break;
      }
    if (!d.located && included_at) {
      d.where = *included_at;
      d.located = true;
    }

    // A stub that reaches for the reference solutions.
    std::string solution_file;
    if (e.where.file.rfind(solutions_prefix, 0) == 0) solution_file = shown(e.where.file);
    for (const location& inc : e.includes)
      if (inc.file.rfind(solutions_prefix, 0) == 0) solution_file = shown(inc.file);
    // In the sandbox solutions/ is not there at all: the include fails as a missing file.
    if (const std::optional<std::string> missing = missing_include(e.message);
        missing && is_learner(e.where.file)) {
      const std::string& path = *missing;
      if (path.rfind("solutions/", 0) == 0) solution_file = path;
      else if (path.rfind(solutions_prefix, 0) == 0) solution_file = shown(path);
    }
    if (contains(e.message, "poisoned \"solutions\"") || !solution_file.empty()) {
      solution_included = true;
      if (!solution_file.empty() && included_at) d.where = *included_at;
      d.message = solution_file.empty()
                      ? "uses the reference solutions: a stub cannot use anything under "
                        "solutions/."
                      : "includes " + solution_file + ": a stub cannot use the reference "
                        "solutions (anything under solutions/).";
      d.hint = "write the kernel yourself: tile/tl.hpp is all a stub includes.";
      d.key = "solutions " + shown(d.where.file) + ":" + std::to_string(d.where.line);
    } else {
      d.message = clean_message(e.message);
      // An error inside a library function the learner called (std::max, say): name it.
      const bool in_library = !is_learner(e.where.file) &&
                              e.where.file.rfind(context.source_dir + "/", 0) != 0;
      if (in_library && d.located && !e.frames.empty() && e.frames.front().where.line == 0) {
        const std::string& what = e.frames.front().what;
        const std::size_t paren = what.find('(');
        std::size_t begin = paren;
        while (begin != std::string::npos && begin > 0 &&
               (std::isalnum(static_cast<unsigned char>(what[begin - 1])) || what[begin - 1] == '_' ||
                what[begin - 1] == ':'))
          --begin;
        if (paren != std::string::npos && begin < paren)
          d.message = "in " + what.substr(begin, paren - begin) + ": " + d.message;
      }
      std::string code = d.located ? read_line(d.where.file, d.where.line) : "";
      if (code.empty() && d.located && d.where.file == e.where.file && d.where.line == e.where.line)
        code = e.excerpt;
      d.hint = hint_for(e, e.message, code);
      d.key = d.located ? shown(d.where.file) + ":" + std::to_string(d.where.line)
                        : e.where.file + ":" + std::to_string(e.where.line) + ":" + d.message;
    }
    const std::string blocks = block_sizes_in(instantiated);

    auto same = std::find_if(found.begin(), found.end(), [&](const distinct& x) { return x.key == d.key; });
    if (same == found.end()) {
      if (!blocks.empty()) d.block_sizes.push_back(blocks);
      found.push_back(std::move(d));
    } else if (!blocks.empty() &&
               std::find(same->block_sizes.begin(), same->block_sizes.end(), blocks) ==
                   same->block_sizes.end()) {
      same->block_sizes.push_back(blocks);
    }
  }
  // The learner's file from top to bottom; errors elsewhere after them.
  std::stable_sort(found.begin(), found.end(), [&](const distinct& a, const distinct& b) {
    auto rank = [&](const distinct& d) {
      return std::make_tuple(!d.located, d.where.file != context.kernel_file, d.where.line);
    };
    return rank(a) < rank(b);
  });
  if (solution_included)
    found.erase(std::remove_if(found.begin(), found.end(),
                               [](const distinct& d) { return d.key.rfind("solutions ", 0) != 0; }),
                found.end());

  compile_report report;
  report.errors = static_cast<int>(found.size());
  // After a syntax error the compiler is lost: what follows is mostly its consequences.
  const bool syntax_first = !found.empty() && found.front().message.rfind("expected ", 0) == 0;
  std::ostringstream s;
  const std::string what = context.gpu ? " does not compile for the GPU" : " does not compile";
  if (found.empty()) {
    // Not a compiler error we can read (a crash of the compiler, a missing header...).
    s << context.shown_kernel_file << what << ". The compiler said:\n";
    std::istringstream lines(strip_colours(log));
    int shown_lines = 0;
    for (std::string line; std::getline(lines, line) && shown_lines < 10; ++shown_lines)
      s << "  " << line.substr(0, 200) << "\n";
    s << "The compiler's full output: " << context.log_file;
    report.message = s.str();
    return report;
  }
  s << context.shown_kernel_file << what;
  if (found.size() > 1) s << " (" << found.size() << " errors)";
  s << ":\n";
  const std::size_t shown_errors = syntax_first ? 1 : 3;
  std::vector<std::string> hints;  // each said once
  for (std::size_t k = 0; k < found.size() && k < shown_errors; ++k) {
    const distinct& d = found[k];
    if (d.located) {
      s << shown(d.where.file) << ":" << d.where.line << ": " << d.message << "\n";
      const std::string code = read_line(d.where.file, d.where.line);
      if (!code.empty()) s << "    " << d.where.line << " | " << code << "\n";
      if (report.source.empty())
        report.source = shown(d.where.file) + ":" + std::to_string(d.where.line);
    } else {
      s << context.shown_kernel_file << ": " << d.message << "\n";
    }
    if (!d.block_sizes.empty()) {
      s << "  with ";
      for (std::size_t b = 0; b < d.block_sizes.size(); ++b)
        s << (b ? (b + 1 == d.block_sizes.size() ? " and " : "; ") : "") << d.block_sizes[b];
      s << "\n";
    }
    if (!d.hint.empty() && std::find(hints.begin(), hints.end(), d.hint) == hints.end()) {
      s << "  hint: " << d.hint << "\n";
      hints.push_back(d.hint);
    }
  }
  if (found.size() > shown_errors && syntax_first)
    s << "... and " << found.size() - shown_errors
      << " more, which may follow from this one: fix it first. All of them: ";
  else if (found.size() > shown_errors)
    s << "... and " << found.size() - shown_errors << " more, in ";
  else
    s << "The compiler's full output: ";
  s << context.log_file;
  report.message = s.str();
  return report;
}

}  // namespace tp
