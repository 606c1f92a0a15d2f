#!/usr/bin/env python3
"""Makes bench/RESULTS.md, the current results, from the CSVs of one GPU run.

    python3 bench/make_results.py bench/results > bench/RESULTS.md

The folder holds what bench/gpu_session.sh's `bench` and `matmul` steps write (copied there from
the run's output folder):

  bench.csv, matmul.csv   `tilepuzzles bench --csv`: the project's rows, with the GPU, the commit
                          and the command in their comment lines
  baselines.csv           `bench/torch_triton_baselines.py --project ... --csv`: torch's and
                          Triton's rows on the same GPU in the same run, and each project row set
                          against them
  session.txt             optional: the commands of the run, one per line, shown as they are

A subfolder of it with the same files is a later run of benchmarks the first did not have
(bench/results/puzzles/: the puzzles benchmarked through their specs), shown after it.

For each benchmark, a table per problem size: the project's fastest configuration of each
algorithm, with its time and throughput, and the ratios to torch (or cuBLAS, or SDPA) and to Triton's
kernel of the same algorithm measured in the same run. The history of how the numbers got here is
in bench/HISTORY.md and the git log.
"""

import csv
import os
import sys
from typing import Dict, List, Optional

TITLES = {
    "vector-add": "vector-add: z = x + y, fp32",
    "softmax": "softmax over rows, fp32: 4096 rows x N (softmax-fused, long-softmax-2loop, long-softmax-3loop)",
    "long-softmax": "softmax over long rows, fp32: 1024 rows x N",
    "matmul": "matmul, M = N = K",
    "attention": "flash attention, fp16, batch x heads x tokens x head_dim",
    "rms-norm": "rms-norm, fp32: rows x D",
    "layer-norm": "layer-norm (y, mean, rstd), fp32: rows x D",
    "softmax-backward": "softmax-backward, fp32: rows x T",
    "cross-entropy": "cross-entropy, fp32 logits: rows x V",
    "rope": "rope, fp32: rows (tokens x heads) x head_dim",
}
ORDER = ("vector-add", "softmax", "long-softmax", "matmul", "attention", "rms-norm", "layer-norm",
         "softmax-backward", "cross-entropy", "rope")


def read_rows(path: str) -> List[Dict[str, str]]:
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def comments(path: str) -> List[str]:
    with open(path) as f:
        return [line[1:].strip() for line in f if line.startswith("#")]


def number(text: Optional[str]) -> Optional[float]:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def ratio(base: Optional[float], ours: Optional[float]) -> str:
    return f"{base / ours:.2f}" if base and ours else ""


def size_key(size: str):
    return tuple(int(p) if p.isdigit() else p for p in size.split("x"))


def baseline_table(table: str, mine: List[Dict[str, str]], level: str = "##") -> List[str]:
    flops = any(number(r.get("tflops")) for r in mine)
    out = ["", f"{level} {TITLES.get(table, table)}", ""]
    head = "| size | dtype |" + (" causal |" if table == "attention" else "")
    head += " algorithm | fastest configuration | ms | " + ("TFLOP/s" if flops else "GB/s")
    head += " | x torch | x Triton |"
    out.append(head)
    out.append("|" + " --- |" * (head.count("|") - 1))
    best: Dict[tuple, Dict[str, str]] = {}
    for r in mine:
        key = (r["size"], r["dtype"], r.get("causal", ""), r.get("algorithm", ""))
        if key not in best or number(r["time_ms"]) < number(best[key]["time_ms"]):
            best[key] = r
    for key in sorted(best, key=lambda k: (size_key(k[0]), k[1], k[2], k[3])):
        r = best[key]
        line = f"| {r['size']} | {r['dtype']} |" + (f" {r.get('causal', '')} |" if table == "attention" else "")
        line += f" {r.get('algorithm', '')} | {r.get('config', '')} | {number(r['time_ms']):.4g} |"
        line += f" {short(r.get('tflops'))} |" if flops else f" {number(r.get('gbps')) or 0:.0f} |"
        line += f" {short(r.get('vs_torch'))} | {short(r.get('vs_triton'))} |"
        out.append(line)
    return out


def short(text: Optional[str]) -> str:
    value = number(text)
    return f"{value:.2f}" if value else ""


