#!/usr/bin/env python3
"""tl::randint, tl::rand and tl::randn beside Triton's tl.randint, tl.rand and tl.randn.

tests/kernels/random_expected.hpp holds a table of (seed, offset) and the bits tl gives for them
(tests/random_numbers.cpp checks the simulator against it, tests/gpu/parity.cpp the GPU). This
script makes that table and compares it with Triton:

  python3 tests/gpu/triton_random_bits.py --reproduce
      prints the table's rows from a NumPy transcription of Triton's
      python/triton/language/random.py (philox, randint, uint_to_uniform_float, randn's
      pair_uniform_to_normal), with randn's log and cos in double rounded once to float as tl
      computes them. No GPU, no Triton: `pip install numpy`.

  python3 tests/gpu/triton_random_bits.py --triton
      runs Triton's own tl.randint, tl.rand and tl.randn on the GPU for the table's seeds and
      offsets and compares: randint and rand must be the same bits (exit 1 if not); randn is
      reported as the distance in ulp from tl's (Triton computes its log, sqrt and cos with the
      GPU's float functions, tl in double rounded once). Needs torch and triton on a CUDA GPU.
"""

import argparse
import pathlib
import re
import struct
import sys

import numpy as np

TABLE = pathlib.Path(__file__).resolve().parents[1] / "kernels" / "random_expected.hpp"

# The (seed, offset) pairs of the table: zeros, small values, both signs, the ends of int32.
SEEDS = [0, 1, 42, -1, 12345, 2147483647, -2147483648, 0x5EED]
OFFSETS = [0, 1, 2, 3, 1000, -1, 2147483647, -2147483648, 123456789]


def u32(x):
    return np.uint32(x & 0xFFFFFFFF)


def philox4x32_10(c, k0, k1):
    """Triton's philox_impl with n_rounds = 10 (Random123's philox4x32_10), in uint32."""
    c0, c1, c2, c3 = (int(v) & 0xFFFFFFFF for v in c)
    k0 &= 0xFFFFFFFF
    k1 &= 0xFFFFFFFF
    A, B = 0xD2511F53, 0xCD9E8D57
    for _ in range(10):
        _c0, _c2 = c0, c2
        c0 = (((B * _c2) >> 32) ^ c1 ^ k0) & 0xFFFFFFFF
        c2 = (((A * _c0) >> 32) ^ c3 ^ k1) & 0xFFFFFFFF
        c1 = (B * _c2) & 0xFFFFFFFF
        c3 = (A * _c0) & 0xFFFFFFFF
        k0 = (k0 + 0x9E3779B9) & 0xFFFFFFFF
        k1 = (k1 + 0xBB67AE85) & 0xFFFFFFFF
    return c0, c1, c2, c3


def triton_philox(seed, offset):
    """philox(seed, offset, 0, 0, 0): the int32 seed sign-extended to uint64, low word first."""
    key = seed & 0xFFFFFFFFFFFFFFFF
    return philox4x32_10((offset, 0, 0, 0), key & 0xFFFFFFFF, key >> 32)


def uint_to_uniform_float(word):
    """Triton's uint_to_uniform_float for 32 bits, in float32 steps."""
    x = np.uint32(word).view(np.int32)
    x = ~x if x < 0 else x  # Triton's -x - 1, without numpy's overflow warning at INT_MIN
    return np.float32(x) * np.float32(4.6566127342e-10)


def randn_as_tl(w0, w1):
    u1 = uint_to_uniform_float(w0)
    u2 = uint_to_uniform_float(w1)
    u1 = max(np.float32(1.0e-7), u1)
    th = np.float32(6.283185307179586) * u2
    r = np.sqrt(np.float32(-2.0) * np.float32(np.log(np.float64(u1))))
    return r * np.float32(np.cos(np.float64(th)))


def bits(f):
    return struct.unpack("<I", struct.pack("<f", float(np.float32(f))))[0]


