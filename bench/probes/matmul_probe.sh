#!/usr/bin/env bash
# bench/probes/matmul_probe.cu once per configuration, built in parallel, then run one after another;
# run from the repository root on a GPU machine with nvcc:
#
#   bash bench/probes/matmul_probe.sh OUT_DIR "KERNEL B0 B1 BK STAGES WARPS [MIN_BLOCKS]" ...
#
# KERNEL is MatmulAs8, MatmulStaged or Prefetch8 (bench/probes/matmul_probe.cu), fp16 operands, or one
# of them with /fp32 (MatmulAs8/fp32, Prefetch8/fp32: exact fp32); STAGES is - for the kernels
# without stages; MIN_BLOCKS (MatmulStaged only) is its min_blocks_per_multiprocessor.
# Each configuration prints one line (time, TFLOP/s, registers, blocks per multiprocessor, the
# largest error of 64 checked elements) into OUT_DIR/probe.txt. With
# PROFILE=N, ncu profiles the N-th configuration (1-based: speed of light, occupancy, scheduler
# and warp-state statistics) and bench/sass_loops.py counts its main loop's SASS (profile.txt).
# With COUNTS=N, ncu counts the executed instructions of each SASS line of the N-th configuration
# and bench/source_counts.py sums them by opcode and lists the lines run at least
# COUNTS_FLOOR times (default 100000: at 4096^3 a line run once per warp and k-step of an 8-warp
# 128 x 128 x 64 kernel runs 524,288 times) into counts.txt, the CSV into counts.csv.
set -uo pipefail
out=${1:?usage: bash bench/probes/matmul_probe.sh OUT_DIR "KERNEL B0 B1 BK STAGES WARPS [MIN_BLOCKS]" ...}
shift
mkdir -p "$out"
export PATH=/usr/local/cuda/bin:$PATH
# PROBE_FLAGS: more nvcc flags, e.g. -I DIR ahead of the tree's headers for an A/B of a header.
flags=(${PROBE_FLAGS:-} -std=c++20 --expt-relaxed-constexpr -arch=sm_90a -I . -O3)
i=0
for config in "$@"; do
  i=$((i + 1))
  read -r kernel b0 b1 bk stages warps min_blocks <<<"$config"
  label="$kernel ${b0}x${b1}x${bk} w$warps"
  defines=()
  if [[ $kernel == */fp32 ]]; then kernel=${kernel%/fp32}; defines+=(-DKFLOAT); fi
  defines+=(-DTL_NUM_WARPS="$warps" -DKT="$kernel" -DKB0="$b0" -DKB1="$b1" -DKBK="$bk" -DKW="$warps")
  if [[ $stages != - ]]; then defines+=(-DKST="$stages"); label+=" s$stages"; fi
  if [[ -n $min_blocks ]]; then defines+=(-DKMB="$min_blocks"); label+=" b$min_blocks"; fi
  nvcc "${flags[@]}" "${defines[@]}" "-DLABEL=\"$label\"" -o "$out/probe$i" bench/probes/matmul_probe.cu \
    >"$out/build$i.txt" 2>&1 &
done
wait
i=0
for config in "$@"; do
  i=$((i + 1))
  if [[ -x $out/probe$i ]]; then "$out/probe$i"; else echo "configuration $i ($config): build failed"; tail -5 "$out/build$i.txt"; fi
done | tee "$out/probe.txt"
if [[ -n ${PROFILE:-} && -x $out/probe$PROFILE ]]; then
  {
    ncu --section SpeedOfLight --section Occupancy --section SchedulerStats --section WarpStateStats \
      --section LaunchStats -k regex:program -c 1 "$out/probe$PROFILE"
    cuobjdump -sass "$out/probe$PROFILE" | python3 bench/sass_loops.py program
  } >"$out/profile.txt" 2>&1
fi
if [[ -n ${COUNTS:-} && -x $out/probe$COUNTS ]]; then
  ncu --clock-control none --section SourceCounters --section InstructionStats -k regex:program -c 1 \
    -f -o "$out/counts" "$out/probe$COUNTS" >"$out/counts.log" 2>&1
  ncu -i "$out/counts.ncu-rep" --page source --csv --print-source sass >"$out/counts.csv" 2>&1
  python3 bench/source_counts.py "$out/counts.csv" HGMMA "${COUNTS_FLOOR:-100000}" >"$out/counts.txt" 2>&1
  rm -f "$out/counts.ncu-rep"
fi
rm -f "$out"/probe[0-9]*