def own_matmul_table(rows: List[Dict[str, str]]) -> List[str]:
    if not rows:
        return []
    out = ["", f"## {TITLES['matmul']} (beside cuBLAS in `tilepuzzles bench matmul`)", "",
           "| size | dtype | fastest configuration | ms | TFLOP/s | cuBLAS TFLOP/s | x cuBLAS |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    groups: Dict[tuple, Dict[str, Dict[str, str]]] = {}
    for r in rows:
        group = groups.setdefault((r["size"], r["dtype"]), {})
        role = "cublas" if r["benchmark"] == "cublas" else "tl"
        if role not in group or number(r["time_ms"]) < number(group[role]["time_ms"]):
            group[role] = r
    for key in sorted(groups, key=lambda k: (size_key(k[0]), k[1])):
        tl, cublas = groups[key].get("tl"), groups[key].get("cublas")
        if not tl:
            continue
        out.append(f"| {key[0]} | {key[1]} | {tl['variant']} | {number(tl['time_ms']):.4g} | "
                   f"{tl['tflops']} | {cublas['tflops'] if cublas else ''} | "
                   f"{ratio(number(cublas['time_ms']), number(tl['time_ms'])) if cublas else ''} |")
    return out


def own_attention_table(rows: List[Dict[str, str]]) -> List[str]:
    if not rows:
        return []
    out = ["", f"## {TITLES['attention']} (no baseline reached in this run)", "",
           "| size | dtype | causal | fastest configuration | ms | TFLOP/s |",
           "| --- | --- | --- | --- | --- | --- |"]
    best: Dict[tuple, Dict[str, str]] = {}
    for r in rows:
        key = (r["size"], r["dtype"], r["causal"])
        if key not in best or number(r["time_ms"]) < number(best[key]["time_ms"]):
            best[key] = r
    for key in sorted(best, key=lambda k: (size_key(k[0]), k[1], k[2])):
        r = best[key]
        out.append(f"| {key[0]} | {key[1]} | {key[2]} | {r['variant']} | {number(r['time_ms']):.4g} | "
                   f"{r['tflops']} |")
    return out


def run_lines(folder: str, level: str):
    """One run's bullets (GPU, commit, commands) and its tables, from its folder's CSVs."""
    rows = read_rows(os.path.join(folder, "baselines.csv"))
    notes = []
    for name in ("bench.csv", "matmul.csv"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            notes += comments(path)
    gpus = sorted({r["gpu"] for r in rows if r.get("gpu")})
    commands = []
    session = os.path.join(folder, "session.txt")
    if os.path.exists(session):
        with open(session) as f:
            commands = [line.rstrip("\n") for line in f if line.strip()]

    out = [f"- GPU: {', '.join(gpus) if gpus else 'not recorded'}"]
    for note in dict.fromkeys(notes):  # each distinct comment once, in order
        if note.startswith("GPU ") or note.startswith("tilepuzzles bench --csv:"):
            out.append(f"- {note.replace('tilepuzzles bench --csv: ', '`', 1)}" +
                       ("`" if note.startswith("tilepuzzles bench") else ""))
    if commands:
        out.append("- the run:")
        out.append("")
        out.append("  ```sh")
        out += ["  " + c for c in commands]
        out.append("  ```")
    bullets, out = out, []

    project = [r for r in rows if r.get("source") == "project"]
    compared = {r.get("table") for r in project}
    for table in ORDER:
        mine = [r for r in project if r.get("table") == table and r.get("impl") == "tilepuzzles"
                and r.get("algorithm") not in ("copy", "cublas")]
        if mine:
            out += baseline_table(table, mine, level)
    # What the baselines' run did not reach: the project's own rows, beside the vendor library
    # the project times in the same run (cuBLAS for matmul), or alone.
    own = []
    for name in ("matmul.csv", "bench.csv"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            own += read_rows(path)
    if "matmul" not in compared:
        out += own_matmul_table([r for r in own if r["benchmark"] in ("matmul", "cublas")])
    if "attention" not in compared:
        out += own_attention_table([r for r in own if r["benchmark"] == "flash-attention"])
    return bullets, out


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    folder = sys.argv[1]
    baselines_path = os.path.join(folder, "baselines.csv")
    if not os.path.exists(baselines_path):
        print(f"{baselines_path} is missing: see `python3 bench/make_results.py` without arguments",
              file=sys.stderr)
        return 2
    later = sorted(d for d in os.listdir(folder)
                   if os.path.exists(os.path.join(folder, d, "baselines.csv")))

    out = ["# Measured results", ""]
    out.append("The project's kernels on one GPU, each beside its baselines measured in the same run. "
               "Made by")
    out.append("`python3 bench/make_results.py bench/results > bench/RESULTS.md` from that run's "
               "CSVs (bench/results/);")
    out.append("how the numbers got here: bench/HISTORY.md, bench/NOTES.md and the git log.")
    out.append("")
    bullets, tables = run_lines(folder, "##")
    out += bullets
    out.append("")
    out.append("`x torch`: torch's time (cuBLAS for matmul, SDPA for attention) over the project's; "
               "`x Triton`: Triton's kernel of the same algorithm over the project's (above 1: the "
               "project is faster).")
    out += tables
    for name in later:
        bullets, tables = run_lines(os.path.join(folder, name), "###")
        out += ["", f"## The run in bench/results/{name}/", "",
                "Benchmarks that the run above did not have, measured in a run of their own:", ""]
        out += bullets + tables
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
