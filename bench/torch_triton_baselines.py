#!/usr/bin/env python3
"""The baselines the project's GPU kernels race (issue 12), measured in one run on one GPU.

Tables (--only picks some; copy runs whenever a memory-bound table does, for its ceiling):

  copy          device-to-device copy, 2^28 fp32 (bytes read + written): the memory ceiling
  vector-add    torch.add, 2^27 fp32
  softmax       4096 rows x N, N = 256 ... 32768, fp32: torch.softmax, Triton's fused softmax
                (tutorial 02), Triton's 2-loop online softmax (the project's algorithm)
  long-softmax  1024 x 65536 and 1024 x 131072 fp32: torch.softmax, Triton 2-loop and 3-loop
  matmul        4096^3 in fp16, bf16, fp32 as TF32 (tf32) and exact fp32 (fp32): torch.matmul
                (cuBLAS) and tutorial 03's kernel
  attention     batch 4, 16 heads, 4096 tokens, head_dim 64 and 128, causal and not, fp16:
                torch scaled_dot_product_attention and a FlashAttention-2 forward (tutorial 06)

Method (/work/.library/device/METHOD.md): every Triton kernel is checked against a torch reference
at the benchmark's size before it is timed (output poisoned with NaN first); each Triton kernel is
tried in a few configurations, as its tutorial's autotuner would, and the fastest correct one is
reported. Timing: warm-up, then a CUDA graph of K launches (K chosen so a replay takes ~20 ms)
replayed 15 times with CUDA events around each replay; the time is the median replay / K. For
memory-bound tables each launch reads the next of several input sets, together at least 4 times
the L2 cache, so no launch finds its inputs in L2.

    PYTHONUNBUFFERED=1 python3 bench/torch_triton_baselines.py --csv baselines.csv
    python3 bench/torch_triton_baselines.py --only softmax long-softmax --project tp.csv
    python3 bench/torch_triton_baselines.py --check-only   # no GPU: Triton's interpreter, small sizes
    python3 bench/torch_triton_baselines.py --small        # no GPU: the whole run at small sizes
    python3 bench/torch_triton_baselines.py --compile-only # no GPU: compile every Triton config for sm_90

--project FILE reads a CSV written by `tilepuzzles bench --csv` (columns in bench/README.md) and
adds the project's times and its ratio to every baseline. Without a GPU the script says so and
exits 1 (unless --small or --check-only).
"""

import os
import sys

CPU_MODE = any(flag in sys.argv[1:] for flag in ("--small", "--check-only"))
if CPU_MODE:
    # Before triton is imported. One thread everywhere: the machines that have no GPU are shared.
    os.environ["TRITON_INTERPRET"] = "1"
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                      "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[_variable] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import csv  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Callable, Dict, List, Optional, Sequence, Tuple  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton  # noqa: E402
import triton_kernels as kernels  # noqa: E402

if CPU_MODE:
    import numpy as np
    torch.set_num_threads(1)
    np.seterr(all="ignore")

# The puzzles benchmarked through their specs (bench/gpu_bench_puzzles.cuh): torch's operation of
# each at the project's sizes (bench/gpu_benchmarks.cu, puzzle_sweeps), one table per puzzle.
PUZZLE_TABLES = ("rms-norm", "layer-norm", "softmax-backward", "cross-entropy", "rope")
TABLES = ("copy", "vector-add", "softmax", "long-softmax", "matmul", "attention") + PUZZLE_TABLES
MEMORY_BOUND = ("vector-add", "softmax", "long-softmax") + PUZZLE_TABLES
# The project's benchmark ids (its puzzle ids) that each table compares with.
PROJECT_IDS = {
    "copy": ("copy", ),
    "vector-add": ("vector-add", ),
    "softmax": ("softmax-fused", "long-softmax-2loop", "long-softmax-3loop"),
    "long-softmax": ("softmax-fused", "long-softmax-2loop", "long-softmax-3loop"),
    "matmul": ("matmul", "cublas"),
    "attention": ("flash-attention", ),
    **{table: (table, ) for table in PUZZLE_TABLES},
}
# The project's own baselines (its copy, its cuBLAS calls): listed beside ours as a cross-check,
# never taken as the project's kernel.
PROJECT_BASELINE_IDS = ("copy", "cublas")
OUTPUT_COLUMNS = ("source", "table", "impl", "algorithm", "config", "size", "dtype", "causal", "time_ms", "min_ms",
                  "max_ms", "bytes", "flops", "gbps", "tflops", "pct_copy", "vs_torch", "vs_triton", "error",
                  "method", "project_benchmark", "project_variant", "project_ms", "project_speedup", "gpu")
PROJECT_REQUIRED = ("benchmark", "variant", "size", "dtype", "time_ms")
TORCH_DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


class CheckFailed(Exception):
    """A kernel's result differs from the reference."""


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    table: str
    impl: str  # what ran: "torch.softmax", "Triton fused softmax (tutorial 02)", ...
    algorithm: str  # the project benchmark id of the same algorithm; "" for a library baseline
    size: str
    dtype: str
    causal: str = ""  # "yes" / "no" for attention
    config: str = ""
    time_ms: float = float("nan")
    min_ms: float = float("nan")
    max_ms: float = float("nan")
    bytes: int = 0  # the fewest bytes the problem must move: each input read once, each output written once
    flops: int = 0
    error: str = ""  # relative error against the reference, or why the row has no time
    method: str = ""
    source: str = "baseline"
    is_torch: bool = False  # the library baseline the table's ratios refer to
    notes: List[str] = field(default_factory=list)

    def key(self) -> Tuple[str, str, str]:
        return (self.size, self.dtype, self.causal)

    @property
    def gbps(self) -> float:
        return self.bytes / self.time_ms / 1e6 if self.bytes and self.time_ms > 0 else float("nan")

    @property
    def tflops(self) -> float:
        return self.flops / self.time_ms / 1e9 if self.flops and self.time_ms > 0 else float("nan")


@dataclass
class ProjectRow:
    benchmark: str
    variant: str
    size: str
    dtype: str
    causal: str
    time_ms: float
    bytes: int = 0
    flops: int = 0


def table_of(project: ProjectRow) -> List[str]:
    return [t for t, ids in PROJECT_IDS.items() if project.benchmark in ids]


