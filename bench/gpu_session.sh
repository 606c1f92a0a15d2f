#!/usr/bin/env bash
# Everything a GPU machine is needed for, in one go; bench/RESULTS.md records what it printed.
# Run from the repository root on a machine with an NVIDIA GPU and nvcc:
#
#   bash bench/gpu_session.sh [OUTPUT_DIR] [STEPS]
#
# STEPS is a comma-separated subset of build,buildbench,buildcli,tests,check,warps,sanitize,sass,bench,
# puzzles,resources,profile,sm80,staged,stagedprofile,sourcecounts,matmul,results (default: all but
# buildbench, buildcli, puzzles, resources, profile, staged, stagedprofile and results):
#   build     configure and build the CLI, every puzzle's solution modules (simulator and GPU),
#             the GPU tests and the GPU benchmarks (sm_90a: wgmma)
#   buildbench  configure and build only what bench and profile need: the CLI and the GPU
#             benchmarks
#   buildcli  configure and build the CLI only (`check` builds the modules it checks)
#   tests     ctest -L gpu (the GPU parity tests, and check --gpu of the solutions and the stubs
#             through the CLI), and the parity tests' own report
#   check     tilepuzzles check --gpu --impl solution: every puzzle (or those of $CHECK_PUZZLES),
#             the GPU after the simulator
#   warps     the solutions of five puzzles as a learner's stubs (check --puzzles DIR) with
#             num_warps = 1 and with num_warps = 8: their GPU modules are built for those counts
#   sanitize  compute-sanitizer memcheck, racecheck, synccheck and initcheck on every GPU-capable
#             solution (check --gpu in one process) and on the layout, dot and pipeline tests' kernels (wgmma among them)
#   sass      registers and SASS of the 2-loop softmax, and its loops' instructions by kind
#             (bench/sass_loops.py)
#   bench     what max.NaN/min.NaN do with signed zeros; `tilepuzzles bench $BENCH` (default:
#             every benchmark but matmul, which the matmul step runs: vector-add and the softmaxes
#             swept against the copy bandwidth of the same run, flash-attention in TFLOP/s:
#             bench.txt, bench.csv, bench.svg), then, where Python has torch and triton,
#             bench/torch_triton_baselines.py with the project's CSV beside PyTorch and Triton
#             (baselines.txt)
#   puzzles   the puzzles benchmarked through their specs (bench/gpu_bench_puzzles.cuh):
#             `tilepuzzles bench rms-norm layer-norm softmax-backward cross-entropy rope`, then
#             bench/torch_triton_baselines.py beside them; OUTPUT_DIR/puzzles/ is a folder for
#             bench/results/puzzles/ (bench.csv, baselines.csv, session.txt)
#   staged    compute-sanitizer memcheck, racecheck and synccheck on the GPU tests' [pipeline]
#             cases (dot's operands copied into its shared memory by a pipelined range), and the
#             registers, stack and shared memory of the bench's matmul kernels (staged.txt)
#   stagedprofile  the SASS instruction mix and an ncu profile of the fp16 matmul at 128 x 64 x 32,
#             staged by a 3-stage range and plain (stagedprofile.txt)
#   sourcecounts  ncu's executed instructions per SASS line of the fp16 matmul at 128 x 64 x 32
#             staged by a 3-stage range (source_staged.csv; bench/source_counts.py sums them)
#   matmul    compute-sanitizer memcheck, racecheck and synccheck on the matmul solution (tl::dot), then
#             `tilepuzzles bench matmul` (the solution in fp32 and its loop in TF32, fp16 and bf16
#             beside cuBLAS of each; matmul.csv) and cuBLAS fp32 through PyTorch (TF32 off) at
#             4096^3 as a cross-check
#   results   after bench and matmul: PyTorch and Triton beside both steps' rows
#             (bench/torch_triton_baselines.py --csv baselines.csv, the matmul table with them), then
#             bench/make_results.py writes RESULTS.md from them (copy bench.csv, matmul.csv,
#             baselines.csv and session.txt to bench/results/ to make bench/RESULTS.md again)
#   resources registers and spills of every benchmarked softmax and matmul kernel (cuobjdump
#             -res-usage) and the matmul kernel's SASS instruction mix (profile.txt)
#   profile   the same, then
#             Nsight Compute (ncu) on the first launch of each softmax-fused kernel at 256, 1024
#             and 16384 columns, of the 2-loop softmax at B1 = 2048 and 8192, and of the matmul
#             solution's block sizes at 4096^3 (profile.txt)
#   sm80      an Ampere build (sm_80, with its PTX) of every GPU solution module and the GPU tests,
#             then check --gpu of the solutions from it (the H100 runs the sm_80 PTX)
# Without network access, put the .deb files of libeigen3-dev, libcli11-dev and catch2 in .deps/
# (apt-get download ...) and they are unpacked locally. OUTPUT_DIR gets summary.txt (the short
# version of everything) and one log per step (the warps step appends to check.txt); with
# TILEPUZZLES_PACK_LOGS=1 the logs but summary.txt are packed into logs.tar.gz.
set -uo pipefail
out=${1:-${OUT:-/tmp/tilepuzzles-gpu}}
steps=${2:-build,tests,check,warps,sanitize,sass,bench,sm80,matmul}
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
if want build || want buildbench || want buildcli; then
  prefix=()
  if ls .deps/*.deb >/dev/null 2>&1; then
    for f in .deps/*.deb; do dpkg -x "$f" /tmp/tilepuzzles-deps; done
    prefix=(-DCMAKE_PREFIX_PATH=/tmp/tilepuzzles-deps/usr)
  fi
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  say "== build ($(elapsed))"
  if ! cmake -S . -B $build "${generator[@]}" "${prefix[@]}" -DTILEPUZZLES_CUDA=ON \
      -DTILEPUZZLES_GPU_TESTS=ON -DCMAKE_CUDA_ARCHITECTURES=90a > "$out/build.log" 2>&1; then
    tail -30 "$out/build.log" | tee -a "$summary"; exit 1
  fi
  targets="tilepuzzles"
  # The benchmark module's units take most of the build (minutes even on 16 cores): only the
  # steps that time or inspect it build it.
  for step in buildbench bench puzzles matmul sass resources profile staged stagedprofile sourcecounts; do
    if want $step; then
      targets="$targets tilepuzzles_bench_gpu_module tilepuzzles_bench_gpu_float_facts"
      targets="$targets tilepuzzles_shared_arena_probe"
      break
    fi
  done
  if want build; then
    targets="$targets tilepuzzles_gpu_tests $(cmake --build $build --target help | grep -oE "tilepuzzles_[a-z0-9_]+_solution(_gpu)?" | sort -u | xargs)"
  fi
  # shellcheck disable=SC2086
  if ! cmake --build $build -j"$(nproc)" --target $targets >> "$out/build.log" 2>&1; then
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
  # shellcheck disable=SC2086
  ./$build/tilepuzzles check --gpu --impl solution ${CHECK_PUZZLES:-} > "$out/check.txt" 2>&1
  echo "exit $?" >> "$out/check.txt"
  tee -a "$summary" < "$out/check.txt"
fi

if want warps; then
  say "== num_warps = 1 and 8: five solutions checked as a learner's stubs ($(elapsed))"
  for warps in 1 8; do
    dir=/tmp/tilepuzzles-warps$warps
    rm -rf "$dir" && mkdir -p "$dir"
    for f in solutions/*.hpp; do
      sed -e 's/namespace solutions/namespace puzzles/' \
          -e "s/static constexpr int num_warps = 4;/static constexpr int num_warps = $warps;/" \
          "$f" > "$dir/$(basename "$f")"
    done
    say "num_warps = $warps: $(grep -h "num_warps =" "$dir"/long_sum.hpp | xargs)"
    ./$build/tilepuzzles check --gpu --puzzles "$dir" long-sum long-softmax-2loop softmax-fused \
        flash-attention-simple conv2d > "$out/warps.txt" 2>&1
    echo "exit $?" >> "$out/warps.txt"
    grep -E "^ +[0-9]+ |exit" "$out/warps.txt" | tee -a "$summary"
    # The kernels' names carry tl's inline namespace, tl::gpu_wN: the warps the module was built for.
    module=$(find $build/puzzle-dirs -path "*warps$warps*" -name long_softmax_2loop.stub.gpu.so 2>/dev/null | head -1)
    [ -z "$module" ] && module=$(ls -t $build/puzzle-dirs/*/modules/long_softmax_2loop.stub.gpu.so 2>/dev/null | head -1)
    say "its long-softmax-2loop GPU module's kernels are in: $(cuobjdump -symbols "$module" 2>/dev/null | grep -oE "6gpu_w[0-9]|7gpu_w[0-9]{2}" | cut -c2- | sort -u | xargs)"
    cat "$out/warps.txt" >> "$out/check.txt"
  done
  rm -f "$out/warps.txt"
