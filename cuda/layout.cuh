// Layouts: which thread of a program holds which element of a tile, and in which register.
//
// After Triton's linear layouts. Every tile dimension is a power of two, so an element's
// row-major flat index is a bit string (the last dimension in the lowest bits), and so is a
// thread's place: register index r, lane l (5 bits) and warp w. A layout maps each of those
// input bits to one output bit of the flat index, or, for lanes and warps, to none: then the
// threads that differ in that bit hold the same elements (the tile is replicated across them).
// The element that register r of lane l of warp w holds is the OR (over GF(2), the XOR) of the
// output bits of the input bits set in r, l and w. Since each output bit comes from exactly one
// input bit, an element's coordinates split into a per-thread part (lane and warp bits, computed
// once) plus a compile-time part (the register bits): that is how every operation addresses its
// elements without index arithmetic per element.
//
// The layouts a kernel meets:
//   blocked      what load produces and what an expression without a data operand of its full
//                shape is evaluated in: 4 consecutive elements of the last dimension per thread
//                (16-byte vectors of float), 8 for a load or store of 16-bit elements,
//                coalesced across lanes;
//   declared     what `tl::tile<T, dims...>` holds: for [M, N] with M >= 16 and N >= 8 the
//                accumulator layout of mma.sync (m16n8), so acc = dot(a, b, acc) needs no
//                conversion; otherwise blocked;
//   slice        what a reduction produces: its operand's layout without the reduced bits, so
//                broadcasting the result back (row_max.col()) is free;
//   mma_operand  the A and B fragments of mma.sync m16n8k16 for 16-bit operands;
//   transposed   what tl::trans of a tile in any of these holds: its layout, output bits relabelled.
//
// Rows (all dimensions but the last, flattened) are placed the same way in blocked and in the
// mma accumulator layout: lanes 2, 3, 4 first, then one register, then warps, then registers.
// That placement depends only on the number of rows and warps, never on the columns, so the
// slice of a [B0, B1] tile along its last axis is the declared layout of a [B0] tile, whatever
// B1: the running max and sum of a softmax, and flash attention's row statistics, never convert.
//
// This header is plain constexpr C++ (no CUDA), so g++ tests it too (tests/gpu_layouts.cpp).
#pragma once

#include <array>
#include <cstddef>

namespace tl::layouts {

inline constexpr int lane_bits = 5;
inline constexpr int max_bits = 24;  // 16 M elements per tile: far more than registers allow

constexpr int log2_exact(long long n) {
  int b = 0;
  while ((1LL << b) < n) ++b;
  return b;
}

// A linear layout whose bases are single bits. `reg[i]` is the flat-index bit of register bit i;
// `lane[i]` and `warp[i]` the bit of lane and warp bit i, or -1 where the tile is replicated.
struct linear_layout {
  int out_bits = 0;   // log2 of the tile's element count
  int reg_bits = 0;   // log2 of the registers per thread
  int warp_bits = 0;  // log2 of the warps per program
  std::array<signed char, max_bits> reg{};
  std::array<signed char, lane_bits> lane{-1, -1, -1, -1, -1};
  std::array<signed char, lane_bits> warp{-1, -1, -1, -1, -1};

  constexpr bool operator==(const linear_layout&) const = default;

  constexpr int registers() const { return 1 << reg_bits; }

