#!/usr/bin/env bash
# Installs what tilepuzzles needs, if it is missing. Safe to run again.
# - Debian, Ubuntu (and everything but macOS): Debian's packages, through apt-get.
# - macOS: Homebrew's formulae, through brew. The sandbox (bubblewrap) is Linux-only, so on a Mac
#   `check` runs the stubs without it, and says so (docs/instructors.md, "The sandbox").
# With --test (scripts/test.sh) it also tries to install Chromium, for the HTML report's browser
# test; without it that test is skipped, so a Chromium that cannot be installed is only a warning.
set -euo pipefail

if [ "$(uname -s)" = Darwin ]; then
  # cmake and ninja build; eigen, catch2 and cli11 are the libraries the Debian packages below
  # bring. Homebrew's catch2 is Catch2 3, which tests/CMakeLists.txt takes through a header that
  # gives it Catch2 2's names. The compiler is Xcode's (xcode-select --install).
  formulae=(cmake ninja eigen catch2 cli11)
  if ! command -v brew >/dev/null; then
    echo "tilepuzzles: on macOS the dependencies come from Homebrew, which is not installed" \
         "(https://brew.sh); then run this again, or: brew install ${formulae[*]}" >&2
    exit 1
  fi
  missing=()
  for f in "${formulae[@]}"; do
    brew list --versions "$f" >/dev/null 2>&1 || missing+=("$f")
  done
  if [ ${#missing[@]} -ne 0 ]; then
    echo "tilepuzzles: installing ${missing[*]} with Homebrew"
    brew install "${missing[@]}"
  fi
  echo "tilepuzzles: on macOS there is no sandbox (bubblewrap needs Linux): check runs the stubs" \
       "without one, and grade needs --no-sandbox (docs/instructors.md)" >&2
  if [ "${1:-}" = "--test" ]; then
    echo "tilepuzzles: Chromium is not installed on macOS; the HTML report's browser test will be skipped" >&2
  fi
  exit 0
fi

# bubblewrap and libseccomp-dev: the sandbox a stub is compiled and run in (checker/sandbox.hpp).
packages=(cmake g++ make ninja-build libeigen3-dev catch2 libcli11-dev bubblewrap libseccomp-dev)
optional=()
if [ "${1:-}" = "--test" ]; then optional=(chromium); fi
# --clang (scripts/test-clang.sh): clang and LLVM's libc++, the toolchain a Mac builds with.
if [ "${1:-}" = "--clang" ]; then
  packages+=("clang-${TILEPUZZLES_CLANG_VERSION:-16}" "libc++-${TILEPUZZLES_CLANG_VERSION:-16}-dev"
             "libc++abi-${TILEPUZZLES_CLANG_VERSION:-16}-dev")
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
optional_missing=()
for p in "${optional[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || optional_missing+=("$p")
done
if [ ${#optional_missing[@]} -ne 0 ]; then
  if [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null; then
    as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo -n)
    if ! { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
             "${optional_missing[@]}" >/dev/null 2>&1 ||
           { "${as_root[@]}" apt-get update -qq >/dev/null 2>&1 &&
             "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
               "${optional_missing[@]}" >/dev/null 2>&1; }; }; then
      echo "tilepuzzles: could not install ${optional_missing[*]}; the HTML report's browser test will be skipped" >&2
    fi
  else
    echo "tilepuzzles: ${optional_missing[*]} is not installed; the HTML report's browser test will be skipped" >&2
  fi
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "tilepuzzles: installing ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "tilepuzzles: missing ${missing[*]}; install them as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
