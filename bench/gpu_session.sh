#!/usr/bin/env bash
# Everything a GPU machine is needed for, in one go: build with CUDA, run the GPU tests, check
# every solution with --gpu, time vector-add against copy bandwidth, and look at the SASS.
# Run from the repository root on a machine with an NVIDIA GPU and nvcc:
#   bash bench/gpu_session.sh [OUTPUT_DIR]
# Without network access, put the .deb files of libeigen3-dev, libcli11-dev and catch2 in .deps/
# (apt-get download ...) and they are unpacked locally.
set -uo pipefail
out=${1:-${OUT:-/tmp/tilepuzzles-gpu}}
mkdir -p "$out"
prefix=()
if ls .deps/*.deb >/dev/null 2>&1; then
  for f in .deps/*.deb; do dpkg -x "$f" /tmp/tilepuzzles-deps; done
  prefix=(-DCMAKE_PREFIX_PATH=/tmp/tilepuzzles-deps/usr)
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  nvcc --version | tail -1
} 2>&1 | tee "$out/gpu.txt"
cmake -S . -B build-gpu "${generator[@]}" "${prefix[@]}" -DTILEPUZZLES_CUDA=ON \
  -DTILEPUZZLES_GPU_TESTS=ON > "$out/configure.log" 2>&1 || { tail -30 "$out/configure.log"; exit 1; }
cmake --build build-gpu -j"$(nproc)" --target tilepuzzles tilepuzzles_bench_gpu \
  tilepuzzles_bench_simulator > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head -30; exit 1; }
echo "== ctest (all, GPU tests included)"
if cmake --build build-gpu -j"$(nproc)" >> "$out/build.log" 2>&1; then
  (cd build-gpu && ctest -j8 --output-on-failure 2>&1 | tail -15) | tee "$out/ctest.txt"
else
  echo "the test suite did not build: see build.log"; grep -E "error" "$out/build.log" | head
fi
echo "== tilepuzzles check --gpu --impl solution"
./build-gpu/tilepuzzles check --gpu --impl solution 2>&1 | tee "$out/check-gpu.txt"
echo "exit $?"
echo "== compute-sanitizer on the GPU vector-add"
compute-sanitizer --tool memcheck ./build-gpu/tilepuzzles check --gpu --impl solution --no-isolate 1 \
  > "$out/sanitizer.txt" 2>&1; tail -4 "$out/sanitizer.txt"
echo "== benchmark"
./build-gpu/tilepuzzles_bench_gpu 2>&1 | tee "$out/bench-gpu.txt"
./build-gpu/tilepuzzles_bench_simulator 2>&1 | tee "$out/bench-simulator.txt"
echo "== SASS of the vector-add kernels (memory instructions)"
cuobjdump -sass build-gpu/tilepuzzles_bench_gpu > "$out/sass.txt" 2>&1
grep -E "Function|LDG|STG" "$out/sass.txt" | sed 's/^ *//' | sort | uniq -c | sort -rn | head -12
