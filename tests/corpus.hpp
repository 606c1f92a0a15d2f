// The corpus: wrong kernels, each of which must fail with its expected diagnostic kind on every
// one of 20 seeds, and correct twins, written differently from the reference solutions, that must
// pass. A file of the corpus registers its kernels with one line each and ends with
// TP_CORPUS_TESTS, which makes the ctest test that checks them:
//
//   TP_CORPUS_GROUP("softmax");
//   TP_WRONG(Softmax2LoopMaxFromZero, long_softmax_2loop, "nan-inf", "exp underflow");
//   TP_TWIN(Softmax2LoopWithExp2, long_softmax_2loop);
//   TP_CORPUS_TESTS("softmax")
//
// (the binding is the top of checker/specs/<stem>.hpp; the text after the kind, when not empty, must
// appear in the report's message). Kernels templated on their element type first (flash-attention's
// template <class T, int...>) register with TP_WRONG_TYPED and TP_TWIN_TYPED. A wrong kernel is
// checked with the puzzle's first block sizes only, or its first few with
// TP_WRONG_FIRST_CONFIGS (tests/check_as_puzzle.hpp says why); a twin with all of them.
// tests/corpus.cpp holds the corpus as a whole to its promises.
#pragma once

#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "check_as_puzzle.hpp"
#include "checker/isolate.hpp"

namespace corpus {

inline constexpr int wrong_seeds = 20;  // a wrong kernel fails with its kind on each of these
inline constexpr int twin_seeds = 20;   // a twin passes on each of these (the large tier on 3)

struct entry {
  std::string group;    // the TP_CORPUS_TESTS that checks it
  std::string puzzle;   // id
  std::string kernel;   // the kernel's name
  std::string expect;   // a diagnostic kind, or "solved" for a correct twin
  std::string message;  // text the diagnostic's message must contain; empty: any
  std::function<tp::puzzle_spec()> spec;
  bool isolated = false;  // crashes or hangs: checked in a child process
};

inline std::vector<entry>& entries() {
  static std::vector<entry> all;
  return all;
}
inline std::set<std::string>& tested_groups() {
  static std::set<std::string> groups;
  return groups;
}

// Count: how many of the puzzle's block sizes, from the first, the kernel is checked with
// (check_as_puzzle.hpp): a wrong kernel's up to the one it fails on, a twin's all of them.
template <template <int...> class Kernel, class Binding, std::size_t Count>
bool add(const char* group, const char* kernel, const char* expect, const char* message,
         bool isolated = false) {
  entries().push_back({group, Binding::id, kernel, expect, message,
                       [] { return as_puzzle::puzzle_with<Kernel, Binding, Count>(Binding::id); },
                       isolated});
  return true;
}

// The same for a kernel templated on its element type first (template <class T, int...>).
template <template <class, int...> class Kernel, class Binding, std::size_t Count>
bool add_typed(const char* group, const char* kernel, const char* expect, const char* message) {
  entries().push_back(
      {group, Binding::id, kernel, expect, message,
       [] { return as_puzzle::typed_puzzle_with<Kernel, Binding, Count>(Binding::id); }});
  return true;
}

inline bool add_test(const char* group) {
  tested_groups().insert(group);
  return true;
}

// Checks one entry on one seed; a description of what went wrong, or empty.
inline std::string check_entry(const entry& e, const tp::puzzle_spec& spec, std::uint64_t seed) {
  tp::check_options options;
  options.seed = seed;
  // A twin runs the large tier on three seeds of its 20 (the suite's time); a wrong kernel on
  // every seed, as it may be the large tier that catches it.
  options.large_tier = e.expect != "solved" || seed < 3;
  // The reruns that look for a load whose `other` decides a wrong result add to the message, not
  // to the kind: once per kernel (on seed 0) keeps them exercised on every wrong kernel, and the
  // other 19 seeds cost what they did before them.
  options.probe_other = seed == 0;
  std::string kind, message, details;
  tp::status status;
  if (e.isolated) {
    const auto r = tp::check_isolated(spec, options, 60, 0.3);
    status = r.status;
    details = r.line + "\n" + r.details;
    message = r.details;
    kind = r.status == tp::status::solved ? "" : r.line;
  } else {
    const auto r = tp::check_puzzle(spec, options);
    status = r.status;
    details = tp::report_line(r) + "\n" + tp::report_details(r);
    if (!r.diagnostics.empty()) {
      kind = r.diagnostics[0].kind;
      message = r.diagnostics[0].message;
    }
    if (r.diagnostics.size() > 1) return "more than one diagnostic:\n" + details;
  }
  if (e.expect == "solved") {
    if (status != tp::status::solved) return "the twin failed:\n" + details;
    return {};
  }
  if (status == tp::status::solved) return "the wrong kernel passed";
  const bool kind_matches = e.isolated ? kind.find(" " + e.expect) != std::string::npos
                                       : kind == e.expect;
  if (!kind_matches) return "expected " + e.expect + ", got:\n" + details;
  if (!e.message.empty() && message.find(e.message) == std::string::npos)
    return "the report does not say \"" + e.message + "\":\n" + details;
  return {};
}

// Checks every entry of a group on its seeds.
inline void check_group(const std::string& group) {
  int checked = 0;
  for (const entry& e : entries()) {
    if (e.group != group) continue;
    ++checked;
    const tp::puzzle_spec spec = e.spec();
    const int seeds = e.expect == "solved" ? twin_seeds : wrong_seeds;
    for (int seed = 0; seed < seeds; ++seed) {
      const std::string problem = check_entry(e, spec, static_cast<std::uint64_t>(seed));
      if (problem.empty()) continue;
      FAIL_CHECK(e.puzzle << ": " << e.kernel << ", seed " << seed << ": " << problem);
      break;  // one seed is enough to show it
    }
  }
  CHECK(checked > 0);
}

}  // namespace corpus