def read_project_csv(path: str) -> List[ProjectRow]:
    """Reads `tilepuzzles bench --csv` output; lines starting with # are comments."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.strip() and not line.lstrip().startswith("#")]
    reader = csv.DictReader(lines)
    missing = [c for c in PROJECT_REQUIRED if c not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)} (the header needs {', '.join(PROJECT_REQUIRED)}; "
                         f"see bench/README.md)")
    rows = []
    for number, record in enumerate(reader, start=2):
        try:
            time_ms = float(record["time_ms"])
        except ValueError:
            raise ValueError(f"{path}, data line {number - 1}: time_ms is {record['time_ms']!r}, not a number")
        causal = (record.get("causal") or "").strip().lower()
        rows.append(ProjectRow(
            benchmark=record["benchmark"].strip(),
            variant=(record["variant"] or "").strip(),
            size=record["size"].strip(),
            dtype=record["dtype"].strip().lower(),
            causal="yes" if causal in ("1", "yes", "true") else "no" if record["benchmark"].startswith("flash") else "",
            time_ms=time_ms,
            bytes=int(float(record.get("bytes") or 0)),
            flops=int(float(record.get("flops") or 0)),
        ))
    return rows


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------


class GpuTimer:
    """Median time of one launch: a CUDA graph of K launches, cycling over the calls (one per input
    set), replayed `reps` times with events around each replay."""

    def __init__(self, use_graphs: bool = True):
        self.use_graphs = use_graphs

    def time(self, calls: Sequence[Callable[[], object]], target_ms: float = 20.0, reps: int = 15):
        for call in calls:  # warm-up: compilation, module load, library handles
            call()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(2):
            for call in calls:
                call()
        stop.record()
        stop.synchronize()
        estimate = max(start.elapsed_time(stop) / (2 * len(calls)), 1e-4)
        rounds = max(1, min(math.ceil(target_ms / (estimate * len(calls))), max(1, 2000 // len(calls))))
        launches = rounds * len(calls)

        samples = None
        method = "stream"
        if self.use_graphs:
            try:
                samples = self._graph_samples(calls, launches, reps)
                method = "graph"
            except Exception as e:  # some op could not be captured: time launches on the stream
                torch.cuda.synchronize()
                method = f"stream; graph capture failed: {type(e).__name__}"
        if samples is None:
            samples = []
            for _ in range(reps):
                start.record()
                for i in range(launches):
                    calls[i % len(calls)]()
                stop.record()
                stop.synchronize()
                samples.append(start.elapsed_time(stop) / launches)
        method += f" {launches} launches x {reps} replays"
        return statistics.median(samples), min(samples), max(samples), method

    @staticmethod
    def _graph_samples(calls, launches, reps):
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # libraries set up per-stream state before the capture, as torch advises
            for call in calls:
                call()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for i in range(launches):
                calls[i % len(calls)]()
        graph.replay()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        samples = []
        for _ in range(reps):
            start.record()
            graph.replay()
            stop.record()
            stop.synchronize()
            samples.append(start.elapsed_time(stop) / launches)
        del graph
        return samples


class CpuTimer:
    """--small: wall-clock time of the interpreter on the CPU. Exercises the pipeline; the numbers
    say nothing about a GPU."""

    def time(self, calls, target_ms: float = 0.0, reps: int = 1):
        samples = []
        for _ in range(reps):
            for call in calls:
                start = time.perf_counter()
                call()
                samples.append((time.perf_counter() - start) * 1e3)
        return statistics.median(samples), min(samples), max(samples), "cpu wall clock; interpreter"


# ---------------------------------------------------------------------------------------------
# The run: device, sizes, rotation, checks
# ---------------------------------------------------------------------------------------------


class Run:

    def __init__(self, args):
        self.small = args.small or args.check_only
        self.check_only = args.check_only
        self.quick = args.quick
        self.device = "cpu" if self.small else "cuda"
        self.timer = CpuTimer() if self.small else GpuTimer(use_graphs=not args.no_graphs)
        self.started = time.perf_counter()
        self.copy_gbps = float("nan")
        self.checks_passed = 0
        self.checks_failed = 0
        self.generator = torch.Generator(device=self.device).manual_seed(args.seed)
        if self.small:
            self.gpu = "none (CPU; Triton interpreter)"
            self.l2_bytes = 1 << 20
            self.sms = 4
            self.props = {}
        else:
            props = torch.cuda.get_device_properties(0)
            self.gpu = props.name
            self.l2_bytes = getattr(props, "L2_cache_size", 50 << 20) or (50 << 20)
            self.sms = props.multi_processor_count
            try:
                self.props = triton.runtime.driver.active.utils.get_device_properties(torch.cuda.current_device())
            except Exception:
                self.props = {}

    def progress(self, text: str) -> None:
        print(f"  [{time.perf_counter() - self.started:6.1f} s] {text}", file=sys.stderr, flush=True)

    def randn(self, *shape, dtype=torch.float32, scale=1.0):
        return (torch.randn(*shape, generator=self.generator, device=self.device) * scale).to(dtype)

    def input_sets(self, bytes_per_set: int) -> int:
        """How many input sets a memory-bound benchmark rotates through: together at least 4 times L2."""
        if self.small:
            return 2
        return max(1, min(64, math.ceil(4 * self.l2_bytes / max(bytes_per_set, 1))))

    def time(self, calls, tuning: bool = False):
        if tuning:
            return self.timer.time(calls, target_ms=5.0, reps=5)
        return self.timer.time(calls)

    def sync(self):
        if not self.small:
            torch.cuda.synchronize()


def relative_error(got: torch.Tensor, expected: torch.Tensor) -> float:
    """||got - expected|| / ||expected||, in float64; NaN anywhere (an unwritten output) fails."""
    got = got.to(torch.float64)
    expected = expected.to(torch.float64)
    if torch.isnan(got).any():
        raise CheckFailed(f"{int(torch.isnan(got).sum())} of {got.numel()} outputs are NaN (not written?)")
    return float(torch.linalg.vector_norm(got - expected) / torch.linalg.vector_norm(expected))


def checked(run: Run, label: str, compute: Callable[[], torch.Tensor], expected: torch.Tensor,
            tolerance: float, poison: Optional[torch.Tensor] = None) -> float:
    """Runs `compute` once (after filling `poison`, its output buffer, with NaN) and compares."""
    if poison is not None:
        poison.fill_(float("nan"))
    result = compute()
    run.sync()
    try:
        error = relative_error(result, expected)
        if not error <= tolerance:
            raise CheckFailed(f"relative error {error:.2e} > {tolerance:.0e} against the reference")
    except CheckFailed as e:
        run.checks_failed += 1
        if run.check_only:
            print(f"FAIL  {label:<72} {e}")
        raise
    run.checks_passed += 1
    if run.check_only:
        print(f"ok    {label:<72} relative error {error:.1e}")
    return error


def timed_row(run: Run, row: Row, calls, error: float) -> Row:
    row.error = f"{error:.1e}"
    if run.check_only:
        return row
    row.time_ms, row.min_ms, row.max_ms, row.method = run.time(calls)
    return row


def failed_row(run: Run, row: Row, reason: str) -> Row:
    row.error = reason
    if run.check_only:
        print(f"FAIL  {row.impl + ' ' + row.size + ' ' + row.dtype:<72} {reason}")
    return row


def best_of(run: Run, row: Row, configs: Sequence, describe: Callable, prepare: Callable) -> Row:
    """Tries each config of a Triton kernel: `prepare(config)` returns (calls, check), where check()
    launches once and returns the relative error or raises. Reports the fastest correct config."""
    quick = run.quick and not run.check_only
    timings = []
    problems = []
    for config in configs:
        if quick and timings:  # --quick: the first config that runs and is right
            break
        try:
            calls, check = prepare(config)
            error = check()
            if run.small or quick or len(configs) == 1:  # --small: the first correct config; all are checked
                timings.append((0.0, config, calls, error))
                continue
            median, *_ = run.time(calls, tuning=True)
            timings.append((median, config, calls, error))
        except CheckFailed as e:
            problems.append(f"{describe(config)}: WRONG: {e}")
            if not run.check_only:
                print(f"  {row.impl} {row.size} {row.dtype} {describe(config)}: WRONG: {e}", flush=True)
        except Exception as e:  # on a GPU: does not compile, too much shared memory, ...
            first_line = (str(e).strip().splitlines() or [""])[0][:160]
            problems.append(f"{describe(config)}: {type(e).__name__}: {first_line}")
            if run.check_only:  # the interpreter has no resource limits: any exception is a bug
                run.checks_failed += 1
                print(f"FAIL  {row.impl + ' ' + row.size + ' ' + describe(config):<72} {type(e).__name__}: {first_line}")
            else:
                run.progress(f"{row.impl} {describe(config)} skipped: {type(e).__name__}: {first_line}")
        finally:
            run.sync()
    row.notes = problems
    if not timings:
        return failed_row(run, row, "no config ran: " + "; ".join(problems))
    _, config, calls, error = min(timings, key=lambda t: t[0])
    if len(timings) > 1:
        row.config = describe(config) + (f" (first of {len(timings)} checked)" if run.small else
                                         f" (fastest of {len(timings)})")
    elif quick:
        row.config = describe(config) + " (--quick: the first that ran)"
    else:
        row.config = describe(config)
    if run.check_only:
        row.error = f"{error:.1e}"
        return row
    return timed_row(run, row, calls, error)


def guarded(run: Run, row: Row, body: Callable[[], Row]) -> Row:
    """A baseline that raises (out of memory, an op the GPU lacks) becomes a row that says why."""
    try:
        return body()
    except CheckFailed as e:
        return failed_row(run, row, f"WRONG: {e}")
    except Exception as e:
        first_line = (str(e).strip().splitlines() or [""])[0][:200]
        return failed_row(run, row, f"{type(e).__name__}: {first_line}")
    finally:
        with contextlib.suppress(Exception):
            run.sync()


# ---------------------------------------------------------------------------------------------
# The Triton kernels' arguments: (positional arguments, constexprs, launch options) for a config.
# One place for both the GPU launches and --compile-only.
# ---------------------------------------------------------------------------------------------


def fused_softmax_arguments(y, x, n_rows, n_cols, config):
    block, warps, stages = config
    return ((y, x, x.stride(0), y.stride(0), n_rows, n_cols), dict(BLOCK=block, LOOP_STAGES=stages),
            dict(num_warps=warps))


def online_softmax_arguments(x, z, n_rows, n_cols, config):
    B0, B1, warps = config
    return (x, z, n_rows, n_cols), dict(B0=B0, B1=B1), dict(num_warps=warps)


def matmul_arguments(a, b, c, precision, config):
    BM, BN, BK, GM, stages, warps = config
    (M, K), N = a.shape, b.shape[1]
    return ((a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1)),
            dict(BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK, GROUP_M=GM, INPUT_PRECISION=precision),
            dict(num_stages=stages, num_warps=warps))


def attention_arguments(q, k, v, out, causal, config):
    BM, BN, stages, warps = config
    _, heads, tokens, head_dim = q.shape
    return ((q, k, v, out, 1.0 / math.sqrt(head_dim), *q.stride(), *k.stride(), *v.stride(), *out.stride(), heads,
             tokens), dict(HEAD_DIM=head_dim, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=causal),
            dict(num_stages=stages, num_warps=warps))


# ---------------------------------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------------------------------


def bench_copy(run: Run) -> List[Row]:
    n = (1 << 16) if run.small else (1 << 28)
    row = Row("copy", "device-to-device copy (torch copy_)", "", str(n), "fp32", bytes=2 * 4 * n, is_torch=True)

    def body():
        src = run.randn(n)
        dst = torch.empty_like(src)
        error = checked(run, "copy", lambda: dst.copy_(src), src, 0.0, poison=dst)
        return timed_row(run, row, [lambda: dst.copy_(src)], error)

    row = guarded(run, row, body)
    run.copy_gbps = row.gbps
    return [row]


def bench_vector_add(run: Run) -> List[Row]:
    n = (1 << 16) if run.small else (1 << 27)
    row = Row("vector-add", "torch.add", "", str(n), "fp32", bytes=3 * 4 * n, is_torch=True)

    def body():
        sets = run.input_sets(3 * 4 * n)
        xs = [run.randn(n) for _ in range(sets)]
        ys = [run.randn(n) for _ in range(sets)]
        zs = [torch.empty_like(xs[0]) for _ in range(sets)]
        expected = xs[0] + ys[0]
        error = checked(run, "torch.add", lambda: torch.add(xs[0], ys[0], out=zs[0]), expected, 0.0, poison=zs[0])
        calls = [lambda i=i: torch.add(xs[i], ys[i], out=zs[i]) for i in range(sets)]
        return timed_row(run, row, calls, error)

    return [guarded(run, row, body)]


def fused_softmax_configs(small: bool, max_shared: int, n_cols: int):
    """(BLOCK, num_warps, LOOP_STAGES). The pipelined loop keeps LOOP_STAGES - 1 rows in shared
    memory: as many stages (at most 4, the tutorial's choice on large-memory GPUs) as fit."""
    block = triton.next_power_of_2(n_cols)
    if small:
        return [(block, 4, 2)]
    stages = next((s for s in (4, 3, 2) if (s - 1) * block * 4 + 1024 <= max_shared), 1)
    # From 2 to 128 elements of a row per thread: fewer idles threads, more spills registers.
    warps = [w for w in (4, 8, 16, 32) if 2 <= block // (32 * w) <= 128] or [4]
    return [(block, w, stages) for w in warps]


def fused_softmax_programs(run: Run, y, x, n_rows, n_cols, config) -> int:
    """Tutorial 02's persistent grid: as many programs as fit on the GPU at once, at most one per row."""
    if run.small:
        return min(n_rows, 3)  # fewer programs than rows: each strides over several
    try:
        args, constexprs, options = fused_softmax_arguments(y, x, n_rows, n_cols, config)
        compiled = kernels.softmax_fused.warmup(*args, **constexprs, **options, grid=(1, ))
        warps = options["num_warps"]
        compiled._init_handles()
        warp_size = run.props.get("warpSize", 32)
        occupancy = run.props["max_num_regs"] // max(1, compiled.n_regs * warp_size * warps)
        if compiled.metadata.shared:
            occupancy = min(occupancy, run.props["max_shared_mem"] // compiled.metadata.shared)
        programs = run.sms * max(1, occupancy)
    except Exception as e:
        run.progress(f"fused softmax: occupancy unknown ({type(e).__name__}: {e}); 8 programs per SM")
        programs = run.sms * 8
    return max(1, min(programs, n_rows))


def online_softmax_configs(small: bool, n_cols: int, long_rows: bool):
    """(B0, B1, num_warps) for the 2-loop and 3-loop kernels."""
    if small:
        return [(1, 64, 4), (2, 128, 4)] if not long_rows else [(1, 512, 4), (1, 1024, 4)]
    if long_rows:
        return [(1, 2048, 4), (1, 2048, 8), (1, 4096, 8), (1, 4096, 16), (1, 8192, 16)]
    widest = triton.next_power_of_2(n_cols)
    blocks = sorted({min(widest, b) for b in (1024, 2048, 4096)})
    return [(1, b, w) for b in blocks for w in (4, 8)]


def bench_softmax_table(run: Run, table: str, shapes, algorithms) -> List[Row]:
    rows = []
    for n_rows, n_cols in shapes:
        run.progress(f"{table} {n_rows}x{n_cols}")
        rows += softmax_rows(run, table, n_rows, n_cols, algorithms)
        if not run.small:
            torch.cuda.empty_cache()
    return rows


def softmax_rows(run: Run, table: str, n_rows: int, n_cols: int, algorithms) -> List[Row]:
    """torch.softmax and the Triton kernels of `algorithms` on one x[n_rows, n_cols]."""
    size = f"{n_rows}x{n_cols}"
    moved = 2 * 4 * n_rows * n_cols
    try:
        sets = run.input_sets(moved)
        xs = [run.randn(n_rows, n_cols, scale=3.0) for _ in range(sets)]
        ys = [torch.empty_like(xs[0]) for _ in range(sets)]
        expected = torch.softmax(xs[0].double(), dim=1)
    except Exception as e:
        return [failed_row(run, Row(table, "inputs", "", size, "fp32", bytes=moved), f"{type(e).__name__}: {e}")]
    rows = []

    # torch.softmax is aten::_softmax; its out= form writes the rotated outputs too, so that no
    # launch overwrites lines the previous one left dirty in L2.
    def torch_softmax(i):
        return torch.ops.aten._softmax.out(xs[i], 1, False, out=ys[i])

    torch_row = Row(table, "torch.softmax", "", size, "fp32", bytes=moved, is_torch=True)
    rows.append(guarded(run, torch_row, lambda: timed_row(
        run, torch_row, [lambda i=i: torch_softmax(i) for i in range(sets)],
        checked(run, f"torch.softmax {size}", lambda: torch_softmax(0), expected, 1e-5, poison=ys[0]))))

    if "softmax-fused" in algorithms:
        fused_row = Row(table, "Triton fused softmax (tutorial 02)", "softmax-fused", size, "fp32", bytes=moved)

        def prepare_fused(config):
            programs = fused_softmax_programs(run, ys[0], xs[0], n_rows, n_cols, config)

            def launch(i):
                args, constexprs, options = fused_softmax_arguments(ys[i], xs[i], n_rows, n_cols, config)
                kernels.softmax_fused[(programs, )](*args, **constexprs, **options)
                return ys[i]

            calls = [lambda i=i: launch(i) for i in range(sets)]
            return calls, lambda: checked(run, f"fused softmax {size} {config}", lambda: launch(0), expected, 1e-5,
                                          poison=ys[0])

        rows.append(guarded(run, fused_row, lambda: best_of(
            run, fused_row, fused_softmax_configs(run.small, run.props.get("max_shared_mem", 0), n_cols),
            lambda c: f"num_warps={c[1]} stages={c[2]}",
            prepare_fused)))

    for algorithm, kernel, label in (("long-softmax-2loop", kernels.long_softmax_2loop, "2-loop online softmax"),
                                     ("long-softmax-3loop", kernels.long_softmax_3loop, "3-loop softmax")):
        if algorithm in algorithms:
            row = Row(table, f"Triton {label} (the project's algorithm)", algorithm, size, "fp32", bytes=moved)

            def prepare(config, kernel=kernel, label=label):
                grid = (triton.cdiv(n_rows, config[0]), )

                def launch(i):
                    args, constexprs, options = online_softmax_arguments(xs[i], ys[i], n_rows, n_cols, config)
                    kernel[grid](*args, **constexprs, **options)
                    return ys[i]

                calls = [lambda i=i: launch(i) for i in range(sets)]
                return calls, lambda: checked(run, f"{label} {size} {config}", lambda: launch(0), expected, 1e-5,
                                              poison=ys[0])

            rows.append(guarded(run, row, lambda row=row, prepare=prepare: best_of(
                run, row, online_softmax_configs(run.small, n_cols, table == "long-softmax"),
                lambda c: f"B0={c[0]} B1={c[1]} num_warps={c[2]}", prepare)))
    return rows


SOFTMAX_SHAPES = [(4096, 256 << i) for i in range(8)]  # N = 256 ... 32768
SOFTMAX_ALGORITHMS = ("softmax-fused", "long-softmax-2loop")
LONG_SOFTMAX_SHAPES = [(1024, 65536), (1024, 131072)]
LONG_SOFTMAX_ALGORITHMS = ("long-softmax-2loop", "long-softmax-3loop")


def bench_softmax(run: Run) -> List[Row]:
    shapes = [(37, 100), (37, 256), (5, 1000)] if run.small else SOFTMAX_SHAPES
    return bench_softmax_table(run, "softmax", shapes, SOFTMAX_ALGORITHMS)


def bench_long_softmax(run: Run) -> List[Row]:
    shapes = [(5, 3000)] if run.small else LONG_SOFTMAX_SHAPES
    return bench_softmax_table(run, "long-softmax", shapes, LONG_SOFTMAX_ALGORITHMS)


# Tutorial 03's configurations for NVIDIA GPUs, then two more with BLOCK_K = 32 that fit fp32 tiles.
MATMUL_CONFIGS = [
    # (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, num_stages, num_warps)
    (128, 256, 64, 8, 3, 8),
    (64, 256, 32, 8, 4, 4),
    (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4),
    (64, 128, 32, 8, 4, 4),
    (128, 32, 32, 8, 4, 4),
    (64, 32, 32, 8, 5, 2),
    (32, 64, 32, 8, 5, 2),
    (128, 256, 32, 8, 3, 8),
    (256, 128, 32, 8, 3, 8),
]
MATMUL_SMALL_CONFIGS = [(64, 64, 32, 4, 2, 4), (32, 64, 64, 2, 2, 4), (128, 256, 64, 8, 3, 8)]
# Relative errors expected (METHOD.md): fp32 far under 1e-5 at K = 4096, TF32 near 3e-4, fp16 and bf16
# outputs rounded to 11 and 8 bits.
MATMUL_TOLERANCE = {"fp16": 5e-3, "bf16": 2e-2, "tf32": 5e-3, "fp32": 2e-5}


@contextlib.contextmanager
def fp32_matmul_precision(precision: str):
    """cuBLAS's fp32 mode for torch.matmul: "tf32" or "ieee" (torch's new API; the old allow_tf32 flag
    where that is all there is; mixing the two is an error in torch 2.9+)."""
    matmul_flags = torch.backends.cuda.matmul
    if hasattr(matmul_flags, "fp32_precision"):
        old = matmul_flags.fp32_precision
        matmul_flags.fp32_precision = precision
        try:
            yield
        finally:
            matmul_flags.fp32_precision = old
    else:
        old = matmul_flags.allow_tf32
        matmul_flags.allow_tf32 = precision == "tf32"
        try:
            yield
        finally:
            matmul_flags.allow_tf32 = old


MATMUL_SIZE = 4096
MATMUL_DTYPES = ("fp16", "bf16", "tf32", "fp32")


def bench_matmul(run: Run) -> List[Row]:
    M = N = K = MATMUL_SIZE
    if run.small:
        M, N, K = 200, 160, 96  # K not a multiple of BLOCK_K 64: the tutorial's K mask runs
    rows = []
    for dtype_name in MATMUL_DTYPES:
        run.progress(f"matmul {M}x{N}x{K} {dtype_name}")
        rows += matmul_rows(run, M, N, K, dtype_name)
        if not run.small:
            torch.cuda.empty_cache()
    return rows


def matmul_rows(run: Run, M: int, N: int, K: int, dtype_name: str) -> List[Row]:
    """cuBLAS and tutorial 03's kernel on one C[M, N] = A[M, K] @ B[K, N]."""
    size = f"{M}x{N}x{K}"
    dtype = TORCH_DTYPES[dtype_name]
    precision = "ieee" if dtype_name == "fp32" else "tf32"
    flops = 2 * M * N * K
    tolerance = MATMUL_TOLERANCE[dtype_name]
    try:
        a = run.randn(M, K, dtype=dtype)
        b = run.randn(K, N, dtype=dtype)
        c = torch.empty(M, N, dtype=dtype, device=run.device)
        expected = a.double() @ b.double()
    except Exception as e:
        return [failed_row(run, Row("matmul", "inputs", "", size, dtype_name, flops=flops), f"{type(e).__name__}: {e}")]
    rows = []

    torch_row = Row("matmul", "cuBLAS (torch.matmul)", "", size, dtype_name, flops=flops, is_torch=True,
                    config=f"fp32 precision {precision}" if dtype == torch.float32 else "")

    def torch_body():
        with fp32_matmul_precision(precision):
            error = checked(run, f"torch.matmul {size} {dtype_name}", lambda: torch.matmul(a, b, out=c), expected,
                            tolerance, poison=c)
            return timed_row(run, torch_row, [lambda: torch.matmul(a, b, out=c)], error)

    rows.append(guarded(run, torch_row, torch_body))

    row = Row("matmul", "Triton matmul (tutorial 03)", "matmul", size, dtype_name, flops=flops)
    if run.small and dtype == torch.bfloat16:
        # Triton 3.6's interpreter multiplies the raw bits of bf16 operands in tl.dot.
        row.error = "skipped: the interpreter cannot run tl.dot on bf16; checked on the GPU only"
        return rows + [row]

    def prepare(config):
        BM, BN = config[:2]
        grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN), )

        def launch():
            args, constexprs, options = matmul_arguments(a, b, c, precision, config)
            kernels.matmul_tutorial[grid](*args, **constexprs, **options)
            return c

        return [launch], lambda: checked(run, f"tutorial matmul {size} {dtype_name} {config}", launch, expected,
                                         tolerance, poison=c)

    rows.append(guarded(run, row, lambda: best_of(
        run, row, MATMUL_SMALL_CONFIGS if run.small else MATMUL_CONFIGS,
        lambda c: f"{c[0]}x{c[1]}x{c[2]} group {c[3]} stages={c[4]} warps={c[5]}", prepare)))
    return rows


ATTENTION_CONFIGS = [  # (BLOCK_M, BLOCK_N, num_stages, num_warps)
    (128, 64, 3, 4), (128, 64, 3, 8), (128, 128, 3, 8), (64, 64, 4, 4), (128, 32, 4, 4), (128, 64, 4, 8)
]
ATTENTION_SMALL_CONFIGS = [(32, 16, 2, 4), (64, 32, 2, 4)]


ATTENTION_SHAPE = (4, 16, 4096)  # batch, heads, tokens
ATTENTION_HEAD_DIMS = (64, 128)


def bench_attention(run: Run) -> List[Row]:
    batch, heads, tokens = (1, 2, 128) if run.small else ATTENTION_SHAPE
    rows = []
    for head_dim in ((16, 64) if run.small else ATTENTION_HEAD_DIMS):
        for causal in (False, True):
            run.progress(f"attention {batch}x{heads}x{tokens}x{head_dim} causal {'yes' if causal else 'no'}")
            rows += attention_rows(run, batch, heads, tokens, head_dim, causal)
            if not run.small:
                torch.cuda.empty_cache()
    return rows


def attention_rows(run: Run, batch: int, heads: int, tokens: int, head_dim: int, causal: bool) -> List[Row]:
    """torch SDPA and the FlashAttention-2 forward on one q, k, v[batch, heads, tokens, head_dim], fp16."""
    size = f"{batch}x{heads}x{tokens}x{head_dim}"
    causal_text = "yes" if causal else "no"
    flops = 4 * batch * heads * tokens * tokens * head_dim // (2 if causal else 1)
    try:
        q, k, v = (run.randn(batch, heads, tokens, head_dim, dtype=torch.float16, scale=0.5) for _ in range(3))
        out = torch.empty_like(q)
        # The reference: the same inputs in fp32.
        expected = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)
    except Exception as e:
        return [failed_row(run, Row("attention", "inputs", "", size, "fp16", causal_text, flops=flops),
                           f"{type(e).__name__}: {e}")]
    rows = []

    sdpa_row = Row("attention", "torch scaled_dot_product_attention", "", size, "fp16", causal_text, flops=flops,
                   is_torch=True)
    rows.append(guarded(run, sdpa_row, lambda: timed_row(
        run, sdpa_row, [lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)],
        checked(run, f"SDPA {size} causal {causal_text}",
                lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal), expected, 1e-2))))

    row = Row("attention", "Triton FlashAttention-2 forward (tutorial 06)", "flash-attention", size, "fp16",
              causal_text, flops=flops)

    def prepare(config):
        BM, BN = config[:2]
        if tokens % BM or BM % BN:
            raise ValueError(f"BLOCK_M {BM} must divide {tokens} tokens and be a multiple of BLOCK_N {BN}")
        grid = (tokens // BM, batch * heads)

        def launch():
            args, constexprs, options = attention_arguments(q, k, v, out, causal, config)
            kernels.attention_forward[grid](*args, **constexprs, **options)
            return out

        return [launch], lambda: checked(run, f"flash attention {size} causal {causal_text} {config}", launch,
                                         expected, 1e-2, poison=out)

    rows.append(guarded(run, row, lambda: best_of(
        run, row, ATTENTION_SMALL_CONFIGS if run.small else ATTENTION_CONFIGS,
        lambda c: f"BLOCK_M={c[0]} BLOCK_N={c[1]} stages={c[2]} warps={c[3]}", prepare)))
    return rows


# ---- the puzzles benchmarked through their specs: torch's operation at the project's sizes

PUZZLE_SIZES = {
    "rms-norm": [(4096, d) for d in (1024, 2048, 4096, 8192)],
    "layer-norm": [(4096, d) for d in (1024, 2048, 4096, 8192)],
    "softmax-backward": [(4096, t) for t in (1024, 2048, 4096, 8192)],
    "cross-entropy": [(4096, 8192), (4096, 32768), (1024, 131072)],
    "rope": [(4096 * 128, 64), (4096 * 64, 128), (4096 * 32, 256)],
}
PUZZLE_SMALL_SIZES = {"rope": [(64, 64), (33, 128)]}
EPS = 1e-5


# The fewest bytes each puzzle moves (every tensor read or written once), as the project counts them:
# the sum of its tensors' bytes (the cross-entropy's targets are int32 there).
PUZZLE_BYTES = {
    "rms-norm": lambda n, d: 4 * (2 * n * d + d),
    "layer-norm": lambda n, d: 4 * (2 * n * d + 2 * d + 2 * n),
    "softmax-backward": lambda n, t: 4 * 3 * n * t,
    "cross-entropy": lambda n, v: 4 * (n * v + 2 * n),
    "rope": lambda n, d: 4 * 3 * n * d,
}


def puzzle_problem(run: Run, table: str, n_rows: int, n_cols: int, sets: int):
    """(torch's call on input set i, returning its outputs; the expected outputs of set 0 in
    float64) for one puzzle at one size, the operation as the project's spec states it."""
    f64 = torch.float64
    if table == "rms-norm":
        ins = [(run.randn(n_rows, n_cols), run.randn(n_cols)) for _ in range(sets)]
        x, w = (t.to(f64) for t in ins[0])
        expected = [x * torch.rsqrt(x.square().mean(dim=1, keepdim=True) + EPS) * w]

        def call(i):
            return [F.rms_norm(ins[i][0], (n_cols, ), ins[i][1], EPS)]
    elif table == "layer-norm":
        ins = [(run.randn(n_rows, n_cols), run.randn(n_cols), run.randn(n_cols)) for _ in range(sets)]
        x, w, b = (t.to(f64) for t in ins[0])
        mean = x.mean(dim=1, keepdim=True)
        rstd = torch.rsqrt((x - mean).square().mean(dim=1, keepdim=True) + EPS)
        expected = [(x - mean) * rstd * w + b, mean.flatten(), rstd.flatten()]

        def call(i):
            y, m, r = torch.native_layer_norm(ins[i][0], (n_cols, ), ins[i][1], ins[i][2], EPS)
            return [y, m.flatten(), r.flatten()]
    elif table == "softmax-backward":
        ins = [(torch.softmax(run.randn(n_rows, n_cols, scale=3.0), dim=1), run.randn(n_rows, n_cols))
               for _ in range(sets)]
        outs = [torch.empty(n_rows, n_cols, device=run.device) for _ in range(sets)]
        y, dy = (t.to(f64) for t in ins[0])
        expected = [y * (dy - (y * dy).sum(dim=1, keepdim=True))]

        def call(i):
            return [torch.ops.aten._softmax_backward_data.out(ins[i][1], ins[i][0], 1, torch.float32,
                                                              grad_input=outs[i])]
    elif table == "cross-entropy":
        def target():
            t = torch.randint(0, n_cols, (n_rows, ), generator=run.generator, device=run.device)
            t[::8] = -100  # ignored rows, as the spec has about one in eight
            return t
        ins = [(run.randn(n_rows, n_cols, scale=3.0), target()) for _ in range(sets)]
        logits, tgt = ins[0][0].to(f64), ins[0][1]
        picked = logits.gather(1, tgt.clamp(min=0).unsqueeze(1)).squeeze(1)
        expected = [torch.where(tgt == -100, 0.0, torch.logsumexp(logits, dim=1) - picked)]

        def call(i):
            return [F.cross_entropy(ins[i][0], ins[i][1], reduction="none", ignore_index=-100)]
    elif table == "rope":
        half = n_cols // 2
        ins = [(run.randn(n_rows, n_cols), run.randn(n_rows, half), run.randn(n_rows, half)) for _ in range(sets)]
        outs = [torch.empty(n_rows, n_cols, device=run.device) for _ in range(sets)]
        x, c, sn = (t.to(f64) for t in ins[0])
        expected = [torch.cat((x[:, :half] * c - x[:, half:] * sn, x[:, half:] * c + x[:, :half] * sn), dim=1)]

        def call(i):
            x, c, sn = ins[i]
            x1, x2 = x[:, :half], x[:, half:]
            return [torch.cat((x1 * c - x2 * sn, x2 * c + x1 * sn), dim=1, out=outs[i])]
    else:
        raise ValueError(table)
    return call, expected


TORCH_PUZZLE_OPS = {
    "rms-norm": "torch.nn.functional.rms_norm",
    "layer-norm": "torch.native_layer_norm (y, mean, rstd)",
    "softmax-backward": "torch softmax backward (aten._softmax_backward_data)",
    "cross-entropy": "torch.nn.functional.cross_entropy (reduction='none')",
    "rope": "torch eager: x1*cos - x2*sin, x2*cos + x1*sin, cat",
}


def bench_puzzle(run: Run, table: str) -> List[Row]:
    rows = []
    for n_rows, n_cols in (PUZZLE_SMALL_SIZES.get(table, [(37, 100), (5, 1000)]) if run.small
                           else PUZZLE_SIZES[table]):
        size = f"{n_rows}x{n_cols}"
        run.progress(f"{table} {size}")
        row = Row(table, TORCH_PUZZLE_OPS[table], "", size, "fp32", is_torch=True)

        row.bytes = PUZZLE_BYTES[table](n_rows, n_cols)

        def body(n_rows=n_rows, n_cols=n_cols, size=size, row=row):
            sets = run.input_sets(row.bytes)
            call, expected = puzzle_problem(run, table, n_rows, n_cols, sets)
            errors = [checked(run, f"{row.impl} {size} output {k}", lambda k=k: call(0)[k], want, 1e-5)
                      for k, want in enumerate(expected)]
            return timed_row(run, row, [lambda i=i: call(i) for i in range(sets)], max(errors))

        rows.append(guarded(run, row, body))
        if not run.small:
            torch.cuda.empty_cache()
    return rows


BENCHES = {
    "copy": bench_copy,
    "vector-add": bench_vector_add,
    "softmax": bench_softmax,
    "long-softmax": bench_long_softmax,
    "matmul": bench_matmul,
    "attention": bench_attention,
    **{table: (lambda run, table=table: bench_puzzle(run, table)) for table in PUZZLE_TABLES},
}

# ---------------------------------------------------------------------------------------------
# Ratios, tables, CSV
# ---------------------------------------------------------------------------------------------


def project_rows_on(table: str, rows: List[Row], project: List[ProjectRow]) -> List[ProjectRow]:
    """The project's rows that this table has a baseline for: its benchmark and its size."""
    keys = {r.key() for r in rows if r.table == table}
    return [p for p in project if table in table_of(p) and (p.size, p.dtype, p.causal) in keys]


def project_for(row: Row, project: List[ProjectRow]) -> Optional[ProjectRow]:
    """The project's row to set against a baseline row: same table, size, dtype and causality; of
    the same algorithm where the baseline is a Triton kernel and the project ran that algorithm,
    otherwise the project's fastest."""
    matches = [p for p in project if row.table in table_of(p) and (p.size, p.dtype, p.causal) == row.key()
               and p.benchmark not in PROJECT_BASELINE_IDS]
    same = [p for p in matches if p.benchmark == row.algorithm]
    pool = same or matches
    return min(pool, key=lambda p: p.time_ms) if pool else None


def fmt(value: float, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.{digits}g}" if abs(value) < 0.01 else f"{value:.{digits}f}"


def print_table(headers: List[str], lines: List[List[str]], right: Sequence[int]) -> None:
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h) for i, h in enumerate(headers)]

    def render(cells):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    print(render(headers).rstrip())
    for line in lines:
        print(render(line).rstrip())


