#!/usr/bin/env python3
"""The loops of one kernel's SASS, with their instructions by kind.

    cuobjdump -sass EXE | python3 bench/sass_loops.py FUNCTION_SUBSTRING [ELEMENTS_PER_ITERATION]

Prints, for each loop (a backward branch), its address range, its instruction count and the
count by kind; with ELEMENTS_PER_ITERATION (the elements each thread handles per trip), the
instructions per element. Counts are static: a loop body that holds both a vector path and a
lane-by-lane fallback counts both, though one trip runs only one of them.
"""
import re
import sys

KINDS = [
    ("global memory", r"^(LDG|STG)"),
    ("shared memory", r"^(LDS|STS)"),
    ("shuffles", r"^SHFL"),
    ("barriers", r"^(BAR|WARPSYNC)"),
    ("special function", r"^MUFU"),
    ("float", r"^(FADD|FMUL|FFMA|FMNMX|FSETP|FSEL|FCHK)"),
    ("integer, address, predicate", r"^(IADD|IMAD|LEA|ISETP|LOP|SHF|PLOP|VIADD|SEL|MOV|P2R|R2P|S2R|S2UR|U|CS2R|LDC)"),
    ("control", r"^(BRA|BSSY|BSYNC|BREAK|EXIT|CALL|RET|NOP)"),
]


def main():
    wanted = sys.argv[1]
    per_iteration = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    code, inside = [], False
    for line in sys.stdin:
        if "Function :" in line:
            inside = wanted in line
            continue
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if inside and m:
            text = re.sub(r"^@!?U?P\w+\s+", "", m.group(2).strip())
            code.append((int(m.group(1), 16), text))
    if not code:
        sys.exit(f"no function matching {wanted}")
    print(f"{len(code)} instructions in the function")
    for address, text in code:
        m = re.match(r"BRA\s+(?:!?U?P\d,\s*)?0x([0-9a-f]+)", text)
        if not m or int(m.group(1), 16) >= address:
            continue
        start = int(m.group(1), 16)
        body = [t for a, t in code if start <= a <= address]
        counts = {}
        for t in body:
            op = t.split()[0]
            kind = next((k for k, pattern in KINDS if re.match(pattern, op)), "other")
            counts[kind] = counts.get(kind, 0) + 1
        line = f"loop 0x{start:04x}-0x{address:04x}: {len(body)} instructions"
        if per_iteration:
            line += f", {len(body) / per_iteration:.1f} per element ({per_iteration} per thread per trip)"
        print(line)
        for kind, _ in KINDS + [("other", "")]:
            if counts.get(kind):
                print(f"    {kind:30s} {counts[kind]}")


if __name__ == "__main__":
    main()
