#!/usr/bin/env bash
# The tensor descriptors' GPU checks in one call (issue 29): build the GPU tests for the warp
# counts their descriptor kernels use, run the descriptor parity tests and then every GPU test,
# compute-sanitizer's four tools on the descriptor tests, and bench/probes/descriptor_probe.cu (a copy
# through descriptors and through plain loads, timed beside cudaMemcpy). Run from the repository root on a
# machine with an NVIDIA GPU (sm_90a) and nvcc:
#
#   bash bench/probes/tma_session.sh [OUTPUT_DIR]
#
# Without network access, put the .deb files of libeigen3-dev, libcli11-dev and catch2 in .deps/
# (apt-get download ...), as for bench/gpu_session.sh. OUTPUT_DIR gets summary.txt and the logs.
set -uo pipefail
out=${1:-${OUT:-/tmp/tilepuzzles-tma}}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
started=$SECONDS
elapsed() { echo "$((SECONDS - started)) s"; }

say "== machine (commit $(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown))"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
} 2>&1 | tee -a "$summary"

prefix=()
if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/tilepuzzles-deps; done
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/tilepuzzles-deps/usr)
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
build=build-gpu
say "== build ($(elapsed))"
if ! cmake -S . -B $build "${generator[@]}" "${prefix[@]}" -DTILEPUZZLES_CUDA=ON -DTILEPUZZLES_GPU_TESTS=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90a "-DTILEPUZZLES_GPU_TEST_WARPS=1;4;8" > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log" | tee -a "$summary"; exit 1
fi
if ! cmake --build $build -j"$(nproc)" --target tilepuzzles_gpu_tests >> "$out/build.log" 2>&1; then
  grep -E "error" "$out/build.log" | head -30 | tee -a "$summary"; exit 1
fi
say "built ($(elapsed))"

tests=./$build/tests/tilepuzzles_gpu_tests
say "== descriptor parity ($(elapsed))"
$tests "[descriptor]" > "$out/descriptor.txt" 2>&1
tail -4 "$out/descriptor.txt" | tee -a "$summary"
say "== every GPU test ($(elapsed))"
$tests > "$out/tests.txt" 2>&1
tail -4 "$out/tests.txt" | tee -a "$summary"

for tool in memcheck racecheck synccheck initcheck; do
  say "== compute-sanitizer $tool on [descriptor] ($(elapsed))"
  compute-sanitizer --tool $tool --error-exitcode 3 $tests "[descriptor]" > "$out/$tool.txt" 2>&1
  echo "exit $?" >> "$out/$tool.txt"
  grep -E "ERROR SUMMARY|exit [0-9]+|All tests passed|test cases" "$out/$tool.txt" | tail -3 | tee -a "$summary"
done
say "== a copy through descriptors and through plain loads (bench/probes/descriptor_probe.cu) ($(elapsed))"
if nvcc -std=c++20 --expt-relaxed-constexpr -gencode=arch=compute_90a,code=sm_90a -O3 -I . \
    -I /tmp/tilepuzzles-deps/usr/include/eigen3 -I /usr/include/eigen3 -o /tmp/descriptor_probe \
    bench/probes/descriptor_probe.cu > "$out/probe.txt" 2>&1; then
  /tmp/descriptor_probe >> "$out/probe.txt" 2>&1
fi
tee -a "$summary" < "$out/probe.txt"
say "done ($(elapsed))"
