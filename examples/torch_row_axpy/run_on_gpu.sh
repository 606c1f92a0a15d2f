#!/usr/bin/env bash
# The PyTorch example end to end from a tilepuzzles build: installs it into a fresh prefix, then
# builds the extension against that prefix and runs test_row_axpy.py (the simulator on CPU
# tensors, the GPU on CUDA tensors).
#
#   bash examples/torch_row_axpy/run_on_gpu.sh [--allow-no-gpu] BUILD_DIR [WORK_DIR]
#
# BUILD_DIR: a configured and built tilepuzzles (its tilepuzzles_simulator at least; with CUDA
# for the GPU part). WORK_DIR (default: a temporary folder, removed afterwards) gets the prefix
# and the extension's build. Without --allow-no-gpu, a GPU part that cannot run (no GPU that
# torch sees, a build without CUDA) fails the run; with it, only the simulator's part runs (the
# ctest test tl_torch_extension does this).
# Needs: python3 with torch (PYTHON names another), cmake, g++; for the GPU part nvcc (CUDA_HOME,
# PATH, or /usr/local/cuda) of torch's CUDA major version. Eigen is found where the build found
# it. Exit status: 0 passed, 1 failed, 77 skipped (no torch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
allow_no_gpu=0
if [ "${1:-}" = --allow-no-gpu ]; then allow_no_gpu=1; shift; fi
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 [--allow-no-gpu] BUILD_DIR [WORK_DIR]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
python=${PYTHON:-python3}
if ! "$python" -c "import torch" 2>/dev/null; then
  echo "skipped: $python cannot import torch (PYTHON=... names another Python)"
  exit 77
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  echo "$build is not a configured tilepuzzles build (no CMakeCache.txt)" >&2
  exit 1
fi
if [ $# -eq 2 ]; then
  work=$2
  rm -rf "$work"
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
work=$(cd "$work" && pwd)

echo "== cmake --install $build --prefix $work/prefix"
if ! cmake --install "$build" --prefix "$work/prefix" > "$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "the install failed: is $build built (cmake --build $build --target tilepuzzles_simulator)?" >&2
  exit 1
fi
# Eigen where the build found it (Eigen3_DIR is PREFIX/share/eigen3/cmake), unless set already.
if [ -z "${EIGEN3_INCLUDE_DIR:-}" ]; then
  eigen_dir=$(sed -n 's/^Eigen3_DIR:PATH=//p' "$build/CMakeCache.txt")
  if [ -n "$eigen_dir" ] && [ -f "$eigen_dir/../../../include/eigen3/Eigen/Core" ]; then
    EIGEN3_INCLUDE_DIR=$(cd "$eigen_dir/../../../include/eigen3" && pwd)
    export EIGEN3_INCLUDE_DIR
  fi
fi
# torch looks for nvcc through CUDA_HOME, then PATH, then /usr/local/cuda.
if [ -z "${CUDA_HOME:-}" ] && ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

echo "== test_row_axpy.py"
require=()
if [ $allow_no_gpu -eq 0 ]; then require=(--require-cuda); fi
"$python" "$here/test_row_axpy.py" --prefix "$work/prefix" --build-dir "$work/extension" \
  "${require[@]}"
