// Catch2 3 (Homebrew's catch2, Debian trixie's) under the names of Catch2 2 that the tests use:
// tests/CMakeLists.txt puts this folder first on the tests' include path where find_package
// finds Catch2 3, so that `#include <catch2/catch.hpp>` (a header Catch2 3 no longer has) still
// works. Catch2 3 moved its string matchers into Catch::Matchers and `Approx` into Catch, and its
// main() into the Catch2WithMain library (CATCH_CONFIG_MAIN and CATCH_CONFIG_RUNNER are ignored).
#pragma once

#include <catch2/catch_all.hpp>

#include <string>

namespace Catch {
// Catch2 2's Catch::Contains(string) is Catch2 3's ContainsSubstring (Catch2 3's own
// Matchers::Contains is the vector matcher).
inline Matchers::StringContainsMatcher Contains(const std::string& text,
                                               CaseSensitive cs = CaseSensitive::Yes) {
  return Matchers::ContainsSubstring(text, cs);
}
using Matchers::EndsWith;
using Matchers::Matches;
using Matchers::StartsWith;
}  // namespace Catch

using Catch::Approx;
