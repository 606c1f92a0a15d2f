#!/usr/bin/env python3
"""Compares builds of the simulator's benchmark on a shared, loaded machine: runs each binary in
turn, ROUNDS times (interleaved, so that the machine's load falls on all of them alike), and
prints per workload the median over rounds of each binary's fastest launch and of its CPU-time
median (the benchmark's `min` and `cpu median`), with their ratios to the first binary's.

    python3 bench/probes/simulator_ab.py 3 OLD/tilepuzzles_bench_simulator NEW/tilepuzzles_bench_simulator
    ROWS="matmul-512 flash-1024x1024" python3 bench/probes/simulator_ab.py 5 A B C

A binary may be a script that sets LD_LIBRARY_PATH for its own libtilepuzzles_simulator.so.
"""
import csv
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds, binaries = int(sys.argv[1]), sys.argv[2:]
    rows = os.environ.get("ROWS", "").split()
    results = {b: {} for b in binaries}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.csv")
        for _ in range(rounds):
            for b in binaries:
                subprocess.run([b, *rows, "--runs", "11", "--min-time", "0.3", "--csv", out],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
                with open(out) as f:
                    for row in csv.DictReader(f):
                        results[b].setdefault(row["name"], []).append(
                            (float(row["min_ms"]), float(row["cpu_median_ms"])))
    print("workload         " + "".join(f" | {os.path.basename(b)[:24]:>24} min / cpu ms (ratio)"
                                         for b in binaries))
    for name in results[binaries[0]]:
        line, first = f"{name:16s}", None
        for b in binaries:
            runs = results[b].get(name)
            if not runs:
                line += " | missing"
                continue
            fastest = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            first = first or (fastest, cpu)
            line += f" | {fastest:8.3f} / {cpu:8.3f} ({fastest / first[0]:.2f} / {cpu / first[1]:.2f})"
        print(line)


if __name__ == "__main__":
    main()
