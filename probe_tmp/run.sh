#!/usr/bin/env bash
# Temporary: builds the probe variants in parallel and runs them.
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
F="-std=c++20 --expt-relaxed-constexpr -arch=sm_90a -I . -O3"
b() { local name=$1; shift
  nvcc $F "$@" "-DLABEL=\"$name\"" -o /tmp/p_$name probe_tmp/probe.cu > /tmp/p_$name.log 2>&1 || echo "build $name failed: $(grep -m3 error /tmp/p_$name.log)"; }
b st2_128x128x64_w8 -DTL_NUM_WARPS=8 -DKT=MatmulStaged -DKB0=128 -DKB1=128 -DKBK=64 -DKST=2 -DKW=8 &
b st2_128x128x64_w8_noreadback -DTL_NUM_WARPS=8 -DKT=MatmulStaged -DKB0=128 -DKB1=128 -DKBK=64 -DKST=2 -DKW=8 -DTL_PROBE_NO_READBACK &
b st3_128x128x32_w8_noreadback -DTL_NUM_WARPS=8 -DKT=MatmulStaged -DKB0=128 -DKB1=128 -DKBK=32 -DKST=3 -DKW=8 -DTL_PROBE_NO_READBACK &
b st3_128x128x64_w8_noreadback -DTL_NUM_WARPS=8 -DKT=MatmulStaged -DKB0=128 -DKB1=128 -DKBK=64 -DKST=3 -DKW=8 -DTL_PROBE_NO_READBACK &
b st2_128x256x64_w8_noreadback -DTL_NUM_WARPS=8 -DKT=MatmulStaged -DKB0=128 -DKB1=256 -DKBK=64 -DKST=2 -DKW=8 -DTL_PROBE_NO_READBACK &
b st2_256x128x64_w16_noreadback -DTL_NUM_WARPS=16 -DKT=MatmulStaged -DKB0=256 -DKB1=128 -DKBK=64 -DKST=2 -DKW=16 -DTL_PROBE_NO_READBACK &
b st3_128x64x64_w4_noreadback -DTL_NUM_WARPS=4 -DKT=MatmulStaged -DKB0=128 -DKB1=64 -DKBK=64 -DKST=3 -DKW=4 -DTL_PROBE_NO_READBACK &
b st3_64x128x64_w4_noreadback -DTL_NUM_WARPS=4 -DKT=MatmulStaged -DKB0=64 -DKB1=128 -DKBK=64 -DKST=3 -DKW=4 -DTL_PROBE_NO_READBACK &
wait
for p in st2_128x128x64_w8 st2_128x128x64_w8_noreadback st3_128x128x32_w8_noreadback st3_128x128x64_w8_noreadback st2_128x256x64_w8_noreadback st2_256x128x64_w16_noreadback st3_128x64x64_w4_noreadback st3_64x128x64_w4_noreadback; do
  [ -x /tmp/p_$p ] && /tmp/p_$p
done
