// Tensor descriptors, after Triton's `tl.make_tensor_descriptor`:
//
//   auto a_desc = tl::make_tensor_descriptor(a, {M, K}, {K, 1}, tl::block_shape<BM, BK>);
//   auto a = a_desc.load({pid_m * BM, k});          // [BM, BK]
//   c_desc.store({pid_m * BM, pid_n * BN}, c);
//
// A descriptor is a strided view of one tensor (a base pointer, a shape and strides in elements)
// with a fixed block shape, and it moves whole blocks at element coordinates. Its one rule is the
// copy engine's (Hopper's TMA): a block's elements outside the shape read as zero and are not
// written. So `desc.load(c)` is `tl::load(p, in_shape, 0)` and `desc.store(c, v)` is
// `tl::store(p, v, in_shape)`, with p the block's pointer tile and in_shape its mask, both built
// here once for both backends; a backend may move the block another way (a TMA copy on Hopper)
// but not compute anything else.
//
// The block's rules are the copy engine's too, checked at compile time on both backends: at most
// 5 dimensions, each at most 256 elements, and the innermost at least 16 bytes. What the
// simulator checks at run time (a descriptor that reaches outside its buffer, a block wholly off
// the tensor) is in simulator/descriptor.hpp.
//
// The backend provides (simulator/descriptor.hpp, cuda/descriptor.cuh):
//   descriptor_state<T, Rank>        what a descriptor carries besides base, shape and strides
//   make_descriptor(desc, loc)       checks or prepares a new descriptor
//   descriptor_load<Elem, Block>(desc, coords, pointers, mask, loc)
//   descriptor_store<Elem, Block>(desc, coords, pointers, values, mask, loc)
#pragma once

#include <source_location>
#include <type_traits>
#include <utility>

#include "tile/expr.hpp"
#include "tile/memory.hpp"
#include "tile/range.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

template <int... Dims>
struct block_shape_t {};
// The block a descriptor moves, Triton's `block_shape=[BM, BK]`.
template <int... Dims>
inline constexpr block_shape_t<Dims...> block_shape{};

// A descriptor's shape, strides or block coordinates: `{M, K}`, each an integer or, for block
// coordinates, the index of a pipelined tl::range (`a_desc.load({row0, k})`). Such a coordinate
// is its index's value, and the list also remembers the range (type-erased: the list is not a
// template of the range's stages) and which coordinate it is: with that a backend may copy the
// blocks of the range's next iterations ahead (cuda/ring.cuh). Only a coordinate that is the
// index itself is linked; `k + 64` is an int like any other.
template <int Rank>
struct index_list {
  int v[Rank] = {};
  void* range = nullptr;  // the range_state<range_stages> of the linked coordinate's range
  int range_stages = 0;
  int range_axis = -1;    // the linked coordinate, or -1

  index_list() = default;
  template <class... C>
    requires(sizeof...(C) == Rank && ((std::is_integral_v<C> || is_range_index_v<C>) && ...))
  TL_FN constexpr index_list(const C&... c) {
    int axis = 0;
    (link(axis++, c), ...);
  }
  TL_FN constexpr int operator[](int i) const { return v[i]; }

 private:
  template <class C>
  TL_FN constexpr void link(int axis, const C& c) {
    v[axis] = static_cast<int>(c);
    if constexpr (is_range_index_v<C>) {
      if (range_axis < 0) {
        range = c.range;
        range_stages = C::stages;
        range_axis = axis;
      } else {
        range = nullptr;  // two indices: none is linked
        range_axis = -1;
      }
    }
  }
};

namespace detail {

// A 1-D tile placed along axis Axis of a tile of rank Rank (size 1 along the others).
template <int Axis, int Rank, class E>
TL_FN auto along_axis(const E& e) {
  if constexpr (Rank == 1) return e;
  else if constexpr (Axis > 0) return expand_dims<0>(along_axis<Axis - 1, Rank - 1>(e));
  else return expand_dims<Rank - 1>(along_axis<0, Rank - 1>(e));
}

// The tensor coordinate along Axis of each element of a block that starts at `origin`.
template <class Block, int Axis>
TL_FN auto block_coordinate(int origin, op_location loc) {
  return along_axis<Axis, Block::rank>(
      make_binary<op::add>(origin, arange<Block::dim(Axis)>(), loc));
}

template <class Block, int Axis>
TL_FN auto block_offsets(const int* origin, const int* strides, op_location loc) {
  auto term = make_binary<op::mul>(block_coordinate<Block, Axis>(origin[Axis], loc),
                                   strides[Axis], loc);
  if constexpr (Axis + 1 == Block::rank) return term;
  else return make_binary<op::add>(term, block_offsets<Block, Axis + 1>(origin, strides, loc), loc);
}

template <class Block, int Axis>
TL_FN auto block_in_shape(const int* origin, const int* shape) {
  auto coordinate = block_coordinate<Block, Axis>(origin[Axis], {});
  auto inside = make_binary<op::bit_and>(make_binary<op::greater_equal>(coordinate, 0, {}),
                                         make_binary<op::less>(coordinate, shape[Axis], {}), {});
  if constexpr (Axis + 1 == Block::rank) return inside;
  else return make_binary<op::bit_and>(inside, block_in_shape<Block, Axis + 1>(origin, shape), {});
}

template <class T, int... Dims>
constexpr bool check_block() {
  constexpr int rank = sizeof...(Dims);
  static_assert(rank >= 1 && rank <= 5,
                "tl::make_tensor_descriptor: a block has 1 to 5 dimensions (the copy engine's "
                "limit, as in Triton)");
  static_assert(((Dims <= 256) && ...),
                "tl::make_tensor_descriptor: every block dimension must be at most 256 elements "
                "(the copy engine's limit, as in Triton): use a smaller block, or two descriptors");
  constexpr int innermost = shape<Dims...>::dim(rank - 1);
  static_assert(innermost * sizeof(T) >= 16,
                "tl::make_tensor_descriptor: the block's innermost dimension must span at least "
                "16 bytes (4 float32 or 8 float16 elements), as in Triton: the copy engine moves "
                "16-byte pieces of each row");
  return true;
}

}  // namespace detail

