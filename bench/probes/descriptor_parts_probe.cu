// Which part of tests/kernels/descriptor.hpp's kernel the GPU refuses: each part alone, one
// process per part (a GPU error ends the process's context). Usage: ./probe PART (0..6).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "checker/gpu_launch.cuh"
#include "tests/kernels/descriptor.hpp"
#include "tile/tl.hpp"

constexpr int R = 10, C = 20, B0 = 4, B1 = 8;

template <int Part>
struct Parts {
  static constexpr int num_warps = 4;
  TL_KERNEL void operator()(tl::ptr<const float> x, tl::ptr<const float> y, tl::ptr<float> z, int n) const {
    const int Rv = R, Cv = C;  // values: device code cannot odr-use a host constant
    if constexpr (Part == 1) {  // 2-D, blocks at the origin's grid
      auto xd = tl::make_tensor_descriptor(x, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
      for (int i = 0; i < R; i += B0)
        for (int j = 0; j < C; j += B1) {
          auto rows = i + tl::arange<B0>();
          auto cols = j + tl::arange<B1>();
          tl::store(z + rows.col() * Cv + cols.row(), xd.load({i, j}), (rows < Rv).col() & (cols < Cv).row());
        }
    } else if constexpr (Part == 2) {  // 2-D, a block at negative coordinates
      auto xd = tl::make_tensor_descriptor(x, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
      auto rows = tl::arange<B0>();
      auto cols = tl::arange<B1>();
      tl::store(z + rows.col() * Cv + cols.row(), xd.load({-3, -5}));
    } else if constexpr (Part == 3) {  // 1-D at -1
      auto y1 = tl::make_tensor_descriptor(y, {n - 1}, {1}, tl::block_shape<B1>);
      tl::store(z + tl::arange<B1>(), y1.load({-1}));
    } else if constexpr (Part == 4) {  // 1-D at 0
      auto y1 = tl::make_tensor_descriptor(y, {n - 1}, {1}, tl::block_shape<B1>);
      tl::store(z + tl::arange<B1>(), y1.load({0}));
    } else if constexpr (Part == 5) {  // 3-D
      auto x3 = tl::make_tensor_descriptor(x, {2, R / 2, C}, {R / 2 * C, C, 1}, tl::block_shape<2, B0, B1>);
      tl::store(z + tl::arange<2 * B0 * B1>(), tl::reshape<2 * B0 * B1>(x3.load({0, 0, 0})));
    } else if constexpr (Part >= 8 && Part <= 10) {  // 2-D at (0, 3), (-1, 0), (0, -8)
      constexpr int i = Part == 9 ? -1 : 0, j = Part == 8 ? 3 : Part == 10 ? -8 : 0;
      auto xd = tl::make_tensor_descriptor(x, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
      auto rows = tl::arange<B0>();
      auto cols = tl::arange<B1>();
      tl::store(z + rows.col() * Cv + cols.row(), xd.load({i, j}));
    } else if constexpr (Part == 11) {  // 1-D at 3
      auto y1 = tl::make_tensor_descriptor(y, {n - 1}, {1}, tl::block_shape<B1>);
      tl::store(z + tl::arange<B1>(), y1.load({3}));
    } else if constexpr (Part == 6) {  // two descriptors, one made after the other's load
      auto xd = tl::make_tensor_descriptor(x, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
      auto a = xd.load({0, 0});
      auto yd = tl::make_tensor_descriptor(y, {R, C}, {C, 1}, tl::block_shape<B0, B1>);
      auto rows = tl::arange<B0>();
      auto cols = tl::arange<B1>();
      tl::store(z + rows.col() * Cv + cols.row(), a + yd.load({0, 0}));
    }
  }
};

template <class K>
int run(const char* what, const float* x, const float* y, float* z, int n) {
  constexpr auto function = tp::gpu::program<K, tl::ptr<const float>, tl::ptr<const float>, tl::ptr<float>, int>;
  if (auto problem = tl::cuda::provide_tensor_maps(1); !problem.empty()) {
    std::printf("%s\n", problem.c_str());
    return 2;
  }
  const std::size_t shared = tp::gpu::shared_arena_bytes<function>();
  function<<<1, 32 * K::num_warps, shared>>>(K{}, {x}, {y}, {z}, n);
  auto e = cudaDeviceSynchronize();
  std::printf("%-40s %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char** argv) {
  const int part = argc > 1 ? std::atoi(argv[1]) : 1;
  const int n = R * C;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = float(i);
  float *x, *y, *z;
  cudaMalloc(&x, n * 4);
  cudaMalloc(&y, n * 4);
  cudaMalloc(&z, 64 * n * 4);
  cudaMemcpy(x, host.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(y, host.data(), n * 4, cudaMemcpyHostToDevice);
  switch (part) {
    case 1: return run<Parts<1>>("2-D at the grid", x, y, z, n);
    case 2: return run<Parts<2>>("2-D at (-3, -5)", x, y, z, n);
    case 3: return run<Parts<3>>("1-D at -1", x, y, z, n);
    case 4: return run<Parts<4>>("1-D at 0", x, y, z, n);
    case 5: return run<Parts<5>>("3-D", x, y, z, n);
    case 6: return run<Parts<6>>("two maps", x, y, z, n);
    case 8: return run<Parts<8>>("2-D at (0, 3)", x, y, z, n);
    case 9: return run<Parts<9>>("2-D at (-1, 0)", x, y, z, n);
    case 10: return run<Parts<10>>("2-D at (0, -8)", x, y, z, n);
    case 11: return run<Parts<11>>("1-D at 3", x, y, z, n);
    default: return run<test_kernels::Descriptors<float, R, C, B0, B1, 4>>("the test's kernel", x, y, z, n);
  }
}
