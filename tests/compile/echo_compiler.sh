#!/bin/sh
# Stands in for nvcc in the tests of the GPU modules' compiler launcher (cmake/compile-logged.sh):
# prints the warp definitions of each compile, one line per unit, and writes an empty object where
# -o says, for the launcher to join.
line=
previous=
object=
for arg in "$@"; do
  case "$arg" in -DTL_NUM_WARPS=*|-DTILEPUZZLES_WARP_COUNTS=*|-DTILEPUZZLES_MODULE_ENTRY=*)
    line="$line$arg " ;;
  esac
  if [ "$previous" = "-o" ]; then object=$arg; fi
  previous=$arg
done
echo "compile: $line"
if [ -n "$object" ]; then : | ${CC:-cc} -x c -c - -o "$object"; fi
