#!/bin/sh
# The compiler launcher of the puzzle modules (cmake/puzzle_modules.cmake):
#   sh compile-logged.sh PREFIX KERNEL_FILE COMPILER ARGS...
# runs one compile and keeps what the checker (checker/modules.cpp) needs to report on it and to
# tell whether the module is up to date:
#   PREFIX.log     the compiler's messages (also passed through to the build's output)
#   PREFIX.status  its exit status
#   PREFIX.deps    when it succeeds, the files it read (a copy of the compiler's depfile)
#   PREFIX.source  when it succeeds, the kernel file as it was compiled
# Messages in English whatever the locale, so that the checker can read them.
#
#   sh compile-logged.sh PREFIX KERNEL_FILE --num-warps-of-kernel COMPILER ARGS...
# does the same for a GPU module, compiled with -DTL_NUM_WARPS=N where N is the kernel file's
# `static constexpr int num_warps = N;` (the GPU backend's layouts depend on the warps, so tl is
# built for them: tile/config.hpp). With no such line, or lines with different values, nothing is
# defined (4 warps), and checker/gpu_launch.cuh says at compile time what to write instead.
prefix=$1
kernel=$2
shift 2
if [ "$1" = "--num-warps-of-kernel" ]; then
  shift
  # Line comments are dropped first: a commented-out alternative is not the kernel's.
  warps=$(sed 's|//.*||' "$kernel" 2>/dev/null |
          grep -E -o 'static[[:space:]]+constexpr[[:space:]]+int[[:space:]]+num_warps[[:space:]]*=[[:space:]]*[0-9]+[[:space:]]*;' |
          grep -E -o '[0-9]+' | sort -u)
  compiler=$1
  shift
  case "$warps" in
    ''|*[!0-9]*) set -- "$compiler" "$@" ;;
    *) set -- "$compiler" "-DTL_NUM_WARPS=$warps" "$@" ;;
  esac
fi
depfile=
previous=
for arg in "$@"; do
  if [ "$previous" = "-MF" ]; then depfile=$arg; fi
  previous=$arg
done
cp -f "$kernel" "$prefix.source.part" 2>/dev/null
LC_ALL=C "$@" 2> "$prefix.log.part"
status=$?
mv -f "$prefix.log.part" "$prefix.log"
cat "$prefix.log" >&2
echo "$status" > "$prefix.status"
if [ "$status" -eq 0 ]; then
  if [ -n "$depfile" ] && [ -f "$depfile" ]; then cp -f "$depfile" "$prefix.deps"; fi
  mv -f "$prefix.source.part" "$prefix.source" 2>/dev/null
else
  rm -f "$prefix.source.part"
fi
exit "$status"
