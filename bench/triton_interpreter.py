#!/usr/bin/env python3
"""Triton's interpreter on the simulator's workloads (issue 10), one CPU core.

Runs the project's solutions, written in Triton (bench/triton_kernels.py, algorithm for algorithm
the same as solutions/*.hpp), under Triton's interpreter (TRITON_INTERPRET=1) on CPU tensors, on
exactly the workloads that tilepuzzles_bench_simulator runs, so that the two can be compared on
one host. Each workload: one untimed launch whose result is checked against torch, then --runs
timed launches (one launch per run, wall clock); the median is reported.

    python3 bench/triton_interpreter.py                      # all seven workloads, 5 runs each
    python3 bench/triton_interpreter.py 2loop-64x4096 --runs 3 --csv interp.csv
    python3 bench/triton_interpreter.py --check-only         # small shapes against torch, no timing
    python3 bench/triton_interpreter.py --list

One core: torch.set_num_threads(1), and the thread counts of OpenMP, OpenBLAS, MKL, BLIS and
numexpr are pinned to 1 through their environment variables before numpy or torch is imported
(numpy's matmul, which the interpreter's tl.dot calls, would otherwise use every core).
--cpu N also pins the process to core N. Output formats: bench/README.md.
"""

import os
import sys

# Before numpy, torch or triton is imported: the interpreter, and one thread in every BLAS.
os.environ["TRITON_INTERPRET"] = "1"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")
for _variable in THREAD_VARIABLES:
    os.environ[_variable] = "1"

import argparse  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Callable, Dict, List, Tuple  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
import triton_kernels as kernels  # noqa: E402

torch.set_num_threads(1)
# Padded rows of a softmax compute exp(-inf - -inf) = nan where nothing stores it; numpy would warn.
np.seterr(all="ignore")

CSV_COLUMNS = ("name", "puzzle", "shape", "blocks", "median_s", "min_s", "max_s", "runs", "first_launch_s",
               "max_abs_error", "host_cpu", "triton", "torch", "numpy", "python", "threads")


@dataclass
class Case:
    """One launch of one kernel: its inputs, its output and the torch reference."""
    puzzle: str
    sizes: Tuple[int, ...]  # in the order of the puzzle's size names (checker/specs)
    blocks: Tuple[int, ...]  # in the order of the puzzle's block names
    inputs: Dict[str, torch.Tensor]
    output: torch.Tensor
    launch: Callable[[], None]
    reference: Callable[[], torch.Tensor]
    rtol: float = 1e-4
    atol: float = 1e-5

    def check(self) -> Tuple[float, float]:
        """Poisons the output, launches once, compares with torch; returns the largest error and
        the launch's seconds."""
        self.output.fill_(float("nan"))
        start = time.perf_counter()
        self.launch()
        seconds = time.perf_counter() - start
        expected = self.reference().to(torch.float64)
        got = self.output.to(torch.float64)
        error = (got - expected).abs()
        if torch.isnan(got).any():
            raise AssertionError(f"{self.label()}: {int(torch.isnan(got).sum())} outputs are NaN (not written?)")
        bad = error > self.atol + self.rtol * expected.abs()
        if bad.any():
            where = tuple(int(i) for i in bad.nonzero()[0])
            raise AssertionError(f"{self.label()}: {int(bad.sum())} of {got.numel()} outputs differ from torch; "
                                 f"first at {where}: {got[where].item():.8g}, expected {expected[where].item():.8g}")
        return float(error.max()), seconds

    def label(self) -> str:
        return f"{self.puzzle} {shape_text(self.sizes)} blocks {shape_text(self.blocks)}"


def shape_text(values) -> str:
    return "x".join(str(v) for v in values)


def long_softmax_case(puzzle: str, N0: int, T: int, B0: int, B1: int, seed: int = 0) -> Case:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(N0, T, generator=generator) * 3.0
    z = torch.empty(N0, T)
    kernel = kernels.long_softmax_2loop if puzzle == "long-softmax-2loop" else kernels.long_softmax_3loop
    grid = (triton.cdiv(N0, B0), )
    return Case(puzzle, (N0, T), (B0, B1), {"x": x}, z, lambda: kernel[grid](x, z, N0, T, B0=B0, B1=B1),
                lambda: torch.softmax(x.double(), dim=1))