fi

if want sanitize; then
  say "== compute-sanitizer ($(elapsed))"
  : > "$out/sanitizer.txt"
  for tool in memcheck racecheck synccheck initcheck; do
    for run in check layouts; do
      if [ $run = check ]; then
        # shellcheck disable=SC2206
        cmd=(./$build/tilepuzzles check --gpu --impl solution --no-isolate --order forward ${CHECK_PUZZLES:-})
      else
        cmd=(./$build/tests/tilepuzzles_gpu_tests "[layouts],[semantics],[dot],[pipeline]")
        # Built by the build step only: without it, say so rather than quote the last summary.
        if [ ! -x "${cmd[0]}" ]; then
          say "$tool, $run: not run (no GPU tests in $build: the build step builds them)"
          continue
        fi
      fi
      echo "---- $tool: ${cmd[*]}" >> "$out/sanitizer.txt"
      compute-sanitizer --tool $tool "${cmd[@]}" >> "$out/sanitizer.txt" 2>&1
      echo "exit $?" >> "$out/sanitizer.txt"
      say "$tool, $run: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer.txt" | tail -1) ($(elapsed))"
    done
  done
fi

if want puzzles; then
  say "== the puzzles benchmarked through their specs ($(elapsed))"
  mkdir -p "$out/puzzles"
  benchmarks="rms-norm layer-norm softmax-backward cross-entropy rope"
  {
    echo "tilepuzzles bench $benchmarks --csv bench.csv"
    echo "python3 bench/torch_triton_baselines.py --only copy $benchmarks --project bench.csv --csv baselines.csv"
  } > "$out/puzzles/session.txt"
  # shellcheck disable=SC2086
  TILEPUZZLES_COMMIT=$commit ./$build/tilepuzzles bench $benchmarks --csv "$out/puzzles/bench.csv" \
      > "$out/puzzles/bench.txt" 2>&1
  echo "exit $?" >> "$out/puzzles/bench.txt"
  tee -a "$summary" < "$out/puzzles/bench.txt"
  if python3 -c "import torch" 2>/dev/null; then
    # shellcheck disable=SC2086
    PYTHONUNBUFFERED=1 python3 bench/torch_triton_baselines.py --only copy $benchmarks \
        --project "$out/puzzles/bench.csv" --csv "$out/puzzles/baselines.csv" > "$out/puzzles/baselines.txt" 2>&1
    echo "exit $?" >> "$out/puzzles/baselines.txt"
    tee -a "$summary" < "$out/puzzles/baselines.txt"
  fi