TITLES = {
    "copy": "copy: device-to-device, fp32; bytes read + written (the memory ceiling)",
    "vector-add": "vector-add: z = x + y, fp32; 12 bytes per element",
    "softmax": "softmax: fp32, rows x N; bytes = one read and one write of x",
    "long-softmax": "long-softmax: fp32, long rows; bytes = one read and one write of x",
    "matmul": "matmul: M x N x K; flops = 2 M N K; tf32 = fp32 in and out, TF32 products",
    "attention": "attention forward: batch x heads x tokens x head_dim, fp16; flops = 4 B H T^2 D (half if causal)",
    "rms-norm": "rms-norm: y = x / sqrt(mean(x^2) + 1e-5) * w over rows x D, fp32; bytes = x, w, y once",
    "layer-norm": "layer-norm: y, mean and rstd of rows x D, fp32; bytes = x, w, b, y, mean, rstd once",
    "softmax-backward": "softmax-backward: dx = y * (dy - sum(y * dy)) over rows x T, fp32; bytes = y, dy, dx once",
    "cross-entropy": "cross-entropy: one loss per row of rows x V logits, fp32; bytes = logits, target (int32), loss once",
    "rope": "rope: the halves of rows x D rotated by per-row cos and sin [rows, D/2], fp32; bytes = x, cos, sin, y once",
}