def flash_attention_simple_case(N0: int, T: int, B0: int, B1: int, seed: int = 0) -> Case:
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(N0, generator=generator) * 3.0
    k = torch.randn(T, generator=generator) * 3.0
    v = torch.randn(T, generator=generator)
    z = torch.empty(N0)
    grid = (triton.cdiv(N0, B0), )

    def reference():
        scores = q.double()[:, None] * k.double()[None, :]
        return torch.softmax(scores, dim=1) @ v.double()

    return Case("flash-attention-simple", (N0, T), (B0, B1), {"q": q, "k": k, "v": v}, z,
                lambda: kernels.flash_attention_simple[grid](q, k, v, z, N0, T, B0=B0, B1=B1), reference)


def matmul_case(N0: int, N1: int, N2: int, MID: int, B0: int, B1: int, B_MID: int, seed: int = 0) -> Case:
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(N2, N0, MID, generator=generator)
    y = torch.randn(N2, MID, N1, generator=generator)
    z = torch.empty(N2, N0, N1)
    grid = (triton.cdiv(N0, B0), triton.cdiv(N1, B1), N2)
    return Case("matmul", (N0, N1, N2, MID), (B0, B1, B_MID), {"x": x, "y": y}, z,
                lambda: kernels.matmul[grid](x, y, z, N0, N1, N2, MID, B0=B0, B1=B1, B_MID=B_MID),
                lambda: x.double() @ y.double(), rtol=1e-4, atol=1e-4)


# The seven workloads of issue 10's table, by name. Sizes and blocks in the puzzle's order.
WORKLOADS: Dict[str, Callable[[], Case]] = {
    "2loop-4x200": lambda: long_softmax_case("long-softmax-2loop", 4, 200, 1, 32),
    "2loop-64x4096": lambda: long_softmax_case("long-softmax-2loop", 64, 4096, 1, 128),
    "3loop-256x8192": lambda: long_softmax_case("long-softmax-3loop", 256, 8192, 4, 256),
    "2loop-256x8192": lambda: long_softmax_case("long-softmax-2loop", 256, 8192, 4, 256),
    "flash-1024x1024": lambda: flash_attention_simple_case(1024, 1024, 32, 64),
    "matmul-256": lambda: matmul_case(256, 256, 1, 256, 32, 32, 32),
    "matmul-512": lambda: matmul_case(512, 512, 1, 512, 64, 64, 64),
}

# Small shapes for --check-only: tails of 1, 2 and 3 past a block, padded rows, batches.
SMALL_CASES: List[Callable[[], Case]] = [
    lambda: long_softmax_case("long-softmax-2loop", 1, 1, 1, 32),
    lambda: long_softmax_case("long-softmax-2loop", 3, 65, 1, 32),
    lambda: long_softmax_case("long-softmax-2loop", 6, 131, 4, 64),
    lambda: long_softmax_case("long-softmax-2loop", 4, 200, 1, 32),
    lambda: long_softmax_case("long-softmax-3loop", 5, 34, 2, 16),
    lambda: long_softmax_case("long-softmax-3loop", 13, 200, 4, 32),
    lambda: flash_attention_simple_case(1, 1, 1, 16),
    lambda: flash_attention_simple_case(9, 67, 4, 16),
    lambda: flash_attention_simple_case(40, 200, 32, 64),
    lambda: matmul_case(17, 18, 2, 19, 16, 16, 16),
    lambda: matmul_case(33, 35, 3, 50, 32, 32, 32),
    lambda: matmul_case(40, 70, 2, 35, 64, 64, 64),
]


def host_cpu() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return clean(line.split(":", 1)[1])
    except OSError:
        pass
    return clean(platform.processor() or platform.machine())


def clean(text: str) -> str:
    """A CSV field that a reader can split on commas: no commas, quotes or line breaks."""
    return " ".join(text.replace(",", " ").replace('"', " ").split())


def environment() -> Dict[str, str]:
    return {
        "host_cpu": host_cpu(),
        "triton": triton.__version__,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "threads": torch.get_num_threads(),
    }


@triton.jit
def _loop_to(z, T):
    total = 0
    for j in range(0, T, 1):
        total += j
    tl.store(z, total)


def interpreter_works() -> bool:
    """Triton 3.6's interpreter turns a scalar argument into a one-element array and calls int() on
    it where a loop bound is a kernel argument; numpy 2.4 and later refuse that conversion."""
    z = torch.zeros(1, dtype=torch.int32)
    try:
        _loop_to[(1, )](z, 3)
    except Exception as e:
        print(f"Triton {triton.__version__}'s interpreter cannot run a loop over a kernel argument with numpy "
              f"{np.__version__} ({e}). Use a numpy older than 2.4, for example in a virtualenv: "
              f"python3 -m venv .venv && .venv/bin/pip install 'numpy<2.4' torch triton=={triton.__version__}",
              file=sys.stderr)
        return False
    return int(z[0]) == 3


