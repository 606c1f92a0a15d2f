#!/usr/bin/env bash
# scripts/install-deps.sh against stand-ins for the package managers, so that nothing is
# installed: each stand-in on PATH records how it was called.
#   install_deps.sh SOURCE_DIR brew    macOS (uname says Darwin): Homebrew is asked for the
#                                      formulae that are missing, and only for those
#   install_deps.sh SOURCE_DIR apt     Debian (uname says Linux), where brew is on PATH too:
#                                      apt-get is asked for the packages dpkg does not list, and
#                                      brew for nothing
set -euo pipefail
source=$1 route=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/bin log=$work/calls
mkdir -p "$bin"
: > "$log"
fail() { echo "FAILED: $*"; echo "calls:"; cat "$log"; exit 1; }

# A stand-in that records its arguments; uname answers $UNAME_S, brew's `list --versions` knows
# the formulae in $INSTALLED, dpkg-query the packages in $INSTALLED.
stub() {
  printf '#!/usr/bin/env bash\necho "%s $*" >> %q\n%s\n' "$1" "$log" "$2" > "$bin/$1"
  chmod +x "$bin/$1"
}
stub uname 'echo "$UNAME_S"'
stub brew 'if [ "$1" = list ]; then [[ " $INSTALLED " == *" $3 "* ]]; fi'
stub dpkg-query 'p=${@: -1}; if [[ " $INSTALLED " == *" $p "* ]]; then echo -n "install ok installed"; fi'
stub apt-get ''
stub sudo '"$@"'
run() { PATH="$bin:$PATH" bash "$source/scripts/install-deps.sh" "$@" > "$work/out" 2>&1 ||
          { cat "$work/out"; fail "install-deps.sh exited $?"; }; }
calls() { grep "^$1 " "$log" || true; }

case $route in
  brew)
    export UNAME_S=Darwin INSTALLED="cmake ninja"
    run
    [ "$(calls brew | grep -c '^brew install')" -eq 1 ] || fail "brew install was not called once"
    [ "$(calls brew | grep '^brew install')" = "brew install eigen catch2 cli11" ] ||
      fail "brew was asked for other formulae than the missing eigen, catch2 and cli11"
    [ -z "$(calls apt-get)$(calls dpkg-query)" ] || fail "the macOS route used Debian's tools"
    grep -q "no sandbox" "$work/out" || fail "the macOS route does not say that there is no sandbox"
    # Everything there: nothing installed.
    : > "$log"
    export INSTALLED="cmake ninja eigen catch2 cli11"
    run
    [ -z "$(calls brew | grep '^brew install')" ] || fail "brew install ran with nothing missing"
    # No Homebrew: a message that names it, and exit 1.
    rm "$bin/brew"
    if PATH="$bin:/usr/bin:/bin" bash "$source/scripts/install-deps.sh" > "$work/out" 2>&1; then
      fail "install-deps.sh passed on macOS without Homebrew"
    fi
    grep -q "Homebrew" "$work/out" || fail "without Homebrew it does not say what to install"
    ;;
  apt)
    export UNAME_S=Linux INSTALLED="cmake g++ make ninja-build bubblewrap"
    run
    [ -z "$(calls brew)" ] || fail "the Debian route called brew"
    [ "$(calls apt-get | grep ' install ')" = \
      "apt-get install -y -qq libeigen3-dev catch2 libcli11-dev libseccomp-dev" ] ||
      fail "apt-get was asked for other packages than the missing ones"
    # --clang (scripts/test-clang.sh): clang and libc++ besides, of the version asked for.
    : > "$log"
    export INSTALLED="cmake g++ make ninja-build libeigen3-dev catch2 libcli11-dev bubblewrap libseccomp-dev"
    TILEPUZZLES_CLANG_VERSION=17 run --clang
    [ "$(calls apt-get | grep ' install ')" = \
      "apt-get install -y -qq clang-17 libc++-17-dev libc++abi-17-dev" ] ||
      fail "--clang did not ask apt-get for clang-17, libc++-17-dev and libc++abi-17-dev"
    ;;
  *) echo "usage: $0 SOURCE_DIR brew|apt" >&2; exit 2 ;;
esac
echo "ok: the $route route asks for what is missing"