// A strided view of one tensor that loads and stores blocks of shape Block, made by
// tl::make_tensor_descriptor. T is const for a tensor the kernel may only read.
template <class T, class Block>
class tensor_descriptor {
 public:
  using element_type = T;
  using block_type = Block;
  static constexpr int rank = Block::rank;

  ptr<T> base;
  index_list<rank> shape;
  index_list<rank> strides;
  backend::descriptor_state<T, rank> state;

  // The block whose first element is at `coords` (element coordinates, not block indices), as a
  // data tile; elements outside the shape read as zero. Always inlined on the GPU: where a
  // coordinate is a pipelined range's index, the range's stages are a constant only in sight of
  // the range (cuda/descriptor.cuh chooses the ring's slots by them).
  TL_FORCE_INLINE auto load(const index_list<rank>& coords,
                  std::source_location loc = std::source_location::current()) const {
    using Elem = std::remove_const_t<T>;
    return backend::template descriptor_load<Elem, Block>(*this, coords, pointers(coords, loc),
                                                          in_shape(coords), loc);
  }

  // Stores `values` (a tile or a number that broadcasts to the block, converted to T as by
  // tl::store) into the block at `coords`; elements outside the shape are not written.
  template <class V>
  TL_FORCE_INLINE void store(const index_list<rank>& coords, const V& values,
                   std::source_location loc = std::source_location::current()) const {
    static_assert(!std::is_const_v<T>,
                  "tensor_descriptor::store: this descriptor was made from a pointer to const "
                  "data (tl::ptr<const T>), which is read-only. Make the descriptor you store "
                  "through from the output's tl::ptr<T>.");
    static_assert(is_expr_v<V> || is_scalar_v<V>,
                  "tensor_descriptor::store: the values must be a tile or a number");
    using Elem = std::remove_const_t<T>;
    const auto& v = as_operand<V, full_expr<Elem, tl::shape<>>>(values);
    static_assert(broadcasts_to<shape_of_t<decltype(v)>, Block>,
                  "tensor_descriptor::store: the values' shape must broadcast to the descriptor's "
                  "block shape");
    if constexpr (!std::is_const_v<T>)
      backend::template descriptor_store<Elem, Block>(*this, coords, pointers(coords, loc), v,
                                                      in_shape(coords), loc);
  }

  // The pointer tile of the block at `coords` and the mask of its elements inside the shape: what
  // load and store move, the same on both backends.
  TL_FN auto pointers(const index_list<rank>& coords, op_location loc = {}) const {
    return make_ptr_expr(base, detail::block_offsets<Block, 0>(coords.v, strides.v, loc));
  }
  TL_FN auto in_shape(const index_list<rank>& coords) const {
    return detail::block_in_shape<Block, 0>(coords.v, shape.v);
  }
};

// A descriptor of the tensor at `base` with `shape` and `strides` (in elements, one per
// dimension, the innermost usually 1), moving blocks of `block_shape`: Triton's
// tl.make_tensor_descriptor(base, shape, strides, block_shape).
template <class T, int... Block>
TL_FN tensor_descriptor<T, shape<Block...>> make_tensor_descriptor(
    ptr<T> base, const index_list<sizeof...(Block)>& shape_, const index_list<sizeof...(Block)>& strides,
    block_shape_t<Block...>, std::source_location loc = std::source_location::current()) {
  static_assert(detail::check_block<std::remove_const_t<T>, Block...>());
  tensor_descriptor<T, shape<Block...>> desc{base, shape_, strides, {}};
  backend::make_descriptor(desc, loc);
  return desc;
}

}  // namespace TL_ABI
}  // namespace tl