fi

if want sass; then
  say "== SASS of the 2-loop softmax, B0 = 1, B1 = 1024, 4 warps ($(elapsed))"
  exe=$build/tilepuzzles_bench_gpu.so
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
    ./$build/tilepuzzles_shared_arena_probe
    benchmarks=${BENCH:-vector-add softmax-fused long-softmax-2loop long-softmax-3loop flash-attention}
    echo "\$ tilepuzzles bench $benchmarks --csv bench.csv --plot bench.svg"
    # shellcheck disable=SC2086
    TILEPUZZLES_COMMIT=$commit ./$build/tilepuzzles bench $benchmarks --csv "$out/bench.csv" \
        --plot "$out/bench.svg"
    echo "exit $?"
  } > "$out/bench.txt" 2>&1
  tee -a "$summary" < "$out/bench.txt"
  if ! want results && python3 -c "import torch, triton" 2>/dev/null; then
    say "== PyTorch and Triton beside the project ($(elapsed))"
    PYTHONUNBUFFERED=1 python3 bench/torch_triton_baselines.py --only ${BASELINES:-copy vector-add softmax \
        long-softmax attention} --project "$out/bench.csv" > "$out/baselines.txt" 2>/dev/null
    echo "exit $?" >> "$out/baselines.txt"
    tee -a "$summary" < "$out/baselines.txt"
  fi
