#!/bin/sh
# Stands in for the compiler in the tests of the modules' compiler launcher (cmake/compile-logged.sh):
# prints the unit definitions of each compile, one line per unit, and writes an empty object where
# -o says, for the launcher to join. A simulator module's units run at once, so their lines go to
# the compiler's messages, which the launcher prints in the units' order.
line=
previous=
object=
units=
for arg in "$@"; do
  case "$arg" in -DTL_NUM_WARPS=*|-DTILEPUZZLES_WARP_COUNTS=*|-DTILEPUZZLES_MODULE_ENTRY=*)
    line="$line$arg " ;;
  -DTILEPUZZLES_MODULE_SHARDS=*|-DTILEPUZZLES_MODULE_SHARD=*)
    line="$line$arg "
    units=1 ;;
  esac
  if [ "$previous" = "-o" ]; then object=$arg; fi
  previous=$arg
done
if [ -n "$units" ]; then echo "compile: $line" >&2; else echo "compile: $line"; fi
if [ -n "$object" ]; then : | ${CC:-cc} -x c -c - -o "$object"; fi
