#!/usr/bin/env bash
# Issue 10's measurement on one host: Triton's interpreter (bench/triton_interpreter.py) and the
# simulator's benchmark, each on one core of its own, on the same seven workloads, then the
# simulator's table with the ratios to the interpreter measured here.
#
#   bash bench/side_by_side.sh [OUT_DIR] [BUILD_DIR]
#
# BUILD_DIR (default build-bench) holds a Release build of tilepuzzles_bench_simulator and
# tilepuzzles_bench_simulator_modules; it is configured and built here when they are missing
# (without network access put the .deb files of libeigen3-dev and libcli11-dev in .deps/, as for
# bench/gpu_session.sh). Python needs torch, triton 3.6 and numpy older than 2.4 (bench/README.md).
#
# The interpreter takes 10 to 20 s a launch on the three large softmax rows, so those get one
# timed launch (INTERP_RUNS_LARGE, default 1) and the others three (INTERP_RUNS, default 3). The
# interpreter runs on core INTERP_CPU (default 1), the simulator on SIM_CPU (default 3), at the
# same time: the simulator's runs are short, and neither process shares its core. COMMIT names
# the commit measured where the tree is a copy without its own git history.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:-${OUT:-/tmp/tilepuzzles-side-by-side}}
build=${2:-build-bench}
mkdir -p "$out"
python=${PYTHON:-python3}
interp_cpu=${INTERP_CPU:-1}
sim_cpu=${SIM_CPU:-3}
large="2loop-64x4096 3loop-256x8192 2loop-256x8192"
small="2loop-4x200 flash-1024x1024 matmul-256 matmul-512"

if ! { [ -x "$build/tilepuzzles_bench_simulator" ] && [ -x "$build/tilepuzzles_bench_simulator_modules" ]; }; then
  prefix=()
  if ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /tmp/tilepuzzles-deps; done
    prefix=(-DCMAKE_PREFIX_PATH=/tmp/tilepuzzles-deps/usr)
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S . -B "$build" "${generator[@]}" "${prefix[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DTILEPUZZLES_CUDA=OFF -DTILEPUZZLES_TESTS=OFF > "$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j"$(nproc)" --target tilepuzzles_bench_simulator \
    tilepuzzles_bench_simulator_modules > "$out/build.log" 2>&1 ||
    { grep -E "error" "$out/build.log" | head -30; exit 1; }
fi

echo "== host"
{ grep -m1 "model name" /proc/cpuinfo; echo "$(nproc) cores; core $interp_cpu's siblings: $(cat /sys/devices/system/cpu/cpu$interp_cpu/topology/thread_siblings_list 2>/dev/null); core $sim_cpu's: $(cat /sys/devices/system/cpu/cpu$sim_cpu/topology/thread_siblings_list 2>/dev/null)"; grep -m1 "cpu MHz" /proc/cpuinfo; uname -r; echo "commit ${COMMIT:-$(git log -1 --format='%h %s' 2>/dev/null)}"; } |
  tee "$out/host.txt"

# The interpreter: small rows, then large ones, each invocation its own CSV.
(
  PYTHONUNBUFFERED=1 "$python" bench/triton_interpreter.py $small --runs "${INTERP_RUNS:-3}" \
    --cpu "$interp_cpu" --csv "$out/interp-small.csv"
  PYTHONUNBUFFERED=1 "$python" bench/triton_interpreter.py $large --runs "${INTERP_RUNS_LARGE:-1}" \
    --cpu "$interp_cpu" --csv "$out/interp-large.csv"
) > "$out/interpreter.txt" 2>&1 &
interp=$!

# The simulator meanwhile, on its own core: the Release build's kernels and the modules' flags.
"$build/tilepuzzles_bench_simulator" --cpu "$sim_cpu" --csv "$out/sim.csv" > "$out/sim-alone.txt" 2>&1
"$build/tilepuzzles_bench_simulator_modules" --cpu "$sim_cpu" --csv "$out/sim-modules.csv" \
  > "$out/sim-modules-alone.txt" 2>&1
wait "$interp"
echo "== interpreter"
cat "$out/interpreter.txt"

{ cat "$out/interp-small.csv"; tail -n +2 "$out/interp-large.csv"; } > "$out/interp.csv"
# The simulator's rows against the interpreter's, after it finished (one process at a time).
echo "== simulator (Release), ratios to the interpreter above"
"$build/tilepuzzles_bench_simulator" --cpu "$sim_cpu" --interpreter "$out/interp.csv" \
  --csv "$out/sim-vs-interp.csv" 2>&1 | tee "$out/sim-vs-interp.txt"
echo "== simulator, kernels compiled as the puzzle modules are, ratios to the interpreter above"
"$build/tilepuzzles_bench_simulator_modules" --cpu "$sim_cpu" --interpreter "$out/interp.csv" \
  --csv "$out/sim-modules-vs-interp.csv" 2>&1 | tee "$out/sim-modules-vs-interp.txt"
