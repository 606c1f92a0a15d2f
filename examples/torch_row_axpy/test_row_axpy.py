#!/usr/bin/env python3
"""tl_row_axpy end to end: builds the extension (setup.py) against an installed tilepuzzles, then
compares the kernel with torch's own expression, z = alpha[:, None] * x + y:

- on CPU tensors, in the simulator: the same bits as torch's, in every program order, every check
  clean; and the planted bug (a twin that masks only the columns' edge) reported as out-of-bounds
  on x, by the program that reads past the last row, at its kernel line;
- on CUDA tensors, on the GPU (where torch sees one and the extension has the GPU launch): within
  what a fused multiply-add changes, on torch's current stream.

    python3 test_row_axpy.py --prefix ~/tl [--build-dir DIR] [--require-cuda]

Exit status 0 when every check passes, 1 otherwise; the last line counts them.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
passed = 0
failed = 0


def check(condition, what, detail=""):
    global passed, failed
    if condition:
        passed += 1
        print(f"  ok    {what}")
    else:
        failed += 1
        print(f"  FAIL  {what}" + (f"\n        {detail}" if detail else ""))
    return condition


def build(prefix, build_dir, cuda):
    """setup.py's build into build_dir (nothing is written beside the sources), then the import."""
    env = dict(os.environ, TILEPUZZLES_PREFIX=str(prefix))
    if cuda is not None:
        env["TL_ROW_AXPY_CUDA"] = "1" if cuda else "0"
    command = [sys.executable, str(HERE / "setup.py"), "--quiet", "build_ext",
               "--build-lib", str(build_dir), "--build-temp", str(build_dir / "temp")]
    print("building:", " ".join(command), flush=True)
    if subprocess.run(command, cwd=HERE, env=env).returncode != 0:
        sys.exit("tl_row_axpy did not build (its output is above)")
    sys.path.insert(0, str(build_dir))
    import tl_row_axpy
    return tl_row_axpy


def inputs(rows, cols, device="cpu", seed=0):
    # Signed and not uniform, so that a misplaced element or a wrong scale shows.
    g = torch.Generator().manual_seed(seed)
    alpha = torch.rand(rows, generator=g) * 4 - 2
    x = torch.randn(rows, cols, generator=g)
    y = torch.randn(rows, cols, generator=g) * 3
    return alpha.to(device), x.to(device), y.to(device)


def expected(alpha, x, y):
    # Two operations, each rounded to float32: what the simulator computes (it fuses nothing).
    return alpha[:, None] * x + y


def raises(kind, call):
    try:
        call()
    except kind as e:
        return str(e)
    except Exception as e:  # another kind: say which
        return f"raised {type(e).__name__} instead: {e}"
    return None


def cpu_checks(ext):
    print("In the simulator (CPU tensors):")
    cdiv = lambda n, d: (n + d - 1) // d
    for rows, cols in [(37, 70), (1, 1), (8, 128), (300, 1000)]:
        alpha, x, y = inputs(rows, cols, seed=rows * cols)
        for order in ["forward", "reverse", "shuffle"]:
            z, found = ext.simulate(alpha, x, y, order=order, seed=7)
            check(found["clean"] and torch.equal(z, expected(alpha, x, y)),
                  f"{rows} x {cols}, {order}: clean, the same bits as torch",
                  found["report"] if not found["clean"] else
                  f"{(z != expected(alpha, x, y)).sum().item()} elements differ")
        check(found["programs_run"] == cdiv(rows, ext.block_rows) and
              found["x_loads"] == rows * cols and found["z_stores"] == rows * cols,
              f"{rows} x {cols}: {cdiv(rows, ext.block_rows)} program(s), each element of x "
              "loaded once and of z stored once", str(found))
        check(torch.equal(ext.row_axpy(alpha, x, y), expected(alpha, x, y)),
              f"{rows} x {cols}: row_axpy on CPU tensors runs the simulator")

    alpha, x, y = inputs(37, 70)
    x_strided = x.t().contiguous().t()  # the same values, column-major
    check(torch.equal(ext.row_axpy(alpha, x_strided, y), expected(alpha, x, y)),
          "a non-contiguous x is read as its values")

    print("The planted bug (masks the columns' edge only), 37 x 70 in blocks of "
          f"{ext.block_rows} rows:")
    z, found = ext.simulate(alpha, x, y, kernel="masking_columns_only")
    print("    " + found["report"].replace("\n", "\n    "))
    check(not found["clean"] and found["kind"] == "out-of-bounds",
          "the simulator reports out-of-bounds", found["kind"] or "clean")
    check(found["buffer"] == "x" and found["program"] == (4, 0, 0),
          "on x, in program 4 (rows 32 to 39, of which 37 to 39 are past the end)",
          f"{found['buffer']}, program {found['program']}")
    check("planted_bug.hpp:" in found["source"] and "outside the buffer" in found["report"],
          "at the kernel's line, with the offsets past the end", found["source"])
    message = raises(RuntimeError, lambda: ext.row_axpy(alpha, x, y, kernel="masking_columns_only"))
    check(message is not None and message.startswith("out-of-bounds: program (4, 0, 0)"),
          "row_axpy raises RuntimeError with the diagnostic", str(message))
    alpha40, x40, y40 = inputs(40, 70)
    z, found = ext.simulate(alpha40, x40, y40, kernel="masking_columns_only")
    check(found["clean"] and torch.equal(z, expected(alpha40, x40, y40)),
          "the same bug passes on 40 rows, a multiple of the block: why the shapes are ragged",
          found["report"])

    print("Arguments the kernel cannot take:")
    for what, call, text in [
        ("float64", lambda: ext.row_axpy(alpha.double(), x.double(), y.double()), "float32"),
        ("y of another shape", lambda: ext.row_axpy(alpha, x, y[:, :69]), "y has x's shape"),
        ("alpha of another length", lambda: ext.row_axpy(alpha[:36], x, y), "one scale per row"),
        ("an unknown program order", lambda: ext.simulate(alpha, x, y, order="sideways"),
         "forward, reverse or shuffle"),
    ]:
        message = raises(ValueError, call)
        check(message is not None and text in message, f"{what}: ValueError", str(message))


