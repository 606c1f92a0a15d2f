#!/usr/bin/env bash
# Everything a GPU machine is needed for, in one go; bench/RESULTS.md records what it printed.
# Run from the repository root on a machine with an NVIDIA GPU and nvcc:
#
#   bash bench/gpu_session.sh [OUTPUT_DIR] [STEPS]
#
# STEPS is a comma-separated subset of build,tests,check,sanitize,sass,bench (default: all):
#   build     configure and build the CLI, the GPU tests and the GPU benchmarks (sm_90)
#   tests     ctest -L gpu (the GPU parity tests), and their own report
#   check     tilepuzzles check --gpu --impl solution: every puzzle, the GPU after the simulator
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck on every GPU-capable
#             solution (check --gpu in one process) and on the layout tests' kernels
#   sass      registers and SASS of the 2-loop softmax, and its loops' instructions by kind
#             (bench/sass_loops.py)
#   bench     what max.NaN/min.NaN do with signed zeros; vector-add and the softmaxes against the
#             copy bandwidth of the same run
# Without network access, put the .deb files of libeigen3-dev, libcli11-dev and catch2 in .deps/
# (apt-get download ...) and they are unpacked locally. OUTPUT_DIR gets summary.txt (the short
# version of everything) and one log per step, at most 8 files.
set -uo pipefail
out=${1:-${OUT:-/tmp/tilepuzzles-gpu}}
steps=${2:-build,tests,check,sanitize,sass,bench}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
want() { [[ ",$steps," == *",$1,"* ]]; }
say() { echo "$*" | tee -a "$summary"; }
started=$SECONDS
elapsed() { echo "$((SECONDS - started)) s"; }

# A copy of the tree made for the GPU machine has no .git of its own: it carries COMMIT.
commit=${TILEPUZZLES_COMMIT:-$(cat COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
say "== machine (commit $commit)"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
  nvcc --version | tail -1
  compute-sanitizer --version 2>/dev/null | head -1
} 2>&1 | tee -a "$summary"

build=build-gpu
if want build; then
  prefix=()
  if ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /tmp/tilepuzzles-deps; done
    prefix=(-DCMAKE_PREFIX_PATH=/tmp/tilepuzzles-deps/usr)
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  say "== build ($(elapsed))"
  if ! cmake -S . -B $build "${generator[@]}" "${prefix[@]}" -DTILEPUZZLES_CUDA=ON \
      -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/build.log" 2>&1; then
    tail -30 "$out/build.log" | tee -a "$summary"; exit 1
  fi
  if ! cmake --build $build -j"$(nproc)" --target tilepuzzles tilepuzzles_gpu_tests \
      tilepuzzles_bench_gpu tilepuzzles_bench_gpu_softmax tilepuzzles_bench_gpu_float_facts \
      >> "$out/build.log" 2>&1; then
    grep -E "error" "$out/build.log" | head -30 | tee -a "$summary"; exit 1
  fi
  say "built ($(elapsed))"
fi

if want tests; then
  say "== ctest -L gpu ($(elapsed))"
  (cd $build && ctest -L gpu --output-on-failure 2>&1) > "$out/tests.txt"
  grep -E "tests passed|tests failed|Skipped|Failed" "$out/tests.txt" | tail -8 | tee -a "$summary"
  ./$build/tests/tilepuzzles_gpu_tests >> "$out/tests.txt" 2>&1
  tail -3 "$out/tests.txt" | tee -a "$summary"
fi

if want check; then
  say "== tilepuzzles check --gpu --impl solution ($(elapsed))"
  ./$build/tilepuzzles check --gpu --impl solution > "$out/check.txt" 2>&1
  echo "exit $?" >> "$out/check.txt"
  tee -a "$summary" < "$out/check.txt"
fi

if want sanitize; then
  say "== compute-sanitizer ($(elapsed))"
  : > "$out/sanitizer.txt"
  for tool in memcheck racecheck synccheck initcheck; do
    for run in check layouts; do
      if [ $run = check ]; then
        cmd=(./$build/tilepuzzles check --gpu --impl solution --no-isolate --order forward)
      else
        cmd=(./$build/tests/tilepuzzles_gpu_tests "[layouts],[semantics]")
      fi
      echo "---- $tool: ${cmd[*]}" >> "$out/sanitizer.txt"
      compute-sanitizer --tool $tool "${cmd[@]}" >> "$out/sanitizer.txt" 2>&1
      echo "exit $?" >> "$out/sanitizer.txt"
      say "$tool, $run: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.txt" | tail -1) ($(elapsed))"
    done
  done
fi

if want sass; then
  say "== SASS of the 2-loop softmax, B0 = 1, B1 = 1024, 4 warps ($(elapsed))"
  exe=$build/tilepuzzles_bench_gpu_softmax
  kernel=LongSoftmax2LoopILi1ELi1024
  {
    cuobjdump -res-usage "$exe" 2>&1 | grep -A1 "$kernel"
    # 1024 columns over 128 threads: 8 elements per thread per trip of each loop.
    cuobjdump -sass "$exe" 2>&1 | python3 bench/sass_loops.py "$kernel" 8
    cuobjdump -sass "$exe" 2>&1 | awk -v k="$kernel" '/Function :/{p = index($0, k) > 0} p'
  } > "$out/sass.txt"
  sed -n '2p' "$out/sass.txt" | tee -a "$summary"
  grep -E "instructions|^    " "$out/sass.txt" | head -24 | tee -a "$summary"
fi

if want bench; then
  say "== benchmarks ($(elapsed))"
  {
    ./$build/tilepuzzles_bench_gpu_float_facts
    ./$build/tilepuzzles_bench_gpu
    ./$build/tilepuzzles_bench_gpu_softmax
  } > "$out/bench.txt" 2>&1
  tee -a "$summary" < "$out/bench.txt"
fi
say "== done ($(elapsed))"
