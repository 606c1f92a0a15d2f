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
#   sh compile-logged.sh PREFIX KERNEL_FILE --num-warps-of-kernel PROBE_CXX PROBE_SOURCE COMPILER ARGS...
# does the same for a GPU module (checker/gpu_module.cu). The GPU backend's layouts depend on the
# warps per program, so tl is built for one count per translation unit (tile/config.hpp), and a
# kernel may pick its count per block size. So first PROBE_SOURCE (checker/gpu_warps_probe.cpp)
# is compiled by the host compiler PROBE_CXX with the compile's own -D, -I, -isystem and -std
# arguments and run: it prints each configuration's num_warps (PREFIX.warps). Then the module's
# source is compiled once per warp count printed, with -DTL_NUM_WARPS=N (and all the counts,
# -DTILEPUZZLES_WARP_COUNTS=their sum, one bit per count); each unit registers only
# the configurations of its count, and the first (-DTILEPUZZLES_MODULE_ENTRY=1) the module's entry
# point; the units are joined into the one object the build asked for (ld -r). One count, the
# usual case, is one compile, as before. Where the probe fails (a kernel that does not compile) or
# prints no valid count, the module is compiled once for 4 warps, and the compiler's messages say
# what is wrong.
#
#   sh compile-logged.sh PREFIX KERNEL_FILE --shards N COMPILER ARGS...
# does the same for a simulator module (checker/sim_module.cpp) as up to N units compiled at once,
# at most one per core (or per core the checker's build gives each of its jobs,
# TILEPUZZLES_MODULE_UNIT_CORES): unit s (-DTILEPUZZLES_MODULE_SHARD=s,
# -DTILEPUZZLES_MODULE_SHARDS=N) instantiates the kernel for the s-th of N runs of consecutive
# configurations, and unit 0 the module's entry point. A stub's compile is most of the learner's loop, and
# most of it is each configuration's code generation: on two idle cores, two units take about the
# time of the larger one. The units' messages go to PREFIX.log in the units' order, their objects
# are joined into the one object the build asked for (ld -r), and the first unit's depfile is the
# build's (every unit reads the same files). With one core, or N = 1, it is one compile, as before.
#
#   sh compile-logged.sh --sandbox PREFIX KERNEL_FILE ...
# is a stub's compile (cmake/puzzle_modules.cmake): when the checker that started the build asks
# for the sandbox (TILEPUZZLES_SANDBOX names its program, TILEPUZZLES_SANDBOX_MEMORY_MB the memory
# limit; checker/sandbox.hpp), every command that reads the stub (the compiler, the GPU module's
# probe and the probe's run) runs through `tilepuzzles __sandbox-compile`, inside bubblewrap.
sandbox=
if [ "$1" = "--sandbox" ]; then
  sandbox=${TILEPUZZLES_SANDBOX:-}
  shift
fi
prefix=$1
kernel=$2
shift 2

# in_sandbox COMMAND ARGS...: the command, in the stub's sandbox when there is one.
in_sandbox() {
  if [ -n "$sandbox" ]; then
    LC_ALL=C "$sandbox" __sandbox-compile --kernel "$kernel" \
      --memory-mb "${TILEPUZZLES_SANDBOX_MEMORY_MB:-4096}" -- "$@"
  else
    LC_ALL=C "$@"
  fi
}
shards=1
if [ "$1" = "--shards" ]; then
  shards=$2
  shift 2
  cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
  # The checker's build (checker/modules.cpp) says how many cores each of its jobs may use: one
  # module alone gets the machine's, a build of many one core each.
  case "${TILEPUZZLES_MODULE_UNIT_CORES:-}" in
    [1-9]|[1-9][0-9]) cores=$TILEPUZZLES_MODULE_UNIT_CORES ;;
  esac
  case "$shards" in 1|2|3|4) ;; *) shards=1 ;; esac
  if [ "$cores" -lt "$shards" ] 2>/dev/null; then shards=$cores; fi
fi
warps=
if [ "$1" = "--num-warps-of-kernel" ]; then
  probe_cxx=$2
  probe_source=$3
  shift 3
  : > "$prefix.probe.rsp"
  previous=
  for arg in "$@"; do
    case "$arg" in
      # A response file (one argument per line), every character but the plain ones escaped: the
      # kernel file's name is a quoted -D value.
      -D?*|-I?*|-isystem=*|-std=*)
        printf '%s\n' "$arg" | sed 's/[^A-Za-z0-9_./=+-]/\\&/g' >> "$prefix.probe.rsp" ;;
    esac
    if [ "$previous" = "-isystem" ] || [ "$previous" = "-I" ]; then
      printf '%s\n' "$previous" "$arg" | sed 's/[^A-Za-z0-9_./=+-]/\\&/g' >> "$prefix.probe.rsp"
    fi
    previous=$arg
  done
  rm -f "$prefix.warps"
  if in_sandbox "$probe_cxx" -DTL_EMULATED_GPU=1 -w "@$prefix.probe.rsp" "$probe_source" \
       -o "$prefix.probe" > "$prefix.probe.log" 2>&1 &&
     in_sandbox "$prefix.probe" > "$prefix.warps" 2>> "$prefix.probe.log"; then
    # The counts tl can be built for; any other value is refused at compile time with its message
    # (checker/kernel_signature.hpp), in whichever unit is built.
    warps=$(grep -E -x '1|2|4|8|16|32' "$prefix.warps" | sort -n -u | tr '\n' ' ')
  fi
  rm -f "$prefix.probe"