def reproduce():
    for seed in SEEDS:
        for offset in OFFSETS:
            w = triton_philox(seed, offset)
            print(f"    {{{seed}, {offset}, 0x{w[0]:08x}u, 0x{bits(uint_to_uniform_float(w[0])):08x}u, "
                  f"0x{bits(randn_as_tl(w[0], w[1])):08x}u}},")


def read_table():
    rows = re.findall(r"\{(-?\d+), (-?\d+), 0x([0-9a-f]{8})u, 0x([0-9a-f]{8})u, 0x([0-9a-f]{8})u\}",
                      TABLE.read_text())
    return [(int(s), int(o), int(a, 16), int(b, 16), int(c, 16)) for s, o, a, b, c in rows]


def ulps(a_bits, b_bits):
    def ordered(b):
        return b if b < 0x80000000 else 0x80000000 - b
    return abs(ordered(a_bits) - ordered(b_bits))


def compare_with_triton():
    import torch
    import triton
    import triton.language as tl

    @triton.jit(do_not_specialize=["seed"])
    def draw(offsets_ptr, ints_ptr, uniform_ptr, normal_ptr, seed, n, BLOCK: tl.constexpr):
        i = tl.arange(0, BLOCK)
        m = i < n
        offsets = tl.load(offsets_ptr + i, mask=m, other=0)
        tl.store(ints_ptr + i, tl.randint(seed, offsets).to(tl.int32, bitcast=True), mask=m)
        tl.store(uniform_ptr + i, tl.rand(seed, offsets), mask=m)
        tl.store(normal_ptr + i, tl.randn(seed, offsets), mask=m)

    rows = read_table()
    if not rows:
        sys.exit(f"no rows in {TABLE}")
    print(f"triton {triton.__version__}, {torch.cuda.get_device_name()}; {len(rows)} rows of {TABLE.name}")
    randint_differ = rand_differ = 0
    randn_ulps = []
    for seed in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == seed]
        offsets = torch.tensor([r[1] for r in mine], dtype=torch.int32, device="cuda")
        n = len(mine)
        ints = torch.empty(n, dtype=torch.int32, device="cuda")
        uniform = torch.empty(n, dtype=torch.float32, device="cuda")
        normal = torch.empty(n, dtype=torch.float32, device="cuda")
        draw[(1,)](offsets, ints, uniform, normal, seed, n, BLOCK=triton.next_power_of_2(n))
        got_int = ints.cpu().tolist()
        got_uniform = uniform.view(torch.int32).cpu().tolist()
        got_normal = normal.view(torch.int32).cpu().tolist()
        for (s, o, want_int, want_rand, want_randn), gi, gu, gn in zip(mine, got_int, got_uniform, got_normal):
            gi &= 0xFFFFFFFF
            gu &= 0xFFFFFFFF
            gn &= 0xFFFFFFFF
            d = ulps(gn, want_randn)
            randn_ulps.append(d)
            flag = []
            if gi != want_int:
                randint_differ += 1
                flag.append("RANDINT DIFFERS")
            if gu != want_rand:
                rand_differ += 1
                flag.append("RAND DIFFERS")
            print(f"seed {s:>11} offset {o:>11}: randint 0x{gi:08x} (tl 0x{want_int:08x}), "
                  f"rand 0x{gu:08x} (tl 0x{want_rand:08x}), randn 0x{gn:08x} (tl 0x{want_randn:08x}, "
                  f"{d} ulp) {' '.join(flag)}")
    print(f"randint: {randint_differ} of {len(rows)} differ; rand: {rand_differ} of {len(rows)} differ; "
          f"randn: {sum(1 for d in randn_ulps if d == 0)} of {len(rows)} the same bits, "
          f"at most {max(randn_ulps)} ulp apart")
    sys.exit(1 if randint_differ or rand_differ else 0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--reproduce", action="store_true", help="print the table from NumPy")
    group.add_argument("--triton", action="store_true", help="compare the table with Triton on the GPU")
    args = parser.parse_args()
    if args.reproduce:
        reproduce()
    else:
        compare_with_triton()