fi
if want profile || want resources; then
  say "== registers$(want profile && echo ", then ncu") ($(elapsed))"
  module=$build/tilepuzzles_bench_gpu.so
  sections=(--section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats
            --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis)
  (
    echo "---- cuobjdump -res-usage $module (softmax and matmul kernels; SHARED is the 1 KiB sm_90 reserves and the arena's markers; the arena is 128 times the markers, cuda/shared_arena.cuh)"
    cuobjdump -res-usage "$module" 2>&1 | grep -A1 -E "SoftmaxFused|LongSoftmax2Loop|Matmul" |
        grep -oE "(_Z[A-Za-z0-9_]+|REG:[0-9]+ STACK:[0-9]+ SHARED:[0-9]+ LOCAL:[0-9]+)" | paste - - |
        while read -r name usage; do echo "$(echo "$name" | cu++filt | sed -E 's/, tl::gpu_w[0-9]+::ptr.*//; s/^void tp::gpu::program<//') $usage"; done
    for kernel in MatmulILi128ELi64ELi16E MatmulILi256ELi64ELi16E; do
      echo "---- SASS instruction mix of the matmul solution, $kernel"
      cuobjdump -sass "$module" 2>&1 | awk -v k="$kernel" '/Function :/{p = index($0, k) > 0} p' |
          grep -oE "(LDS|STS|LDG|FFMA|BAR|SHFL|IMAD|LEA|IADD3|BRA)[A-Z0-9.]*" | sort | uniq -c | sort -rn
    done
    want profile || exit 0
    echo "---- ncu: softmax-fused (first launch of each kernel at 256, 1024, 16384 and 32768 columns)"
    ncu --clock-control none --kernel-name-base mangled \
        --kernel-id "::regex:SoftmaxFusedILi[124]ELi(256|1024|16384|32768)E:1" "${sections[@]}" \
        ./$build/tilepuzzles bench softmax-fused --runs 3 --warmup 1 2>&1 | grep -vE "^==PROF==|^\s*$"
    echo "---- ncu: long-softmax-2loop, B1 = 2048 and 8192 (first launch: 4096 x 1024)"
    ncu --clock-control none --kernel-name-base mangled \
        --kernel-id "::regex:LongSoftmax2LoopILi1ELi(2048|8192)E:1" "${sections[@]}" \
        ./$build/tilepuzzles bench long-softmax-2loop --runs 3 --warmup 1 2>&1 | grep -vE "^==PROF==|^\s*$"
    echo "---- ncu: the matmul solution (tilepuzzles bench matmul: first launch of each block size, 1024^3)"
    ncu --clock-control none --kernel-name-base mangled --kernel-id "::regex:MatmulILi:1" \
        "${sections[@]}" ./$build/tilepuzzles bench matmul --runs 3 --warmup 1 2>&1 | grep -vE "^==PROF==|^\s*$"
  ) > "$out/profile.txt" 2>&1
  grep -E "REG:" "$out/profile.txt" | grep Matmul | tee -a "$summary"
  say "profile: $(grep -c "Section: GPU Speed Of Light" "$out/profile.txt") kernels profiled ($(elapsed))"