def torch_time(rows: List[Row], key) -> Optional[float]:
    for r in rows:
        if r.is_torch and r.key() == key and r.time_ms == r.time_ms:
            return r.time_ms
    return None


def triton_time(rows: List[Row], key, algorithm: str) -> Optional[float]:
    times = [r.time_ms for r in rows if r.algorithm == algorithm and r.key() == key and r.time_ms == r.time_ms]
    return min(times) if times else None


def show_table(run: Run, table: str, rows: List[Row], project: List[ProjectRow]) -> None:
    memory_bound = table in MEMORY_BOUND or table == "copy"
    print(f"\n== {TITLES[table]}")
    headers = ["size"] + (["causal"] if table == "attention" else []) + ["dtype", "implementation", "ms"]
    headers += ["GB/s", "% copy"] if memory_bound else ["TFLOP/s"]
    headers += ["vs torch", "rel. error", "config"]
    if project:
        headers += ["tilepuzzles ms", "tilepuzzles x"]
    lines = []
    for r in rows:
        line = [r.size] + ([r.causal] if table == "attention" else []) + [r.dtype, r.impl, fmt(r.time_ms)]
        if memory_bound:
            line += [fmt(r.gbps), fmt(100 * r.gbps / run.copy_gbps)]
        else:
            line += [fmt(r.tflops)]
        base = torch_time(rows, r.key())
        has_time = r.time_ms == r.time_ms
        line += [fmt(base / r.time_ms, 2) if base and has_time else "-", r.error if has_time else "-",
                 r.config if has_time else "no time (see below)"]
        if project:
            p = project_for(r, project)
            line += [fmt(p.time_ms) if p else "-",
                     fmt(r.time_ms / p.time_ms, 2) if p and p.time_ms > 0 and r.time_ms == r.time_ms else "-"]
        lines.append(line)
    numeric = {i for i, h in enumerate(headers) if h in ("ms", "GB/s", "% copy", "TFLOP/s", "vs torch",
                                                          "tilepuzzles ms", "tilepuzzles x")}
    print_table(headers, lines, numeric)
    print("vs torch: torch's time / this row's (above 1: faster than torch)"
          + ("; tilepuzzles x: this row's time / the project's (above 1: the project is faster)" if project else ""))
    for r in rows:
        if r.time_ms != r.time_ms:
            print(f"  no time: {r.impl} {r.size} {r.dtype}: {r.error}")
        for note in r.notes:
            print(f"  note: {r.impl} {r.size} {r.dtype}: {note}")

    mine = project_rows_on(table, rows, project)
    if mine:
        print(f"-- tilepuzzles on the {table} table (from --project)")
        headers = ["benchmark", "variant", "size"] + (["causal"] if table == "attention" else [])
        headers += ["dtype", "ms"] + (["GB/s", "% copy"] if memory_bound else ["TFLOP/s"])
        headers += ["vs torch", "vs Triton (same algorithm)"]
        lines = []
        for p in mine:
            key = (p.size, p.dtype, p.causal)
            bytes_moved, flops = project_work(p, rows)
            line = [p.benchmark, p.variant, p.size] + ([p.causal] if table == "attention" else [])
            line += [p.dtype, fmt(p.time_ms)]
            if memory_bound:
                gbps = bytes_moved / p.time_ms / 1e6 if bytes_moved else float("nan")
                line += [fmt(gbps), fmt(100 * gbps / run.copy_gbps)]
            else:
                line += [fmt(flops / p.time_ms / 1e9 if flops else float("nan"))]
            base = torch_time(rows, key)
            same = triton_time(rows, key, p.benchmark)
            line += [fmt(base / p.time_ms, 2) if base else "-", fmt(same / p.time_ms, 2) if same else "-"]
            lines.append(line)
        print_table(headers, lines, {headers.index("ms")})
        print("vs ...: the baseline's time / the project's time (above 1: the project is faster)")


