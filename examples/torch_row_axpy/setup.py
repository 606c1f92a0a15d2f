"""Builds tl_row_axpy, a PyTorch extension that runs a `tl` kernel on torch tensors: CUDA tensors
on the GPU (tl::launch on torch's current stream), CPU tensors in the tilepuzzles simulator
(tl::simulate, every access checked). docs/tl.md, "Using `tl` in your own code", has the rest.

From an installed tilepuzzles (cmake --install BUILD --prefix ~/tl):

    TILEPUZZLES_PREFIX=~/tl pip install --no-build-isolation ./examples/torch_row_axpy

(--no-build-isolation: the build needs the torch you have, not a fresh one from the registry.)
test_row_axpy.py builds it into a folder of its own and tests it. The environment:

    TILEPUZZLES_PREFIX  the install prefix (required)
    EIGEN3_INCLUDE_DIR  Eigen's headers, where they are not under /usr/include/eigen3,
                        /usr/local/include/eigen3, /opt/homebrew/include/eigen3 or a
                        CMAKE_PREFIX_PATH entry's include/eigen3
    TL_ROW_AXPY_CUDA    1: build the GPU launch (an error where it cannot be built), 0: do not;
                        unset: where torch sees a GPU, nvcc is found and the install has tl's GPU
                        backend
    TORCH_CUDA_ARCH_LIST  the GPUs to compile for (torch's variable; default: the ones it sees)

The flags are those of the CMake targets (cmake/install.cmake): tilepuzzles::tl gives g++
-std=c++20 and -ffp-contract=off (the simulator's results are the same bits as the plain C++
expression only without fused multiply-adds) and links libtilepuzzles_simulator;
tilepuzzles::tl_cuda gives nvcc -std=c++20 --expt-relaxed-constexpr.
"""
import glob
import os
import sys
from pathlib import Path

import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CppExtension, CUDAExtension

HERE = Path(__file__).resolve().parent


def fail(message):
    sys.exit(f"tl_row_axpy: {message}")


prefix = os.environ.get("TILEPUZZLES_PREFIX")
if not prefix:
    fail("set TILEPUZZLES_PREFIX to an installed tilepuzzles "
         "(cmake --install BUILD --prefix PREFIX in the tilepuzzles tree)")
prefix = Path(prefix).expanduser().resolve()
include = prefix / "include" / "tilepuzzles"
if not (include / "tile" / "tl.hpp").is_file():
    fail(f"{prefix} is not an install of tilepuzzles: it has no include/tilepuzzles/tile/tl.hpp "
         "(cmake --install BUILD --prefix PREFIX in the tilepuzzles tree)")
# lib/ on Debian and macOS; lib64/ or lib/<multiarch>/ where GNUInstallDirs chose so.
libraries = sorted(glob.glob(str(prefix / "lib*" / "libtilepuzzles_simulator.*")) +
                   glob.glob(str(prefix / "lib" / "*" / "libtilepuzzles_simulator.*")))
if not libraries:
    fail(f"{prefix} has no libtilepuzzles_simulator (the simulator's runtime): build the target "
         "tilepuzzles_simulator before cmake --install")
libdir = str(Path(libraries[0]).parent)


def eigen_include():
    """The folder that holds Eigen/Core: the simulator's half types are Eigen's."""
    if os.environ.get("EIGEN3_INCLUDE_DIR"):
        candidates = [os.environ["EIGEN3_INCLUDE_DIR"]]
    else:
        roots = [p for p in os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep) if p]
        roots += ["/usr", "/usr/local", "/opt/homebrew"]
        candidates = [os.path.join(root, "include", "eigen3") for root in roots]
    for candidate in candidates:
        if os.path.isfile(os.path.join(candidate, "Eigen", "Core")):
            return candidate
    fail("Eigen's headers are not in " + ", ".join(candidates) +
         ": set EIGEN3_INCLUDE_DIR to the folder that holds Eigen/Core")


gpu_backend = (include / "cuda" / "launch.cuh").is_file()
wanted = os.environ.get("TL_ROW_AXPY_CUDA")
if wanted == "1":
    if torch.version.cuda is None:
        fail(f"TL_ROW_AXPY_CUDA=1, but this torch ({torch.__version__}) has no CUDA")
    if CUDA_HOME is None:
        fail("TL_ROW_AXPY_CUDA=1, but torch finds no CUDA toolkit: set CUDA_HOME, or put nvcc "
             "on PATH")
    if not gpu_backend:
        fail(f"TL_ROW_AXPY_CUDA=1, but {prefix} was installed from a build without CUDA "
             "(no include/tilepuzzles/cuda/launch.cuh)")
    if not torch.cuda.is_available() and not os.environ.get("TORCH_CUDA_ARCH_LIST"):
        # torch compiles for the GPUs it sees, and sees none here.
        fail("TL_ROW_AXPY_CUDA=1 without a GPU: set TORCH_CUDA_ARCH_LIST (9.0 for H100/H200, "
             "8.0 for A100)")
    with_cuda = True
elif wanted in (None, ""):
    with_cuda = torch.cuda.is_available() and CUDA_HOME is not None and gpu_backend
elif wanted == "0":
    with_cuda = False
else:
    fail(f"TL_ROW_AXPY_CUDA is 1, 0 or unset, not '{wanted}'")
print(f"tl_row_axpy: tilepuzzles from {prefix}, "
      f"{'the GPU launch and the simulator' if with_cuda else 'the simulator only'}")

# row_axpy.hpp, the kernel, is examples/row_axpy's: one source for both examples.
include_dirs = [str(HERE), str(HERE.parent / "row_axpy"), str(include), eigen_include()]
sources = ["row_axpy_ext.cpp", "row_axpy_sim.cpp"]
cxx_flags = ["-std=c++20", "-ffp-contract=off", "-O2"]  # the simulator checks every lane: -O0 crawls
arguments = dict(
    name="tl_row_axpy",
    include_dirs=include_dirs,
    library_dirs=[libdir],
    libraries=["tilepuzzles_simulator"],
    # Found at run time without LD_LIBRARY_PATH.
    extra_link_args=[f"-Wl,-rpath,{libdir}"],
)
if with_cuda:
    extension = CUDAExtension(
        sources=sources + ["row_axpy_gpu.cu"],
        extra_compile_args={"cxx": cxx_flags + ["-DROW_AXPY_WITH_CUDA"],
                            "nvcc": ["-std=c++20", "--expt-relaxed-constexpr", "-O2"]},
        **arguments)
else:
    extension = CppExtension(sources=sources, extra_compile_args={"cxx": cxx_flags}, **arguments)

os.chdir(HERE)  # the sources are named relative to this folder, wherever setup.py is run from
setup(
    name="tl_row_axpy",
    version="0.1",
    description="A tl kernel on torch tensors: the GPU for CUDA tensors, the tilepuzzles "
                "simulator for CPU tensors",
    ext_modules=[extension],
    cmdclass={"build_ext": BuildExtension},
)