def gpu_checks(ext):
    print(f"On the GPU ({torch.cuda.get_device_name()}):")
    for rows, cols in [(37, 70), (1, 1), (1000, 777), (4096, 4099)]:
        alpha, x, y = inputs(rows, cols, device="cuda", seed=rows + cols)
        z = ext.row_axpy(alpha, x, y)
        torch.cuda.synchronize()
        want = expected(alpha, x, y)
        # nvcc may fuse the product and the sum into one FMA, which rounds once where torch
        # rounds twice: within an ulp of the product and of the sum.
        bound = 1e-6 * ((alpha[:, None] * x).abs() + y.abs())
        within = ((z - want).abs() <= bound).all().item()
        same = (z == want).sum().item()
        check(within, f"{rows} x {cols}: torch's result within the FMA bound "
              f"({same} of {rows * cols} elements the same bits)",
              f"largest difference {(z - want).abs().max().item()}")
        if rows * cols <= 1000 * 777:
            z_sim, found = ext.simulate(alpha.cpu(), x.cpu(), y.cpu())
            check(found["clean"] and ((z.cpu() - z_sim).abs() <= bound.cpu()).all().item(),
                  f"{rows} x {cols}: the simulator's result, within the same bound",
                  found["report"])

    # The launch is on torch's current stream: on a stream busy sleeping, with y's new values
    # queued behind the sleep, the kernel must see the new values. Launched on another stream it
    # would run at once and read the old ones.
    alpha, x, y = inputs(256, 512, device="cuda", seed=1)
    y_new = torch.randn_like(y)
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        torch.cuda._sleep(1_000_000_000)  # cycles: about half a second at 2 GHz
        y.copy_(y_new)
        z = ext.row_axpy(alpha, x, y)
        busy = not side.query()
    side.synchronize()
    want = expected(alpha, x, y_new)
    check(busy, "the side stream is still asleep after the launch (so the next check means "
          "something)")
    check(((z - want).abs() <= 1e-6 * ((alpha[:, None] * x).abs() + y_new.abs())).all().item(),
          "launched on torch's current stream: ordered after the copy queued before it")

    alpha, x, y = inputs(37, 70, device="cuda")
    message = raises(ValueError, lambda: ext.row_axpy(alpha.cpu(), x, y))
    check(message is not None and "one device" in message, "alpha on the CPU, x on the GPU: "
          "ValueError", str(message))
    message = raises(ValueError, lambda: ext.row_axpy(alpha, x, y, kernel="masking_columns_only"))
    check(message is not None and "simulator only" in message,
          "the planted bug is refused on the GPU", str(message))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", default=os.environ.get("TILEPUZZLES_PREFIX"),
                        help="the installed tilepuzzles (default: $TILEPUZZLES_PREFIX)")
    parser.add_argument("--build-dir", help="where the extension is built (default: a new "
                        "temporary folder)")
    parser.add_argument("--require-cuda", action="store_true",
                        help="fail, rather than skip the GPU part, where it cannot run")
    args = parser.parse_args()
    if not args.prefix:
        parser.error("name the installed tilepuzzles: --prefix PREFIX or TILEPUZZLES_PREFIX")
    print(f"torch {torch.__version__} (CUDA {torch.version.cuda}), "
          f"GPU: {torch.cuda.is_available()}")
    with tempfile.TemporaryDirectory(prefix="tl_row_axpy.") as temporary:
        build_dir = Path(args.build_dir or temporary).resolve()
        ext = build(args.prefix, build_dir, True if args.require_cuda else None)
        cpu_checks(ext)
        if ext.has_cuda and torch.cuda.is_available():
            gpu_checks(ext)
        elif args.require_cuda:
            check(False, "the GPU part runs", "torch sees no GPU")
        else:
            print("The GPU part is skipped: " + ("torch sees no GPU" if not torch.cuda.is_available()
                  else "the extension was built without CUDA"))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
