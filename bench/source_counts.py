#!/usr/bin/env python3
"""Executed instructions per SASS line of one kernel, from Nsight Compute's source page.

    ncu -i REPORT.ncu-rep --page source --csv --print-source sass > source.csv
    python3 bench/source_counts.py source.csv [OPCODE [MIN_EXECUTIONS]]

Prints the instructions executed in all (warp level), by opcode, and per executed instance of the
reference opcode (default HMMA: instructions per tensor-core product), and with MIN_EXECUTIONS
every line executed at least that often, in address order: the code a loop actually runs.
"""
import csv
import collections
import sys


def main():
    path = sys.argv[1]
    reference = sys.argv[2] if len(sys.argv) > 2 else "HMMA"
    rows = list(csv.reader(open(path, newline="")))
    header_at = next(i for i, r in enumerate(rows) if any("Source" == c.strip() for c in r))
    header = [c.strip() for c in rows[header_at]]
    src = header.index("Source")
    executed = next(i for i, c in enumerate(header) if c.startswith("Instructions Executed"))
    address = header.index("Address") if "Address" in header else None
    lines = []
    for r in rows[header_at + 1:]:
        if len(r) <= max(src, executed):
            continue
        try:
            n = int(float(r[executed].replace(",", "") or 0))
        except ValueError:
            continue
        text = r[src].strip()
        opcode = text.split()[0] if text else ""
        if opcode.startswith("@"):
            opcode = text.split()[1] if len(text.split()) > 1 else opcode
        lines.append((r[address] if address is not None else "", opcode, text, n))
    total = sum(n for *_, n in lines)
    by_opcode = collections.Counter()
    for _, op, _, n in lines:
        by_opcode[op.split(".")[0]] += n
    ref = by_opcode.get(reference, 0)
    print(f"executed instructions: {total:,}; {reference}: {ref:,}" +
          (f"; {total / ref:.1f} per {reference}" if ref else ""))
    for op, n in by_opcode.most_common(30):
        print(f"  {op:12s} {n:>14,}" + (f"  {n / ref:6.2f} per {reference}" if ref else ""))
    if len(sys.argv) > 3:  # every line executed at least this often
        floor = int(sys.argv[3])
        for a, _, text, n in lines:
            if n >= floor:
                print(f"  {n:>12,} {a} {text}")


if __name__ == "__main__":
    main()