  // The flat-index bits that register r holds (the compile-time part of a position).
  constexpr long long register_bits_of(int r) const {
    long long flat = 0;
    for (int i = 0; i < reg_bits; ++i)
      if ((r >> i) & 1) flat |= 1LL << reg[i];
    return flat;
  }
  // The register that holds the flat-index bits `flat` has set among its own (-1 if a bit of
  // `flat` does not come from a register).
  constexpr int register_of(long long flat) const {
    int r = 0;
    for (int i = 0; i < reg_bits; ++i)
      if ((flat >> reg[i]) & 1) {
        r |= 1 << i;
        flat &= ~(1LL << reg[i]);
      }
    return flat == 0 ? r : -1;
  }
  // Lane and warp bits across which this layout is replicated: a thread with any of them set
  // holds copies, and only the thread with all of them clear writes an element out.
  constexpr unsigned replicated_lanes() const {
    unsigned m = 0;
    for (int i = 0; i < lane_bits; ++i)
      if (lane[i] < 0) m |= 1u << i;
    return m;
  }
  constexpr unsigned replicated_warps() const {
    unsigned m = 0;
    for (int i = 0; i < warp_bits; ++i)
      if (warp[i] < 0) m |= 1u << i;
    return m;
  }
  // Which input provides each output bit: 0 register, 1 lane, 2 warp, -1 nothing (an error).
  constexpr int source_kind(int out) const {
    for (int i = 0; i < reg_bits; ++i)
      if (reg[i] == out) return 0;
    for (int i = 0; i < lane_bits; ++i)
      if (lane[i] == out) return 1;
    for (int i = 0; i < warp_bits; ++i)
      if (warp[i] == out) return 2;
    return -1;
  }
  // Every output bit comes from exactly one input bit, and registers are never replicated.
  constexpr bool valid() const {
    if (out_bits < 0 || out_bits > max_bits || reg_bits < 0 || reg_bits > max_bits ||
        warp_bits < 0 || warp_bits > lane_bits)
      return false;
    int hits[max_bits] = {};
    for (int i = 0; i < reg_bits; ++i) {
      if (reg[i] < 0 || reg[i] >= out_bits) return false;
      ++hits[reg[i]];
    }
    for (int i = 0; i < lane_bits; ++i)
      if (lane[i] >= 0) {
        if (lane[i] >= out_bits) return false;
        ++hits[lane[i]];
      }
    for (int i = 0; i < lane_bits; ++i)
      if (warp[i] >= 0) {
        if (i >= warp_bits || warp[i] >= out_bits) return false;
        ++hits[warp[i]];
      }
    for (int b = 0; b < out_bits; ++b)
      if (hits[b] != 1) return false;
    return true;
  }
};

// A tile's shape as the bit ranges of its dimensions in the flat index.
template <std::size_t Rank>
struct bit_shape {
  std::array<int, Rank> log2_dims{};
  constexpr int total() const {
    int t = 0;
    for (int d : log2_dims) t += d;
    return t;
  }
  // The lowest flat-index bit of dimension `axis` (row-major: the last dimension lowest).
  constexpr int low_bit(int axis) const {
    int b = 0;
    for (int a = static_cast<int>(Rank) - 1; a > axis; --a) b += log2_dims[a];
    return b;
  }
};

namespace detail {

struct builder {
  linear_layout l;
  constexpr void add_register(int out) { l.reg[l.reg_bits++] = static_cast<signed char>(out); }
};

// Places the row bits [first_row, out_bits): lanes 2, 3, 4, one register, the warps, registers
// for what is left. The same for every layout that has rows, so that their slices agree.
constexpr void place_rows(builder& b, int first_row, int warp_bits) {
  int next = first_row;
  const int end = b.l.out_bits;
  for (int lane = 2; lane < lane_bits && next < end; ++lane) b.l.lane[lane] = next++;
  if (next < end) b.add_register(next++);
  for (int w = 0; w < warp_bits && next < end; ++w) b.l.warp[w] = next++;
  while (next < end) b.add_register(next++);
}

}  // namespace detail

// Triton's blocked layout, fixed to one shape of it: the last dimension's lowest `vector_bits`
// bits in the first registers (2: four 32-bit elements, a 16-byte vector; 3: eight 16-bit ones),
// the rows placed as above, then the columns on lanes 0 and 1, on the lanes and warps the rows
// left, and in registers.
template <std::size_t Rank>
constexpr linear_layout blocked(bit_shape<Rank> s, int warp_bits, int vector_bits = 2) {
  detail::builder b;
  b.l.out_bits = s.total();
  b.l.warp_bits = warp_bits;
  const int cols = Rank > 0 ? s.log2_dims[Rank - 1] : 0;
  int next_col = 0;
  while (next_col < cols && next_col < vector_bits) b.add_register(next_col++);
  // Rows first, so that their placement does not depend on the columns.
  detail::builder rows;
  rows.l.out_bits = b.l.out_bits;
  detail::place_rows(rows, cols, warp_bits);
  for (int i = 0; i < lane_bits; ++i) b.l.lane[i] = rows.l.lane[i];
  for (int i = 0; i < warp_bits; ++i) b.l.warp[i] = rows.l.warp[i];
  // The row registers come right after the vector, in their order.
  const int row_registers = rows.l.reg_bits;
  for (int lane = 0; lane < lane_bits && next_col < cols; ++lane)
    if (b.l.lane[lane] < 0) b.l.lane[lane] = static_cast<signed char>(next_col++);
  for (int w = 0; w < warp_bits && next_col < cols; ++w)
    if (b.l.warp[w] < 0) b.l.warp[w] = static_cast<signed char>(next_col++);
  if (row_registers > 0) b.add_register(rows.l.reg[0]);
  while (next_col < cols) b.add_register(next_col++);
  for (int i = 1; i < row_registers; ++i) b.add_register(rows.l.reg[i]);
  return b.l;
}

// The accumulator of mma.sync m16n8 (fp32), with warps along M first: register bit 0 is column
// bit 0, lanes 0 and 1 columns 1 and 2, lanes 2 to 4 rows 0 to 2, register bit 1 row 3 (the
// accumulator's c0 c1 / c2 c3 halves), then warps along rows, the remaining warps along columns,
// and registers for the repetitions along N, then along M.
constexpr linear_layout mma_accumulator(int log2_m, int log2_n, int warp_bits) {
  detail::builder b;
  b.l.out_bits = log2_m + log2_n;
  b.l.warp_bits = warp_bits;
  const int row0 = log2_n;
  b.add_register(0);              // c0/c1: column bit 0
  b.l.lane[0] = 1;                // lane % 4: column bits 1, 2
  b.l.lane[1] = 2;
  b.l.lane[2] = static_cast<signed char>(row0);  // lane / 4: row bits 0, 1, 2
  b.l.lane[3] = static_cast<signed char>(row0 + 1);
  b.l.lane[4] = static_cast<signed char>(row0 + 2);
  b.add_register(row0 + 3);       // c2/c3: row + 8
  int next_row = row0 + 4, next_col = 3;
  int w = 0;
  for (; w < warp_bits && next_row < b.l.out_bits; ++w) b.l.warp[w] = static_cast<signed char>(next_row++);
  for (; w < warp_bits && next_col < log2_n; ++w) b.l.warp[w] = static_cast<signed char>(next_col++);
  while (next_col < log2_n) b.add_register(next_col++);
  while (next_row < b.l.out_bits) b.add_register(next_row++);
  return b.l;
}

// mma.sync m16n8k16's A fragment ([M, K], 16-bit elements): a0 a1 = (g, 2q..2q+1), a2 a3 = row
// g + 8, a4..a7 = column + 8, with g = lane / 4 and q = lane % 4; warps along M as in the
// accumulator, the others holding copies; registers for the repetitions along K, then M.
constexpr linear_layout mma_operand_a(int log2_m, int log2_k, int warp_bits) {
  detail::builder b;
  b.l.out_bits = log2_m + log2_k;
  b.l.warp_bits = warp_bits;
  const int row0 = log2_k;
  b.add_register(0);              // k bit 0
  b.add_register(row0 + 3);       // row + 8
  b.add_register(3);              // k + 8
  b.l.lane[0] = 1;
  b.l.lane[1] = 2;
  b.l.lane[2] = static_cast<signed char>(row0);
  b.l.lane[3] = static_cast<signed char>(row0 + 1);
  b.l.lane[4] = static_cast<signed char>(row0 + 2);
  int next_row = row0 + 4;
  for (int w = 0; w < warp_bits && next_row < b.l.out_bits; ++w) b.l.warp[w] = static_cast<signed char>(next_row++);
  for (int k = 4; k < log2_k; ++k) b.add_register(k);
  while (next_row < b.l.out_bits) b.add_register(next_row++);
  return b.l;
}

// mma.sync m16n8k16's B fragment ([K, N], 16-bit elements): b0 b1 = (k = 2q..2q+1, n = g),
// b2 b3 = k + 8; the warps the accumulator puts along N split N here, the others hold copies;
// registers for the repetitions along K, then N.
constexpr linear_layout mma_operand_b(int log2_k, int log2_n, int log2_m, int warp_bits) {
  detail::builder b;
  b.l.out_bits = log2_k + log2_n;
  b.l.warp_bits = warp_bits;
  const int k0 = log2_n;  // K is the row dimension of b
  b.add_register(k0);           // k bit 0
  b.add_register(k0 + 3);       // k + 8
  b.l.lane[0] = static_cast<signed char>(k0 + 1);
  b.l.lane[1] = static_cast<signed char>(k0 + 2);
  b.l.lane[2] = 0;              // n bits 0, 1, 2
  b.l.lane[3] = 1;
  b.l.lane[4] = 2;
  // The accumulator's warps: first along M (rows of 16), the rest along N (columns of 8).
  const int warps_on_m = log2_m - 4 < warp_bits ? (log2_m - 4 > 0 ? log2_m - 4 : 0) : warp_bits;
  int next_n = 3;
  for (int w = warps_on_m; w < warp_bits && next_n < log2_n; ++w) b.l.warp[w] = static_cast<signed char>(next_n++);
  for (int k = 4; k < log2_k; ++k) b.add_register(k0 + k);
  while (next_n < log2_n) b.add_register(next_n++);
  return b.l;
}

// What `tl::tile<T, dims...>` holds (see the top of this file).
template <std::size_t Rank>
constexpr linear_layout declared(bit_shape<Rank> s, int warp_bits) {
  if constexpr (Rank == 2) {
    if (s.log2_dims[0] >= 4 && s.log2_dims[1] >= 3)
      return mma_accumulator(s.log2_dims[0], s.log2_dims[1], warp_bits);
  }
  if constexpr (Rank == 1) {
    // A 1-D tile is a column of rows: the slice of a 2-D tile along its last axis.
    detail::builder b;
    b.l.out_bits = s.total();
    b.l.warp_bits = warp_bits;
    detail::place_rows(b, 0, warp_bits);
    return b.l;
  }
  return blocked(s, warp_bits);
}

// The layout of the transpose of a tile of [2^log_rows, 2^log_cols] in layout l: the same
// registers, lanes and warps, each output bit relabelled (a column bit c becomes bit log_rows + c
// of the transpose, a row bit log_cols + r becomes bit r). tl::trans moves no data.
constexpr linear_layout transposed(const linear_layout& l, int log_rows, int log_cols) {
  linear_layout t = l;
  auto relabel = [&](signed char out) -> signed char {
    if (out < 0) return out;
    return static_cast<signed char>(out < log_cols ? out + log_rows : out - log_cols);
  };
  for (int i = 0; i < l.reg_bits; ++i) t.reg[i] = relabel(l.reg[i]);
  for (int i = 0; i < lane_bits; ++i) t.lane[i] = relabel(l.lane[i]);
  for (int i = 0; i < lane_bits; ++i) t.warp[i] = relabel(l.warp[i]);
  return t;
}

// The layout of a reduction's result: the output bits [low, low + count) are gone; registers
// that held them are folded away, lanes and warps that held them now hold copies.
constexpr linear_layout without_bits(const linear_layout& l, int low, int count) {
  detail::builder b;
  b.l.out_bits = l.out_bits - count;
  b.l.warp_bits = l.warp_bits;
  auto renumber = [&](int out) -> int {
    if (out < 0) return -1;
    if (out < low) return out;
    if (out < low + count) return -1;
    return out - count;
  };
  for (int i = 0; i < l.reg_bits; ++i)
    if (renumber(l.reg[i]) >= 0) b.add_register(renumber(l.reg[i]));
  for (int i = 0; i < lane_bits; ++i) b.l.lane[i] = static_cast<signed char>(renumber(l.lane[i]));
  for (int i = 0; i < lane_bits; ++i)
    b.l.warp[i] = static_cast<signed char>(i < l.warp_bits ? renumber(l.warp[i]) : -1);
  return b.l;
}

// The layout a data tile must have to be read, register for register, while `target` is
// evaluated: `kept[j]` is the target's flat bit that the tile's flat bit j comes from (a tile
// broadcast to the target's shape keeps some of its bits). Registers of `target` whose bit is not
// kept read the same register of the tile; lanes and warps whose bit is not kept hold copies.
struct bit_map {
  int bits = 0;
  std::array<signed char, max_bits> from{};
  constexpr bool operator==(const bit_map&) const = default;
};

constexpr bit_map identity_map(int bits) {
  bit_map m;
  m.bits = bits;
  for (int i = 0; i < bits; ++i) m.from[i] = static_cast<signed char>(i);
  return m;
}

constexpr int kept_bit(const bit_map& kept, int target_bit) {
  for (int j = 0; j < kept.bits; ++j)
    if (kept.from[j] == target_bit) return j;
  return -1;
}

constexpr linear_layout projected(const linear_layout& target, const bit_map& kept) {
  detail::builder b;
  b.l.out_bits = kept.bits;
  b.l.warp_bits = target.warp_bits;
  for (int i = 0; i < target.reg_bits; ++i)
    if (kept_bit(kept, target.reg[i]) >= 0) b.add_register(kept_bit(kept, target.reg[i]));
  for (int i = 0; i < lane_bits; ++i)
    b.l.lane[i] = static_cast<signed char>(target.lane[i] < 0 ? -1 : kept_bit(kept, target.lane[i]));
  for (int i = 0; i < target.warp_bits; ++i)
    b.l.warp[i] = static_cast<signed char>(target.warp[i] < 0 ? -1 : kept_bit(kept, target.warp[i]));
  return b.l;
}

// Whether a tile in layout `have` can be read in place of one in `want` (the same elements in the
// same threads): then only its register order may differ.
constexpr bool same_threads(const linear_layout& have, const linear_layout& want) {
  return have.out_bits == want.out_bits && have.reg_bits == want.reg_bits &&
         have.lane == want.lane && have.warp == want.warp && have.warp_bits == want.warp_bits;
}

// For each register k of `target`, the register of a tile in layout `have` (with same_threads as
// projected(target, kept)) that holds the element register k needs.
template <int Registers>
constexpr std::array<int, Registers> register_map(const linear_layout& target, const bit_map& kept,
                                                  const linear_layout& have) {
  std::array<int, Registers> map{};
  for (int k = 0; k < Registers; ++k) {
    long long flat = 0;
    for (int i = 0; i < target.reg_bits; ++i)
      if ((k >> i) & 1) {
        const int j = kept_bit(kept, target.reg[i]);
        if (j >= 0) flat |= 1LL << j;
      }
    map[k] = have.register_of(flat);
  }
  return map;
}

// The layout as a type, so that a tile's type says where its elements live.
template <linear_layout L>
struct layout {
  static_assert(L.valid(), "tl (GPU backend): internal error: an invalid layout");
  static constexpr linear_layout value = L;
  static constexpr int registers = 1 << L.reg_bits;
};

}  // namespace tl::layouts
