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
prefix=$1
kernel=$2
shift 2
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