fi
if want sm80; then
  say "== sm_80 build: every GPU solution module and the GPU tests ($(elapsed))"
  if cmake -S . -B build-sm80 "${generator[@]}" "${prefix[@]}" -DTILEPUZZLES_CUDA=ON \
        -DCMAKE_CUDA_ARCHITECTURES=80 > "$out/sm80.txt" 2>&1 &&
     cmake --build build-sm80 -j"$(nproc)" --target tilepuzzles tilepuzzles_gpu_tests \
        $(cmake --build build-sm80 --target help | grep -oE "tilepuzzles_[a-z0-9_]+_solution_gpu" | sort -u) \
        >> "$out/sm80.txt" 2>&1; then
    say "built for sm_80 ($(elapsed)): $(cuobjdump -lelf build-sm80/modules/long_softmax_2loop.solution.gpu.so | xargs)"
    ./build-sm80/tilepuzzles check --gpu --impl solution > "$out/sm80_check.txt" 2>&1
    say "check --gpu from the sm_80 build: exit $?, $(grep -c "matches the reference on the GPU" "$out/sm80_check.txt") puzzles match on the GPU ($(elapsed))"
    cat "$out/sm80_check.txt" >> "$out/sm80.txt" && rm -f "$out/sm80_check.txt"
  else
    grep -E "error" "$out/sm80.txt" | head -20 | tee -a "$summary"
  fi
fi
if want staged; then
  say "== dot's operands staged by a pipelined range: sanitizers on the [pipeline] tests, registers ($(elapsed))"
  : > "$out/staged.txt"
  for tool in memcheck racecheck synccheck; do
    cmd=(./$build/tests/tilepuzzles_gpu_tests "[pipeline]")
    echo "---- $tool: ${cmd[*]}" >> "$out/staged.txt"
    compute-sanitizer --tool $tool "${cmd[@]}" >> "$out/staged.txt" 2>&1
    echo "exit $?" >> "$out/staged.txt"
    say "$tool, [pipeline]: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/staged.txt" | tail -1) ($(elapsed))"
  done
  say "(SHARED: the 1 KiB sm_90 reserves and the arena's markers; the arena is 128 times the markers, cuda/shared_arena.cuh)"
  cuobjdump -res-usage $build/tilepuzzles_bench_gpu.so 2>/dev/null | c++filt |
      grep -A1 -E "Function .*Matmul(As|Staged)" | grep -oE "Matmul(As8?|Staged)<[^>]*>|REG:[0-9]+|STACK:[0-9]+|SHARED:[0-9]+|LOCAL:[0-9]+" |
      paste -sd' ' | sed 's/ Matmul/\nMatmul/g' | tee -a "$out/staged.txt" "$summary"
fi

if want stagedprofile; then
  say "== the fp16 matmul kernels' SASS instruction mix and ncu (128 x 64 x 32: staged, 3 stages; plain) ($(elapsed))"
  (
    exe=$build/tilepuzzles_bench_gpu.so
    for pattern in "MatmulStaged.*binary16.*Li128ELi64ELi32ELi3ELi4E" "MatmulAsIN.*binary16.*Li128ELi64ELi32EEE"; do
      name=$(cuobjdump -sass "$exe" 2>/dev/null | grep -oE "Function : [^ ]*" | grep -E "$pattern" | head -1 | cut -d' ' -f3)
      echo "---- SASS of $name"
      cuobjdump -sass -fun "$name" "$exe" 2>/dev/null | grep -oE "^ +/\*[0-9a-f]+\*/ +[A-Z][A-Z0-9_.]*" |
          awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -25 | paste -sd' '
    done
    for pattern in "MatmulStaged.*binary16.*Li128ELi64ELi32ELi3ELi4E" "MatmulAsIN.*binary16.*Li128ELi64ELi32EEE"; do
      echo "---- ncu: $pattern (first launch, 4096^3)"
      TILEPUZZLES_MATMUL_SIZES=4096 ncu --clock-control none --kernel-name-base mangled \
          --kernel-id "::regex:$pattern:1" --section SpeedOfLight --section Occupancy \
          --section WarpStateStats --section InstructionStats --section SchedulerStats \
          --section MemoryWorkloadAnalysis \
          ./$build/tilepuzzles bench matmul --runs 3 --warmup 1 2>&1 | grep -vE "^==PROF==|^\s*$" |
          sed -n '/Section: GPU Speed Of Light/,$p' | grep -vE "^ *-+ *$" | head -140
    done
  ) > "$out/stagedprofile.txt" 2>&1
  grep -E "^----|SM Busy|Executed Ipc A|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Compute \(SM\) Throughput|Memory Throughput|Duration|No Eligible|Stall|HMMA|^ *[0-9]+ [A-Z]" "$out/stagedprofile.txt" | head -60 | tee -a "$summary"
