#!/usr/bin/env bash
# The flash-attention work of one GPU call (issues 9 and 12), run from the repository root:
#
#   bash bench/probes/flash_attention_session.sh OUTPUT_DIR [full|bench]
#
# bench: bench/gpu_session.sh's buildbench and bench with BENCH=flash-attention (`tilepuzzles
# bench flash-attention`, then PyTorch's SDPA and Triton beside it, BASELINES="copy attention"),
# and the registers, stack and spills of every flash-attention kernel of the bench module.
# full (default): everything built (gpu_session.sh's build) and the same bench, then ctest -L gpu
# and check --gpu --impl solution (gpu_session.sh's tests and check), then compute-sanitizer
# racecheck and synccheck on check --gpu of the two attention solutions.
# OUTPUT_DIR gets at most 8 files: summary.txt (everything short), bench.txt, bench.csv,
# baselines.txt, resources.txt, tests.txt, check.txt, sanitize.txt.
set -uo pipefail
out=${1:?OUTPUT_DIR}
mode=${2:-full}
mkdir -p "$out"
export BENCH=flash-attention BASELINES="copy attention"
summary="$out/summary.txt"
: > "$summary"
work=/tmp/flash-attention-session
rm -rf "$work"

if [ "$mode" = full ]; then
  bash bench/gpu_session.sh "$work/build" build >> "$summary" 2>&1 || exit 1
  echo "nvcc warnings in the build: $(grep -c "warning" "$work/build/build.log")" >> "$summary"
  steps=bench
else
  steps=buildbench,bench
fi
bash bench/gpu_session.sh "$work/bench" "$steps" >> "$summary" 2>&1
cp "$work/bench/bench.txt" "$work/bench/bench.csv" "$work/bench/baselines.txt" "$out/" 2>/dev/null
{
  echo "---- cuobjdump -res-usage build-gpu/tilepuzzles_bench_gpu.so (flash-attention kernels; SHARED is the 1 KiB sm_90 reserves and the arena's markers; the arena is 128 times the markers)"
  cuobjdump -res-usage build-gpu/tilepuzzles_bench_gpu.so 2>&1 | grep -A1 -E "Attention" |
      grep -oE "(_Z[A-Za-z0-9_]+|REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+)" | paste - - |
      while read -r name usage; do
        echo "$(echo "$name" | cu++filt | sed -E 's/, tl::gpu_w[0-9]+::ptr.*//; s/^void tp::gpu::program<//') $usage"
      done
} > "$out/resources.txt" 2>&1
cat "$out/resources.txt" >> "$summary"
[ "$mode" = full ] || exit 0

bash bench/gpu_session.sh "$work/correct" tests,check >> "$summary" 2>&1
cp "$work/correct/tests.txt" "$work/correct/check.txt" "$out/" 2>/dev/null
{
  for tool in racecheck synccheck; do
    echo "\$ compute-sanitizer --tool $tool tilepuzzles check --gpu --impl solution --no-isolate flash-attention flash-attention-simple"
    compute-sanitizer --tool "$tool" ./build-gpu/tilepuzzles check --gpu --impl solution --no-isolate \
        flash-attention flash-attention-simple > "$work/$tool.txt" 2>&1
    status=$?
    grep -vE "^\s*$" "$work/$tool.txt" | tail -6
    echo "exit $status"
  done
} > "$out/sanitize.txt" 2>&1
grep -E "ERROR SUMMARY|RACECHECK SUMMARY|exit" "$out/sanitize.txt" | tee -a "$summary"