def project_work(p: ProjectRow, rows: List[Row]) -> Tuple[int, int]:
    """The project's bytes and flops: its own if it wrote them, else those of the baseline at the same size."""
    if p.bytes or p.flops:
        return p.bytes, p.flops
    for r in rows:
        if r.key() == (p.size, p.dtype, p.causal):
            return r.bytes, r.flops
    return 0, 0


def csv_records(run: Run, rows: List[Row], project: List[ProjectRow]) -> List[Dict[str, str]]:
    records = []

    def number(value, digits=6):
        return "" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}g}"

    for r in rows:
        base = torch_time(rows, r.key())
        p = project_for(r, project) if project else None
        records.append({
            "source": r.source, "table": r.table, "impl": r.impl, "algorithm": r.algorithm, "config": r.config,
            "size": r.size, "dtype": r.dtype, "causal": r.causal, "time_ms": number(r.time_ms),
            "min_ms": number(r.min_ms), "max_ms": number(r.max_ms), "bytes": str(r.bytes or ""),
            "flops": str(r.flops or ""), "gbps": number(r.gbps), "tflops": number(r.tflops),
            "pct_copy": number(100 * r.gbps / run.copy_gbps) if r.bytes else "",
            "vs_torch": number(base / r.time_ms, 4) if base and r.time_ms == r.time_ms else "", "vs_triton": "",
            "error": r.error, "method": r.method, "project_benchmark": p.benchmark if p else "",
            "project_variant": p.variant if p else "", "project_ms": number(p.time_ms) if p else "",
            "project_speedup": number(r.time_ms / p.time_ms, 4) if p and r.time_ms == r.time_ms else "",
            "gpu": run.gpu,
        })
    for table in TABLES:
        table_rows = [r for r in rows if r.table == table]
        for p in project_rows_on(table, rows, project):
            key = (p.size, p.dtype, p.causal)
            bytes_moved, flops = project_work(p, table_rows)
            base = torch_time(table_rows, key)
            same = triton_time(table_rows, key, p.benchmark)
            gbps = bytes_moved / p.time_ms / 1e6 if bytes_moved and p.time_ms > 0 else float("nan")
            records.append({
                "source": "project", "table": table, "impl": "tilepuzzles", "algorithm": p.benchmark,
                "config": p.variant, "size": p.size, "dtype": p.dtype, "causal": p.causal,
                "time_ms": number(p.time_ms), "bytes": str(bytes_moved or ""), "flops": str(flops or ""),
                "gbps": number(gbps), "tflops": number(flops / p.time_ms / 1e9) if flops and p.time_ms > 0 else "",
                "pct_copy": number(100 * gbps / run.copy_gbps) if bytes_moved else "",
                "vs_torch": number(base / p.time_ms, 4) if base else "",
                "vs_triton": number(same / p.time_ms, 4) if same else "", "gpu": run.gpu,
            })
    return records


