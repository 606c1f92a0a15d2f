#!/usr/bin/env bash
# One probe of bench/probes/matmul_fast_probe.cu under Nsight Compute and cuobjdump, on the GPU
# machine: its first fp16 launch's speed of light, warp states and scheduler statistics, the
# executed instructions and stall samples of each SASS line (counts.csv), and the kernel's SASS
# (sass.txt). Usage: bash bench/probes/matmul_fast_profile.sh PROBE_BINARY OUT_DIR
set -uo pipefail
probe=${1:?usage: matmul_fast_profile.sh PROBE_BINARY OUT_DIR}
out=${2:?usage: matmul_fast_profile.sh PROBE_BINARY OUT_DIR}
mkdir -p "$out"
export PROBE_SIZES=${PROBE_SIZES:-4096}
ncu --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section LaunchStats --section SourceCounters -k regex:program -c 1 \
  -f -o "$out/profile" "$probe" >"$out/ncu.log" 2>&1
ncu -i "$out/profile.ncu-rep" >"$out/profile.txt" 2>&1
ncu -i "$out/profile.ncu-rep" --page source --csv --print-source sass >"$out/counts.csv" 2>&1
rm -f "$out/profile.ncu-rep"
cuobjdump -sass "$probe" | head -c 8000000 >"$out/sass.txt"