def check_only() -> int:
    failures = 0
    for make in SMALL_CASES:
        case = make()
        try:
            error, _ = case.check()
            print(f"ok    {case.label():<48} max |error| {error:.1e}")
        except Exception as e:  # a wrong kernel or an interpreter error: report it, go on
            failures += 1
            print(f"FAIL  {case.label():<48} {e}")
    print(f"{len(SMALL_CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


def measure(name: str, runs: int, env: Dict[str, str]) -> Dict[str, object]:
    case = WORKLOADS[name]()
    error, first = case.check()  # the first launch, untimed in the median: its result is checked
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        case.launch()
        times.append(time.perf_counter() - start)
    row = {
        "name": name,
        "puzzle": case.puzzle,
        "shape": shape_text(case.sizes),
        "blocks": shape_text(case.blocks),
        "median_s": statistics.median(times),
        "min_s": min(times),
        "max_s": max(times),
        "runs": runs,
        "first_launch_s": first,
        "max_abs_error": error,
    }
    row.update(env)
    return row


def print_row(row: Dict[str, object]) -> None:
    print(f"{row['name']:<16} {row['puzzle']:<24} {row['shape']:>13} {row['blocks']:>9}  "
          f"{row['median_s']:9.3f} s  (min {row['min_s']:.3f}, max {row['max_s']:.3f}, {row['runs']} runs; "
          f"first launch {row['first_launch_s']:.3f} s; max |error| {row['max_abs_error']:.1e})")


def write_outputs(rows: List[Dict[str, object]], csv_path: str, json_path: str) -> None:
    if csv_path:
        with open(csv_path, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS, lineterminator="\n")
            writer.writeheader()
            for row in rows:
                writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    if json_path:
        with open(json_path, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")


def main() -> int:
    parser = argparse.ArgumentParser(
        description="Time Triton's interpreter on the simulator's workloads (one launch per run, median).")
    parser.add_argument("workloads", nargs="*", metavar="NAME",
                        help="workloads to run (default: all; --list names them)")
    parser.add_argument("--runs", type=int, default=5, help="timed launches per workload (default 5)")
    parser.add_argument("--csv", metavar="FILE", default="", help="write one row per workload as CSV")
    parser.add_argument("--json", metavar="FILE", default="", help="write the same rows as a JSON array")
    parser.add_argument("--cpu", type=int, metavar="N", help="pin the process to CPU core N")
    parser.add_argument("--check-only", action="store_true",
                        help="run every kernel on small shapes against torch, time nothing")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    args = parser.parse_args()

    if args.list:
        for name, make in WORKLOADS.items():
            case = make()
            print(f"{name:<16} {case.puzzle:<24} sizes {shape_text(case.sizes):<12} "
                  f"blocks {shape_text(case.blocks)}")
        return 0
    unknown = [w for w in args.workloads if w not in WORKLOADS]
    if unknown:
        print(f"unknown workload {', '.join(unknown)}; the workloads are: {', '.join(WORKLOADS)}",
              file=sys.stderr)
        return 2
    if args.runs < 1:
        print("--runs must be at least 1", file=sys.stderr)
        return 2
    if args.cpu is not None:
        try:
            os.sched_setaffinity(0, {args.cpu})
        except (OSError, ValueError) as e:
            print(f"cannot pin to CPU core {args.cpu}: {e}", file=sys.stderr)
            return 2

    env = environment()
    print(f"Triton {env['triton']} interpreter (TRITON_INTERPRET=1), torch {env['torch']}, numpy {env['numpy']}, "
          f"Python {env['python']}")
    print(f"host CPU: {env['host_cpu']}; torch threads {env['threads']}, "
          f"{'/'.join(THREAD_VARIABLES)} = 1" + (f"; pinned to core {args.cpu}" if args.cpu is not None else ""))
    if not interpreter_works():
        return 1
    if args.check_only:
        return check_only()

    rows = []
    failed = []
    for name in args.workloads or list(WORKLOADS):
        try:
            row = measure(name, args.runs, env)
        except Exception as e:
            failed.append(name)
            print(f"{name:<16} FAILED: {e}")
            continue
        rows.append(row)
        print_row(row)
        write_outputs(rows, args.csv, args.json)  # after every workload: a cut-off run keeps its rows
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
