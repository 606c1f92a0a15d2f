// SHA-256 (FIPS 180-4), for the record of what a puzzle module was when it was built: the build
// writes each module's hash next to it (cmake/record-module-hash.cmake, with CMake's own
// file(SHA256)), and the checker loads only a module whose bytes still have that hash.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tp {

// The hash of `bytes` as 64 lowercase hex digits, as `cmake -E sha256sum` prints it.
std::string sha256_hex(std::string_view bytes);

// The hash of a file's bytes, or nothing when it cannot be read.
std::optional<std::string> sha256_of_file(const std::string& path);

}  // namespace tp