fi

if want sourcecounts; then
  say "== executed instructions per SASS line of the fp16 matmul at 128 x 64 x 32, staged by a 3-stage range ($(elapsed))"
  for pattern in "MatmulStaged.*binary16.*Li128ELi64ELi32ELi3ELi4E"; do
    TILEPUZZLES_MATMUL_SIZES=4096 ncu --clock-control none --kernel-name-base mangled \
        --kernel-id "::regex:$pattern:1" --section SourceCounters --section InstructionStats \
        -f -o /tmp/sourcecounts ./$build/tilepuzzles bench matmul --runs 1 --warmup 0 > /tmp/sourcecounts.log 2>&1
    ncu -i /tmp/sourcecounts.ncu-rep --page source --csv --print-source sass > "$out/source_staged.csv" 2>&1
    python3 bench/source_counts.py "$out/source_staged.csv" | head -40 | tee -a "$summary"
  done
fi

if want matmul; then
  say "== matmul: sanitizers, then tilepuzzles bench matmul against cuBLAS ($(elapsed))"
  : > "$out/matmul.txt"
  for tool in memcheck racecheck synccheck; do
    cmd=(./$build/tilepuzzles check --gpu --impl solution --no-isolate matmul)
    echo "---- $tool: ${cmd[*]}" >> "$out/matmul.txt"
    compute-sanitizer --tool $tool "${cmd[@]}" >> "$out/matmul.txt" 2>&1
    echo "exit $?" >> "$out/matmul.txt"
    say "$tool, matmul: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/matmul.txt" | tail -1) ($(elapsed))"
  done
  TILEPUZZLES_COMMIT=$commit ./$build/tilepuzzles bench matmul --csv "$out/matmul.csv" 2>&1 |
      tee -a "$out/matmul.txt" "$summary"
  python3 - <<'PY' 2>&1 | tee -a "$out/matmul.txt" "$summary"
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
n = 4096
a = torch.rand(n, n, device="cuda") * 2 - 1
b = torch.rand(n, n, device="cuda") * 2 - 1
for _ in range(3):
    c = a @ b
torch.cuda.synchronize()
times = []
for _ in range(11):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record(); c = a @ b; e.record(); e.synchronize()
    times.append(s.elapsed_time(e))
ms = sorted(times)[len(times) // 2]
print(f"cuBLAS fp32 (torch.matmul, TF32 off), {n}^3: {ms:9.3f} ms {2 * n**3 / ms / 1e9:7.2f} TFLOP/s")
PY
fi
say "== done ($(elapsed))"

# A tool that brings back only a few files (the device tool of this workplace: 8) can set
# TILEPUZZLES_PACK_LOGS=1: every log but summary.txt then goes into one logs.tar.gz.
if [ "${TILEPUZZLES_PACK_LOGS:-0}" = 1 ]; then
  (cd "$out" && ls | grep -vxE "summary.txt|logs.tar.gz" | tar czf logs.tar.gz -T - && ls | grep -vxE "summary.txt|logs.tar.gz" | xargs rm -f)
fi

if want results; then
  say "== PyTorch and Triton beside bench and matmul, then RESULTS.md ($(elapsed))"
  project="$out/project.csv"
  { cat "$out/bench.csv"; grep -v "^benchmark,variant," "$out/matmul.csv" 2>/dev/null; } > "$project"
  PYTHONUNBUFFERED=1 python3 bench/torch_triton_baselines.py --only ${BASELINES:-copy vector-add \
      softmax long-softmax matmul attention} --project "$project" --csv "$out/baselines.csv" \
      > "$out/baselines.txt" 2>&1
  echo "exit $?" >> "$out/baselines.txt"
  tail -40 "$out/baselines.txt" | tee -a "$summary"
  echo "bash bench/gpu_session.sh OUT $steps" > "$out/session.txt"
  python3 bench/make_results.py "$out" > "$out/RESULTS.md" 2>> "$summary"
  say "RESULTS.md: $(wc -l < "$out/RESULTS.md") lines ($(elapsed))"
fi