def clean(text: str) -> str:
    """A CSV field that a reader can split on commas: no commas, quotes or line breaks."""
    return " ".join(str(text).replace(",", ";").replace('"', "'").split())


def write_csv(path: str, records: List[Dict[str, str]]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=OUTPUT_COLUMNS, lineterminator="\n", restval="")
        writer.writeheader()
        writer.writerows({k: clean(v) for k, v in record.items()} for record in records)


# ---------------------------------------------------------------------------------------------
# --compile-only: every Triton kernel and config of the GPU run, compiled for sm_90 without a GPU
# ---------------------------------------------------------------------------------------------

SM90_MAX_SHARED = 232448  # bytes of shared memory a block may opt in to on an H100 or H200


class StandIn:
    """A tensor's shape, dtype and contiguous strides, all that compiling needs; no memory."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), dtype

    def stride(self, dim=None):
        strides = [1] * len(self.shape)
        for i in range(len(self.shape) - 2, -1, -1):
            strides[i] = strides[i + 1] * self.shape[i + 1]
        return tuple(strides) if dim is None else strides[dim]

    def data_ptr(self):
        return 1 << 20  # aligned as the caching allocator's blocks are


def compile_plan(selected):
    """(label, kernel, (args, constexprs, options)) for every launch configuration the GPU run tries."""
    f32 = torch.float32
    for table, shapes, algorithms in (("softmax", SOFTMAX_SHAPES, SOFTMAX_ALGORITHMS),
                                      ("long-softmax", LONG_SOFTMAX_SHAPES, LONG_SOFTMAX_ALGORITHMS)):
        if table not in selected:
            continue
        for n_rows, n_cols in shapes:
            x = StandIn((n_rows, n_cols), f32)
            if "softmax-fused" in algorithms:
                for config in fused_softmax_configs(False, SM90_MAX_SHARED, n_cols):
                    yield (f"fused softmax {n_rows}x{n_cols} {config}", kernels.softmax_fused,
                           fused_softmax_arguments(x, x, n_rows, n_cols, config))
            for algorithm, kernel in (("long-softmax-2loop", kernels.long_softmax_2loop),
                                      ("long-softmax-3loop", kernels.long_softmax_3loop)):
                if algorithm in algorithms:
                    for config in online_softmax_configs(False, n_cols, table == "long-softmax"):
                        yield (f"{algorithm} {n_rows}x{n_cols} {config}", kernel,
                               online_softmax_arguments(x, x, n_rows, n_cols, config))
    if "matmul" in selected:
        for dtype_name in MATMUL_DTYPES:
            a = StandIn((MATMUL_SIZE, MATMUL_SIZE), TORCH_DTYPES[dtype_name])
            precision = "ieee" if dtype_name == "fp32" else "tf32"
            for config in MATMUL_CONFIGS:
                yield (f"matmul {dtype_name} {config}", kernels.matmul_tutorial,
                       matmul_arguments(a, a, a, precision, config))
    if "attention" in selected:
        for head_dim in ATTENTION_HEAD_DIMS:
            q = StandIn((*ATTENTION_SHAPE, head_dim), torch.float16)
            for causal in (False, True):
                for config in ATTENTION_CONFIGS:
                    yield (f"attention d={head_dim} causal={'yes' if causal else 'no'} {config}",
                           kernels.attention_forward, attention_arguments(q, q, q, q, causal, config))


def compile_for_sm90(kernel, arguments):
    """Compiles one launch as Triton would specialize it on the GPU (its own rules for pointers,
    16-divisible integers and integers equal to 1); returns the compiled kernel."""
    from triton._C.libtriton import native_specialize_impl
    from triton.backends.compiler import BaseBackend, GPUTarget
    from triton.compiler import ASTSource
    args, constexprs, options = arguments
    positional = iter(args)
    signature, constants, attrs = {}, {}, {}
    for index, name in enumerate(kernel.arg_names):
        if name in constexprs:
            signature[name], constants[name] = "constexpr", constexprs[name]
            continue
        kind, specialization = native_specialize_impl(BaseBackend, next(positional), False, True, True)
        signature[name] = kind
        if kind == "constexpr":
            constants[name] = specialization
        elif specialization == "D":
            attrs[(index, )] = [["tt.divisibility", 16]]
    return triton.compile(ASTSource(kernel, signature, constants, attrs), target=GPUTarget("cuda", 90, 32),
                          options=options)


def resource_usage(compiled) -> str:
    """Registers and spill bytes from cuobjdump (Triton ships one) of the cubin."""
    import re
    import subprocess
    import tempfile
    tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    with tempfile.NamedTemporaryFile(suffix=".cubin") as cubin:
        cubin.write(compiled.asm["cubin"])
        cubin.flush()
        try:
            text = subprocess.run([tool, "--dump-resource-usage", cubin.name], capture_output=True, text=True,
                                  timeout=60).stdout
        except (OSError, subprocess.SubprocessError):
            return "registers ?"
    registers = re.search(r"REG:(\d+)", text)
    local = re.search(r"LOCAL:(\d+)", text)
    return (f"{registers.group(1) if registers else '?'} registers, "
            f"{local.group(1) if local else '?'} bytes spilled to local memory")


def compile_only(selected) -> int:
    print(f"Compiling every Triton kernel and config of the GPU run for sm_90 (H100, H200), Triton "
          f"{triton.__version__}; no GPU needed, nothing runs")
    compiled_count, too_big, failed = 0, [], []
    runnable = {}
    for label, kernel, arguments in compile_plan(selected):
        row = label.rsplit(" (", 1)[0]
        runnable.setdefault(row, False)
        try:
            compiled = compile_for_sm90(kernel, arguments)
        except Exception as e:
            failed.append(label)
            first_line = next((line for line in str(e).splitlines() if line.strip()), type(e).__name__)[:160]
            print(f"FAIL  {label}: {type(e).__name__}: {first_line}", flush=True)
            continue
        compiled_count += 1
        shared = compiled.metadata.shared
        tensor_cores = " wgmma" if "wgmma.mma_async" in compiled.asm.get("ptx", "") else ""
        fits = shared <= SM90_MAX_SHARED
        runnable[row] = runnable[row] or fits
        if not fits:
            too_big.append(label)
        print(f"{'ok   ' if fits else 'big  '} {label}: {shared} bytes shared{'' if fits else ' (over the limit: '
              'skipped on the GPU)'}, {resource_usage(compiled)}{tensor_cores}", flush=True)
    unrunnable = [row for row, ok in runnable.items() if not ok]
    for row in unrunnable:
        print(f"FAIL  {row}: no config compiles and fits", flush=True)
    print(f"{compiled_count} configs compiled ({len(too_big)} need more shared memory than a block may have), "
          f"{len(failed)} failed to compile")
    return 1 if failed or unrunnable else 0


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description="PyTorch and Triton baselines for the project's GPU kernels.")
    parser.add_argument("--only", nargs="+", choices=TABLES, metavar="TABLE",
                        help=f"tables to run: {', '.join(TABLES)} (default: all)")
    parser.add_argument("--csv", metavar="FILE", default="", help="write every row (and the project's) as CSV")
    parser.add_argument("--project", metavar="FILE.csv", default="",
                        help="the project's `tilepuzzles bench --csv` output, to add its times and ratios")
    parser.add_argument("--quick", action="store_true", help="the first config that runs per Triton kernel, instead of the fastest of a few")
    parser.add_argument("--no-graphs", action="store_true", help="time launches on the stream instead of CUDA graphs")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    parser.add_argument("--small", action="store_true",
                        help="no GPU needed: the whole run at small sizes under Triton's interpreter on the CPU "
                        "(checks everything; its times mean nothing)")
    parser.add_argument("--check-only", action="store_true",
                        help="no GPU needed: every kernel and config at small sizes under Triton's interpreter, "
                        "checked against torch; no timing")
    parser.add_argument("--compile-only", action="store_true",
                        help="no GPU needed: compile every Triton kernel and config of the GPU run for sm_90 and "
                        "print its shared memory, registers and spills")
    args = parser.parse_args()
    if args.compile_only:
        if CPU_MODE:
            print("--compile-only compiles for the GPU; it does not go with --small or --check-only", file=sys.stderr)
            return 2
        return compile_only(set(args.only or TABLES))

    project = []
    if args.project:
        try:
            project = read_project_csv(args.project)
        except (OSError, ValueError) as e:
            print(f"--project: {e}", file=sys.stderr)
            return 2

    if not CPU_MODE and not torch.cuda.is_available():
        print(f"No CUDA GPU: torch {torch.__version__} (CUDA {torch.version.cuda}) sees none, so there is nothing to "
              "time. On a machine without a GPU, `--check-only` checks the kernels under Triton's interpreter and "
              "`--small` runs the whole script at small sizes.", file=sys.stderr)
        return 1

    run = Run(args)
    selected = list(args.only or TABLES)
    if any(t in MEMORY_BOUND for t in selected) and "copy" not in selected:
        selected.insert(0, "copy")
    selected = [t for t in TABLES if t in selected]

    if run.small:
        print(f"CPU, Triton {triton.__version__} interpreter, torch {torch.__version__}: small sizes"
              + (", checks only" if run.check_only else "; times are the interpreter's and say nothing of a GPU"))
    else:
        props = torch.cuda.get_device_properties(0)
        print(f"GPU: {run.gpu}, {run.sms} SMs, {props.total_memory / 2**30:.0f} GiB, L2 {run.l2_bytes / 2**20:.0f} MiB; "
              f"torch {torch.__version__} (CUDA {torch.version.cuda}), Triton {triton.__version__}")
        print("Times: median of 15 replays of a CUDA graph of K launches, divided by K; memory-bound rows rotate "
              "over input sets totalling at least 4x L2.")

    all_rows: List[Row] = []
    for table in selected:
        run.progress(f"table {table}")
        rows = BENCHES[table](run)
        all_rows += rows
        if not run.check_only:
            show_table(run, table, rows, project)
            if args.csv:  # after every table: a run cut short keeps what it measured
                write_csv(args.csv, csv_records(run, all_rows, project))

    unmatched = [p for p in project if not any(project_rows_on(t, all_rows, [p]) for t in TABLES)]
    if unmatched and not run.check_only:
        print(f"\n{len(unmatched)} rows of {args.project} have no baseline in this run (benchmark, size, dtype):")
        for p in unmatched:
            print(f"  {p.benchmark} {p.variant} {p.size} {p.dtype}" + (f" causal {p.causal}" if p.causal else ""))
    failed = [r for r in all_rows if r.time_ms != r.time_ms and not r.error.startswith("skipped")]
    if run.check_only:
        broken = [r for r in all_rows if not r.error or not (r.error[0].isdigit() or r.error.startswith("skipped"))]
        for r in all_rows:
            if r.error.startswith("skipped"):
                print(f"skip  {r.table} {r.impl} {r.size} {r.dtype}: {r.error[len('skipped: '):]}")
        for r in broken:
            print(f"FAIL  {r.table} {r.impl} {r.size} {r.dtype}: {r.error}")
        print(f"{run.checks_passed} passed, {run.checks_failed} failed")
        return 1 if run.checks_failed or broken else 0
    if failed:
        print(f"\n{len(failed)} rows have no time: " + "; ".join(f"{r.table} {r.impl} {r.size} {r.dtype}" for r in failed))
    run.progress("done")
    return 1 if failed or run.checks_failed else 0


if __name__ == "__main__":
    sys.exit(main())