#define TP_CORPUS_CONCAT_(a, b) a##b
#define TP_CORPUS_CONCAT(a, b) TP_CORPUS_CONCAT_(a, b)

// The group this file's entries belong to.
#define TP_CORPUS_GROUP(name) \
  namespace {                 \
  constexpr const char* corpus_group = name; \
  }

// A wrong kernel: Kernel checked as puzzle <stem> must fail with `kind`, its message containing
// `text` (may be "").
#define TP_WRONG(Kernel, stem, kind, text)                                                     \
  static const bool TP_CORPUS_CONCAT(corpus_entry_, __LINE__) =                               \
      corpus::add<wrong::Kernel, tp::bindings::stem, 1>(corpus_group, #Kernel, kind, text)
// The same for a wrong kernel that passes the puzzle's first block sizes: checked with its first
// `configs` block sizes.
#define TP_WRONG_FIRST_CONFIGS(Kernel, stem, configs, kind, text)                              \
  static const bool TP_CORPUS_CONCAT(corpus_entry_, __LINE__) =                               \
      corpus::add<wrong::Kernel, tp::bindings::stem, configs>(corpus_group, #Kernel, kind, text)
// The same, checked in a child process: a kernel that crashes or never ends.
#define TP_WRONG_ISOLATED(Kernel, stem, kind, text)                                            \
  static const bool TP_CORPUS_CONCAT(corpus_entry_, __LINE__) =                               \
      corpus::add<wrong::Kernel, tp::bindings::stem, 1>(corpus_group, #Kernel, kind, text, true)
// The same for a kernel templated on its element type first (flash-attention's).
#define TP_WRONG_TYPED(Kernel, stem, kind, text)                                               \
  static const bool TP_CORPUS_CONCAT(corpus_entry_, __LINE__) =                               \
      corpus::add_typed<wrong::Kernel, tp::bindings::stem, 1>(corpus_group, #Kernel, kind, text)
// A correct twin: Kernel checked as puzzle <stem> must pass, with every block size.
#define TP_TWIN(Kernel, stem)                                                                  \
  static const bool TP_CORPUS_CONCAT(corpus_entry_, __LINE__) =                               \
      corpus::add<twin::Kernel, tp::bindings::stem, as_puzzle::all_configs>(                 \
          corpus_group, #Kernel, "solved", "")

#define TP_TWIN_TYPED(Kernel, stem)                                                            \
  static const bool TP_CORPUS_CONCAT(corpus_entry_, __LINE__) =                               \
      corpus::add_typed<twin::Kernel, tp::bindings::stem, as_puzzle::all_configs>(           \
          corpus_group, #Kernel, "solved", "")

#define TP_CORPUS_TESTS(name)                                                                  \
  static const bool TP_CORPUS_CONCAT(corpus_tests_, __LINE__) = corpus::add_test(name);       \
  TEST_CASE("Corpus " name ": each wrong kernel fails with its kind on 20 seeds, each twin "   \
            "passes",                                                                         \
            "[corpus]") {                                                                     \
    corpus::check_group(name);                                                                \
  }
