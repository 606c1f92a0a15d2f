// Running the real tilepuzzles program from a test, and a strict JSON reader to look at what it
// prints. Shared by the command-line tests (tests/cli.cpp, tests/puzzle_modules.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/spec.hpp"

#ifndef TILEPUZZLES_BINARY
#error "TILEPUZZLES_BINARY must name the built tilepuzzles program (see tests/CMakeLists.txt)"
#endif

namespace cli_support {

struct cli_result {
  int exit_code = -1;  // -1 when the program did not exit normally
  std::string out;
  std::string err;
};

// Runs `tilepuzzles ARGS` and collects its exit code, stdout and stderr; exit_code is -2 when
// the program could not be started. No Catch2 macros: safe to call from several threads.
inline cli_result run_cli_unchecked(const std::string& args) {
  cli_result r;
  char err_path[] = "/tmp/tilepuzzles-cli-test-XXXXXX";
  const int fd = ::mkstemp(err_path);
  if (fd < 0) return {-2, "", "mkstemp failed"};
  ::close(fd);
  const std::string command =
      std::string("'") + TILEPUZZLES_BINARY + "' " + args + " 2>'" + err_path + "'";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    ::unlink(err_path);
    return {-2, "", "popen failed"};
  }
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int status = ::pclose(pipe);
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  std::ifstream err(err_path);
  std::ostringstream text;
  text << err.rdbuf();
  r.err = text.str();
  ::unlink(err_path);
  return r;
}

// The same, noting the command and what it printed for the test's report.
inline cli_result run_cli(const std::string& args) {
  cli_result r = run_cli_unchecked(args);
  REQUIRE(r.exit_code != -2);
  UNSCOPED_INFO("$ tilepuzzles " << args << "\n[exit " << r.exit_code << "]\n[stdout]\n"
                                 << r.out << "[stderr]\n"
                                 << r.err);
  return r;
}

// The line of a check's text output about one puzzle, e.g. "   1  vector-add   solved   ...".
inline std::string puzzle_line(const std::string& out, const tp::puzzle_spec& p) {
  const std::regex line("^ +" + std::to_string(p.number) + " +" + p.id + " .*$",
                        std::regex::multiline);
  std::smatch m;
  if (!std::regex_search(out, m, line)) return {};
  return m.str();
}

// ---------------------------------------------------------------------------------------------
// A small, strict JSON reader (RFC 8259): enough to say whether the output is JSON and to look
// inside it.

struct json {
  enum class type { null, boolean, number, string, array, object };
  type t = type::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<json> items;
  std::map<std::string, json> members;

  bool has(const std::string& key) const { return t == type::object && members.count(key); }
  const json& operator[](const std::string& key) const {
    const auto it = members.find(key);
    if (t != type::object || it == members.end())
      throw std::runtime_error("no member \"" + key + "\"");
    return it->second;
  }
};

class json_reader {
 public:
  explicit json_reader(const std::string& text) : s_(text) {}

  json document() {
    json v = value();
    space();
    if (i_ != s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("invalid JSON at offset " + std::to_string(i_) + ": " + what);
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  bool literal(const char* word) {
    const std::string w(word);
    if (s_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }

  json value() {
    space();
    json v;
    const char c = peek();
    if (c == '{') {
      v.t = json::type::object;
      ++i_;
      space();
      if (peek() == '}') {
        ++i_;
        return v;
      }
      for (;;) {
        space();
        if (peek() != '"') fail("expected a member name");
        std::string key = string();
        if (v.members.count(key)) fail("duplicate member \"" + key + "\"");
        space();
        expect(':');
        v.members.emplace(std::move(key), value());
        space();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.t = json::type::array;
      ++i_;
      space();
      if (peek() == ']') {
        ++i_;
        return v;
      }
      for (;;) {
        v.items.push_back(value());
        space();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.t = json::type::string;
      v.string = string();
      return v;
    }
    if (literal("true")) {
      v.t = json::type::boolean;
      v.boolean = true;
      return v;
    }
    if (literal("false")) {
      v.t = json::type::boolean;
      return v;
    }
    if (literal("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) {
      v.t = json::type::number;
      v.number = number();
      return v;
    }
    fail("expected a value");
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      const unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return out;
      if (c < 0x20) fail("raw control character in a string");
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          for (int k = 0; k < 4; ++k)
            if (!std::isxdigit(static_cast<unsigned char>(s_[i_ + k]))) fail("bad \\u escape");
          const unsigned code = std::stoul(s_.substr(i_, 4), nullptr, 16);
          i_ += 4;
          if (code < 0x80) out += static_cast<char>(code);
          else out += '?';  // enough for these tests
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  double number() {
    const std::size_t start = i_;
    auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == from) fail("expected digits");
    };
    if (peek() == '-') ++i_;
    if (peek() == '0') ++i_;
    else digits();
    if (peek() == '.') {
      ++i_;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      digits();
    }
    return std::stod(s_.substr(start, i_ - start));
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

inline json parse_json(const std::string& text) {
  try {
    return json_reader(text).document();
  } catch (const std::runtime_error& e) {
    FAIL(e.what());
    return json{};
  }
}

inline bool is_count(const json& v) {
  return v.t == json::type::number && v.number >= 0 && v.number == static_cast<long long>(v.number);
}

}  // namespace cli_support