fi

depfile=
object=
previous=
for arg in "$@"; do
  if [ "$previous" = "-MF" ]; then depfile=$arg; fi
  if [ "$previous" = "-o" ]; then object=$arg; fi
  previous=$arg
done

# compile_unit DEFINES LOG OBJECT DEPFILE COMPILER ARGS...: the compile with the unit's
# definitions (DEFINES, -D flags separated by spaces), its object and depfile in place of the
# build's, its messages appended to LOG.
compile_unit() {
  unit_defines=$1 unit_log=$2 unit_object=$3 unit_depfile=$4
  shift 4
  compiler=$1
  shift
  count=$#
  previous=
  for arg in "$@"; do
    original=$arg
    if [ "$previous" = "-o" ]; then arg=$unit_object; fi
    if [ "$previous" = "-MF" ]; then arg=$unit_depfile; fi
    set -- "$@" "$arg"
    previous=$original
  done
  shift "$count"
  # shellcheck disable=SC2086
  in_sandbox "$compiler" $unit_defines "$@" 2>> "$unit_log"
}

cp -f "$kernel" "$prefix.source.part" 2>/dev/null
: > "$prefix.log.part"
# The counts as one number for every unit (nvcc splits a -D value at commas): each count is a
# power of two, so their sum has one bit per count.
warp_mask=0
for unit in $warps; do warp_mask=$((warp_mask + unit)); done
units=
if [ "$shards" -gt 1 ]; then
  # The simulator module's units, all at once; each one's messages in a log of its own, joined
  # in the units' order once all have ended.
  pids=
  shard=0
  while [ "$shard" -lt "$shards" ]; do
    if [ "$shard" = 0 ]; then unit_depfile=$depfile; else unit_depfile=$object.s$shard.d; fi
    : > "$prefix.log.s$shard"
    compile_unit "-DTILEPUZZLES_MODULE_SHARDS=$shards -DTILEPUZZLES_MODULE_SHARD=$shard" \
      "$prefix.log.s$shard" "$object.s$shard.o" "$unit_depfile" "$@" &
    pids="$pids $!"
    units="$units $object.s$shard.o"
    shard=$((shard + 1))
  done
  status=0
  for pid in $pids; do
    wait "$pid"
    unit_status=$?
    if [ "$status" -eq 0 ]; then status=$unit_status; fi
  done
  shard=0
  while [ "$shard" -lt "$shards" ]; do
    cat "$prefix.log.s$shard" >> "$prefix.log.part"
    rm -f "$prefix.log.s$shard"
    shard=$((shard + 1))
  done
elif [ "$(echo $warps | wc -w)" -le 1 ]; then
  if [ -n "$warps" ]; then
    defines="-DTL_NUM_WARPS=$warps -DTILEPUZZLES_WARP_COUNTS=$warp_mask -DTILEPUZZLES_MODULE_ENTRY=1"
  else
    defines=
  fi
  compile_unit "$defines" "$prefix.log.part" "$object" "$depfile" "$@"
  status=$?
else
  entry=1
  status=0
  for unit in $warps; do
    if [ "$entry" = 1 ]; then unit_depfile=$depfile; else unit_depfile=$object.w$unit.d; fi
    compile_unit "-DTL_NUM_WARPS=$unit -DTILEPUZZLES_WARP_COUNTS=$warp_mask -DTILEPUZZLES_MODULE_ENTRY=$entry" \
      "$prefix.log.part" "$object.w$unit.o" "$unit_depfile" "$@"
    status=$?
    units="$units $object.w$unit.o"
    entry=0
    if [ "$status" -ne 0 ]; then break; fi
  done
fi
if [ -n "$units" ]; then
  if [ "$status" -eq 0 ]; then
    # shellcheck disable=SC2086
    ${LD:-ld} -r -o "$object" $units 2>> "$prefix.log.part"
    status=$?
  fi
  # shellcheck disable=SC2086
  rm -f $units "$object".w*.d "$object".s*.d
fi
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
