// tl::dot's A operand from registers (cuda/mma_registers.cuh), on the host emulation: the
// fragments it packs from a tile in the accumulator layout are, lane by lane, the ones the PTX ISA
// documents for mma.sync m16n8k16 (and the ones ldmatrix reads from the staged copy, the path it
// replaces), and the lowering takes that path exactly where the warps split M only. The parity
// tests (tests/gpu/dot_parity.cpp, "a declared" kernels) run it inside whole products.
#define TL_EMULATED_GPU 1
#define TL_NUM_WARPS 4
#include "cuda/host_emulation.hpp"  // first: the CUDA names the backend's headers use

#include <catch2/catch.hpp>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "tile/tl.hpp"
#include "cuda/mma.cuh"

namespace {

namespace cu = tl::cuda;
namespace lay = tl::layouts;

template <int M, int K, int N, int Bytes = 2>
constexpr bool from_registers() {
  using LA = cu::declared_layout<tl::shape<M, K>>;
  using LC = cu::declared_layout<tl::shape<M, N>>;
  return cu::a_operand_in_registers<cu::mma_tiles, LA::value, LC::value, lay::log2_exact(M),
                                    lay::log2_exact(K), lay::log2_exact(N), Bytes>::value;
}

// With 4 warps: rows of 16 per warp from M = 64 up; below, warps split K (and N).
static_assert(from_registers<64, 64, 64>() && from_registers<128, 32, 64>() &&
              from_registers<64, 16, 128>());
static_assert(!from_registers<32, 64, 64>() && !from_registers<16, 32, 32>());
static_assert(!from_registers<64, 64, 64, 4>());  // TF32: the fragments are other words

constexpr int M = 128, K = 32, N = 64;  // per warp: two m16 tiles, two k-steps of 16
using SA = tl::shape<M, K>;
using LA = cu::declared_layout<SA>;
using LC = cu::declared_layout<tl::shape<M, N>>;
using in_registers = cu::a_operand_in_registers<cu::mma_tiles, LA::value, LC::value,
                                                lay::log2_exact(M), lay::log2_exact(K),
                                                lay::log2_exact(N), 2>;
static_assert(in_registers::value);
using tiles = cu::mma_tiles<LC::value, lay::log2_exact(N)>;

// Each element of a is its own flat index, as bits: a fragment names the elements it holds.
std::uint16_t code(int row, int col) { return static_cast<std::uint16_t>(row * K + col); }

// The m16n8k16 A fragment of lane 4g + q at rows r0.., columns k0.. (PTX ISA, "Matrix Fragments
// for mma.m16n8k16 with floating point type"): a0 a1 (g, 2q), (g, 2q + 1); a2 a3 row g + 8;
// a4 a5 column + 8; a6 a7 both; two 16-bit elements per register, the lower column low.
std::uint32_t documented(int reg, int lane, int r0, int k0) {
  const int g = lane / 4, q = lane % 4;
  const int row = r0 + g + (reg & 1) * 8, col = k0 + 2 * q + (reg >> 1) * 8;
  return code(row, col) | (static_cast<std::uint32_t>(code(row, col + 1)) << 16);
}

struct fragments {
  // [thread][m-tile][k-step][register]: from registers, from ldmatrix, documented.
  std::vector<std::uint32_t> packed, loaded, expected;
};

fragments gather() {
  constexpr int threads = 32 * TL_NUM_WARPS, steps = K / 16, per_thread = tiles::mt * steps * 4;
  fragments f;
  f.packed.assign(threads * per_thread, 0);
  f.loaded = f.expected = f.packed;
  tl::emulation::block block;
  const std::string error = block.run({0, 0, 0}, {1, 1, 1}, threads, [&] {
    using SwzA = cu::swizzled<M, K, 2>;
    static std::uint16_t staged[SwzA::elements];
    cu::registers<tl::float16, SA, LA> a;
    const int base = cu::thread_flat<LA>();
    cu::static_for<LA::registers>([&](auto r) {
      const int flat = cu::flat_of<LA, decltype(r)::value>(base);
      a.regs[decltype(r)::value] = tl::float16::from_bits(code(flat / K, flat % K));
    });
    cu::stage<SwzA, std::uint16_t>(staged, a, [](const auto& x) { return cu::half_bits(x); });
    __syncthreads();
    const int me = static_cast<int>(threadIdx.x), lane = cu::lane_id();
    const int row0 = (cu::thread_flat<LC>() >> lay::log2_exact(N)) & ~15;
    for (int m = 0; m < tiles::mt; ++m)
      for (int s = 0; s < steps; ++s) {
        const int k0 = 16 * s, r0 = row0 + tiles::row(m * tiles::nt);
        std::uint32_t from_regs[4], from_shared[4];
        cu::a_fragment_from_registers<in_registers::n_tiles>(from_regs, a, m, k0);
        const int row = r0 + (lane & 7) + ((lane >> 3) & 1) * 8, chunk = k0 / 8 + (lane >> 4);
        cu::ldmatrix<4, false>(from_shared, staged + SwzA::chunk_at(row, chunk) * 8);
        for (int i = 0; i < 4; ++i) {
          const int at = ((me * tiles::mt + m) * steps + s) * 4 + i;
          f.packed[at] = from_regs[i];
          f.loaded[at] = from_shared[i];
          f.expected[at] = documented(i, lane, r0, k0);
        }
      }
  });
  REQUIRE(error.empty());
  return f;
}

std::string first_difference(const std::vector<std::uint32_t>& got,
                             const std::vector<std::uint32_t>& want) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != want[i]) {
      std::ostringstream o;
      o << "thread " << i / (tiles::mt * (K / 16) * 4) << ", register " << i % 4 << ": 0x" << std::hex
        << got[i] << " instead of 0x" << want[i];
      return o.str();
    }
  return {};
}

}  // namespace

TEST_CASE("dot's A fragments packed from an accumulator-layout tile are the documented m16n8k16 "
          "fragments, and ldmatrix's",
          "[emulation][dot]") {
  const fragments f = gather();
  CHECK(first_difference(f.packed, f.expected).empty());
  CHECK(first_difference(f.loaded, f.expected).empty());
}

TEST_CASE("a fragment mapping with the k halves or the row halves swapped fails that check",
          "[emulation][dot]") {
  // The twin of the check above: a lowering that paired the accumulator's registers wrongly
  // (a1 and a2 swapped, or a0 and a1) would hand other elements to the tensor cores, and the
  // comparison sees it.
  fragments f = gather();
  auto swapped = [&](int i, int j) {
    std::vector<std::uint32_t> w = f.packed;
    for (std::size_t at = 0; at < w.size(); at += 4) std::swap(w[at + i], w[at + j]);
    return w;
  };
  CHECK_FALSE(first_difference(swapped(1, 2), f.expected).empty());
  CHECK_FALSE(first_difference(swapped(0, 1), f.expected).empty());
}
