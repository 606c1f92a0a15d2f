// Tile expressions: the backend-neutral front of `tl`.
//
// `arange`, `full`, scalars and everything built from them alone are lazy: a node is a function
// from an element's position to its value, and nothing is stored. As soon as an operation touches a
// data tile (something a backend holds values for: the result of `load`, a reduction or `dot`), the
// operation is evaluated at once into a new data tile by the backend's `materialize`. So a lazy
// expression never refers to data, and a data tile is always a value, as in Triton.
#pragma once

#include <cmath>
#include <source_location>
#include <type_traits>

#include "tile/dtypes.hpp"
#include "tile/lanes.hpp"
#include "tile/shape.hpp"

namespace tl {
inline namespace TL_ABI {

struct expr_tag {};

template <class E>
inline constexpr bool is_expr_v = std::is_base_of_v<expr_tag, std::remove_cvref_t<E>>;

template <class T>
inline constexpr bool is_scalar_v =
    std::is_arithmetic_v<std::remove_cvref_t<T>> && !is_expr_v<T>;

template <class E>
using shape_of_t = typename std::remove_cvref_t<E>::shape_type;

template <class E>
using value_of_t = typename std::remove_cvref_t<E>::value_type;

template <class E>
inline constexpr bool has_data_v = std::remove_cvref_t<E>::has_data;

// What an element evaluates to: like the value type, but integers are index_t (64-bit on the CPU).
template <class T>
using lane_t = std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, index_t, T>;

template <class D>
struct expr_base;

// Where an operation was written, kept in its node for the simulator's reports (the integer
// operation that leaves int32, the operation that first makes a NaN); nothing on the GPU. The
// backend's front hooks say what it is, and whether the reports below are raised
// (backend::checks_lanes).
using op_location = backend::op_location;

// An operator's operand and the line the operator was written on. An operator cannot take a
// defaulted std::source_location, but the conversion of one operand to this type can: its
// default argument is evaluated where the operator is used.
template <class E>
struct located {
  const E& e;
  op_location loc;
  TL_FN located(const E& x, std::source_location l = std::source_location::current())
      : e(x), loc(l) {}
};
template <class E>
struct located_ref {
  E& e;
  op_location loc;
  TL_FN located_ref(E& x, std::source_location l = std::source_location::current())
      : e(x), loc(l) {}
};

// A rank-0 data tile converts to its value, so the built-in operators compete with the
// language's for it: those keep the plain operator templates (without a line).
template <class E, class = void>
struct converts_to_scalar : std::false_type {};
template <class E>
struct converts_to_scalar<E, std::void_t<typename std::remove_cvref_t<E>::value_type>>
    : std::bool_constant<std::is_convertible_v<const std::remove_cvref_t<E>&,
                                               typename std::remove_cvref_t<E>::value_type>> {};
template <class E>
inline constexpr bool converts_to_scalar_v = converts_to_scalar<E>::value;

// The same two facts, asked only when an operator template is considered (its own parameter X
// makes them dependent): expr_base<D> is instantiated while D is still incomplete.
template <class D, class X>
inline constexpr bool converts_to_scalar_later_v = converts_to_scalar_v<D>;
template <class D, class X>
inline constexpr bool has_data_later_v = D::has_data;

template <class Op, class A>
TL_FN auto make_unary(const A& a, op_location loc);
template <class Op, class A, class B>
TL_FN auto make_binary(const A& a, const B& b, op_location loc);

// The arithmetic operators of an expression type, found by argument-dependent lookup: the
// expression on the left (any operand on the right), or a C++ scalar on the left.
#define TL_LOCATED_OPERATOR(sym, Op)                                                         \
  template <class B>                                                                        \
    requires(!converts_to_scalar_later_v<D, B> &&                                           \
             (is_expr_v<B> ? !converts_to_scalar_v<B> : is_scalar_v<B>))                    \
  friend TL_FN auto operator sym(located<D> a, const B& b) {                                \
    return make_binary<op::Op>(a.e, b, a.loc);                                              \
  }                                                                                         \
  template <class A>                                                                        \
    requires(!converts_to_scalar_later_v<D, A> && is_scalar_v<A>)                           \
  friend TL_FN auto operator sym(const A& a, located<D> b) {                                \
    return make_binary<op::Op>(a, b.e, b.loc);                                              \
  }
// Compound assignment to a data tile: acc += tl::dot(a, b), as in Triton.
#define TL_LOCATED_COMPOUND(sym, Op)                                                         \
  template <class E>                                                                        \
    requires(has_data_later_v<D, E> && (is_expr_v<E> || is_scalar_v<E>))                   \
  friend TL_FN D& operator sym(located_ref<D> tile, const E& e) {                           \
    tile.e = make_binary<op::Op>(tile.e, e, tile.loc);                                      \
    return tile.e;                                                                          \
  }

template <int Axis, class E>
TL_FN auto expand_dims(E&& e);

// The operators above are hidden friends of each expression type D, in a class of their own
// (located_operators<D>, a base of expr_base<D>), for ADL finds them through the base. That class
// lives in one of 32 namespaces, picked by a hash of D's name, because of how g++ keeps friends:
// it declares each hidden friend of a specialization in its class's namespace, and compares it with
// every friend of the same name already declared there. A kernel makes hundreds of expression
// types and a test unit holds dozens of kernels, so in one namespace that comparison was quadratic:
// the simulator's side of the GPU tests' 32 elementwise kernels took 55 s of g++ 12's front end,
// 24 s without the friends, 21 s with them spread out like this (`-fsyntax-only -ftime-report`).
// nvcc keeps them in one namespace: its device and host passes must see the same bases.
inline constexpr unsigned operator_namespaces = 32;

template <class D>
constexpr unsigned operator_namespace_of() {
#if defined(__CUDACC__)
  return 0;
#else
  // FNV-1a over at most about 64 characters of this function's name, which names D.
  const char* name = __PRETTY_FUNCTION__;
  unsigned length = 0;
  while (name[length] != '\0') ++length;
  unsigned hash = 2166136261u ^ length;
  for (unsigned i = 0; i < length; i += length / 64 + 1)
    hash = (hash ^ static_cast<unsigned char>(name[i])) * 16777619u;
  return hash % operator_namespaces;
#endif
}

template <unsigned Namespace, class D>
struct located_operators_in;

#define TL_LOCATED_OPERATORS_NAMESPACE(n)                                            \
  namespace located_operators_##n {                                                 \
  template <class D>                                                                \
  struct located_operators {                                                        \
    TL_LOCATED_OPERATOR(+, add)                                                     \
    TL_LOCATED_OPERATOR(-, sub)                                                     \
    TL_LOCATED_OPERATOR(*, mul)                                                     \
    TL_LOCATED_OPERATOR(/, div)                                                     \
    TL_LOCATED_OPERATOR(%, mod)                                                     \
    TL_LOCATED_COMPOUND(+=, add)                                                    \
    TL_LOCATED_COMPOUND(-=, sub)                                                    \
    TL_LOCATED_COMPOUND(*=, mul)                                                    \
    TL_LOCATED_COMPOUND(/=, div)                                                    \
    template <class X = D>                                                          \
      requires(!converts_to_scalar_v<X>)                                            \
    friend TL_FN auto operator-(located<D> a) {                                     \
      return make_unary<op::negate>(a.e, a.loc);                                    \
    }                                                                               \
  };                                                                                \
  }                                                                                 \
  template <class D>                                                                \
  struct located_operators_in<n, D> {                                               \
    using type = located_operators_##n::located_operators<D>;                       \
  };
TL_LOCATED_OPERATORS_NAMESPACE(0)
TL_LOCATED_OPERATORS_NAMESPACE(1)
TL_LOCATED_OPERATORS_NAMESPACE(2)
TL_LOCATED_OPERATORS_NAMESPACE(3)
TL_LOCATED_OPERATORS_NAMESPACE(4)
TL_LOCATED_OPERATORS_NAMESPACE(5)
TL_LOCATED_OPERATORS_NAMESPACE(6)
TL_LOCATED_OPERATORS_NAMESPACE(7)
TL_LOCATED_OPERATORS_NAMESPACE(8)
TL_LOCATED_OPERATORS_NAMESPACE(9)
TL_LOCATED_OPERATORS_NAMESPACE(10)
TL_LOCATED_OPERATORS_NAMESPACE(11)
TL_LOCATED_OPERATORS_NAMESPACE(12)
TL_LOCATED_OPERATORS_NAMESPACE(13)
TL_LOCATED_OPERATORS_NAMESPACE(14)
TL_LOCATED_OPERATORS_NAMESPACE(15)
TL_LOCATED_OPERATORS_NAMESPACE(16)
TL_LOCATED_OPERATORS_NAMESPACE(17)
TL_LOCATED_OPERATORS_NAMESPACE(18)
TL_LOCATED_OPERATORS_NAMESPACE(19)
TL_LOCATED_OPERATORS_NAMESPACE(20)
TL_LOCATED_OPERATORS_NAMESPACE(21)
TL_LOCATED_OPERATORS_NAMESPACE(22)
TL_LOCATED_OPERATORS_NAMESPACE(23)
TL_LOCATED_OPERATORS_NAMESPACE(24)
TL_LOCATED_OPERATORS_NAMESPACE(25)
TL_LOCATED_OPERATORS_NAMESPACE(26)
TL_LOCATED_OPERATORS_NAMESPACE(27)
TL_LOCATED_OPERATORS_NAMESPACE(28)
TL_LOCATED_OPERATORS_NAMESPACE(29)
TL_LOCATED_OPERATORS_NAMESPACE(30)
TL_LOCATED_OPERATORS_NAMESPACE(31)
#undef TL_LOCATED_OPERATORS_NAMESPACE
#undef TL_LOCATED_OPERATOR
#undef TL_LOCATED_COMPOUND

template <class D>
using located_operators_t = typename located_operators_in<operator_namespace_of<D>(), D>::type;

template <class D>
struct expr_base : expr_tag, located_operators_t<D> {
  TL_FN const D& self() const { return static_cast<const D&>(*this); }

  // x.col() is Triton's x[:, None]: a [N] tile seen as an [N, 1] column.
  TL_FN auto col() const {
    static_assert(D::shape_type::rank == 1, "tl: .col() turns a 1-D tile [N] into a column [N, 1]");
    return expand_dims<1>(self());
  }
  // x.row() is Triton's x[None, :]: a [N] tile seen as a [1, N] row.
  TL_FN auto row() const {
    static_assert(D::shape_type::rank == 1, "tl: .row() turns a 1-D tile [N] into a row [1, N]");
    return expand_dims<0>(self());
  }
};

// How a node keeps a child: lazy nodes by value (they are small), data tiles by reference. A node
// with a data child is materialized before the full-expression that built it ends, so the
// reference never outlives its tile.
template <class E>
using stored_t =
    std::conditional_t<has_data_v<E>, const std::remove_cvref_t<E>&, std::remove_cvref_t<E>>;

// ---------------------------------------------------------------------------------------------
// Leaves

template <class T>
struct scalar_expr : expr_base<scalar_expr<T>> {
  using value_type = T;
  using shape_type = shape<>;
  static constexpr bool has_data = false;
  static constexpr bool may_poison = false;
  T value;
  TL_FN explicit scalar_expr(T v) : value(v) {}
  template <int R>
  TL_FN lane_t<T> eval(const pos<R>&) const {
    return static_cast<lane_t<T>>(value);
  }
  template <int R>
  TL_FN bool poison(const pos<R>&) const {
    return false;
  }
};

template <int N>
struct arange_expr : expr_base<arange_expr<N>> {
  using value_type = int;
  using shape_type = shape<N>;
  static constexpr bool has_data = false;
  static constexpr bool may_poison = false;
  TL_FN index_t eval(const pos<1>& p) const { return p.c[0]; }
  TL_FN bool poison(const pos<1>&) const { return false; }
};

template <class T, class S>
struct full_expr : expr_base<full_expr<T, S>> {
  using value_type = T;
  using shape_type = S;
  static constexpr bool has_data = false;
  static constexpr bool may_poison = false;
  T value;
  TL_FN explicit full_expr(T v) : value(v) {}
  TL_FN lane_t<T> eval(const pos<S::rank>&) const { return static_cast<lane_t<T>>(value); }
  TL_FN bool poison(const pos<S::rank>&) const { return false; }
};

// Triton's "weak" scalars: a C++ scalar next to a tile takes the tile's type when both are of the
// same kind, so `x * 0.5` keeps a float tile float (and a float16 tile float16) and `rows * 2`
// keeps an int tile int. Next to a mask or an 8-bit tile, whose lanes compute as int32, an
// integer scalar is an int: `bytes * 1000` is an int32 tile.
template <class Scalar, class TileValue>
using weak_scalar_t = std::conditional_t<
    std::is_same_v<Scalar, bool>, bool,
    std::conditional_t<
        is_floating_v<TileValue>, TileValue,
        std::conditional_t<std::is_floating_point_v<Scalar>, float,
                           std::conditional_t<std::is_same_v<TileValue, bool> ||
                                                  is_8bit_integer_v<TileValue>,
                                              int, TileValue>>>>;

// A kernel operand as a node child: expressions as stored_t, scalars as scalar_expr with the weak
// type they take next to `Other`.
template <class X, class Other, bool = is_expr_v<X>>
struct operand {
  using type = stored_t<X>;
};
// A scalar next to a tile takes the weak type; next to another scalar (where(m, 1, 2)) it keeps
// its own. A specialization, not conditional_t, so that value_of_t<int> is never formed.
template <class X, class O, bool = is_expr_v<O>>
struct scalar_operand_value {
  using type = X;
};
template <class X, class O>
struct scalar_operand_value<X, O, true> {
  using type = weak_scalar_t<X, value_of_t<O>>;
};
template <class X, class Other>
struct operand<X, Other, false> {
  using O = std::remove_cvref_t<Other>;
  using value_type = typename scalar_operand_value<X, O>::type;
  using type = scalar_expr<value_type>;
};
template <class X, class Other>
using operand_t = typename operand<std::remove_cvref_t<X>, Other>::type;

template <class X, class Other>
TL_FN decltype(auto) as_operand(const X& x, op_location loc = {}) {
  if constexpr (is_expr_v<X>) {
    return (x);
  } else {
    using V = typename operand_t<X, Other>::value_type;
    // A C++ integer wider than the int32 tile it meets (3000000000LL * rows): the GPU truncates.
    if constexpr (backend::checks_lanes && std::is_integral_v<X> && std::is_integral_v<V> &&
                  !std::is_same_v<V, bool> && sizeof(V) < sizeof(X)) {
      if (static_cast<long long>(static_cast<V>(x)) != static_cast<long long>(x))
        backend::int32_scalar_overflow(static_cast<long long>(x), loc);
    }
    (void)loc;
    return operand_t<X, Other>(static_cast<V>(x));
  }
}

// The integer operations whose int32 result the GPU wraps around: the simulator reports a lane
// that leaves int32 at the operation that made it, with the operation's line.
template <class Op>
inline constexpr const char* wrapping_symbol = nullptr;
template <>
inline constexpr const char* wrapping_symbol<op::add> = "+";
template <>
inline constexpr const char* wrapping_symbol<op::sub> = "-";
template <>
inline constexpr const char* wrapping_symbol<op::mul> = "*";
template <>
inline constexpr const char* wrapping_symbol<op::div> = "/";
template <>
inline constexpr const char* wrapping_symbol<op::negate> = "neg";

template <class T>
inline constexpr bool is_int32_lane_v = is_integer_lane_v<T> && sizeof(T) <= 4;

// The operations on float lanes by name, for the report of the first NaN or infinity.
template <class Op>
inline constexpr const char* float_op_name = "an operation";
template <>
inline constexpr const char* float_op_name<op::add> = "+";
template <>
inline constexpr const char* float_op_name<op::sub> = "-";
template <>
inline constexpr const char* float_op_name<op::mul> = "*";
template <>
inline constexpr const char* float_op_name<op::div> = "/";
template <>
inline constexpr const char* float_op_name<op::mod> = "%";
template <>
inline constexpr const char* float_op_name<op::negate> = "-";
template <>
inline constexpr const char* float_op_name<op::exp> = "tl::exp";
template <>
inline constexpr const char* float_op_name<op::exp2> = "tl::exp2";
template <>
inline constexpr const char* float_op_name<op::log> = "tl::log";
template <>
inline constexpr const char* float_op_name<op::log2> = "tl::log2";
template <>
inline constexpr const char* float_op_name<op::sqrt> = "tl::sqrt";
template <>
inline constexpr const char* float_op_name<op::sin> = "tl::sin";
template <>
inline constexpr const char* float_op_name<op::cos> = "tl::cos";
template <>
inline constexpr const char* float_op_name<op::rsqrt> = "tl::rsqrt";
template <>
inline constexpr const char* float_op_name<op::floor> = "tl::floor";
template <>
inline constexpr const char* float_op_name<op::ceil> = "tl::ceil";
template <>
inline constexpr const char* float_op_name<op::sigmoid> = "tl::sigmoid";
template <>
inline constexpr const char* float_op_name<op::tanh> = "tl::tanh";
template <>
inline constexpr const char* float_op_name<op::erf> = "tl::erf";
template <>
inline constexpr const char* float_op_name<op::log1p> = "tl::log1p";
template <>
inline constexpr const char* float_op_name<op::pow> = "tl::pow";
template <>
inline constexpr const char* float_op_name<op::rand> = "tl::rand";
template <>
inline constexpr const char* float_op_name<op::randn> = "tl::randn";
template <>
inline constexpr const char* float_op_name<op::fma> = "tl::fma";
template <>
inline constexpr const char* float_op_name<op::maximum> = "tl::maximum";
template <>
inline constexpr const char* float_op_name<op::minimum> = "tl::minimum";

// ---------------------------------------------------------------------------------------------
// Interior nodes

template <class Op, class A>
struct unary_expr : expr_base<unary_expr<Op, A>> {
  using a_type = std::remove_cvref_t<A>;
  using shape_type = typename a_type::shape_type;
  using value_type = decltype(Op{}(std::declval<typename a_type::value_type>()));
  static constexpr bool has_data = a_type::has_data;
  static constexpr bool may_poison = a_type::may_poison;
  A a;
  op_location loc;
  TL_FN explicit unary_expr(const a_type& x, op_location where = {}) : a(x), loc(where) {}
  TL_FN auto eval(const pos<shape_type::rank>& p) const {
    const auto x = a.eval(p);
    const auto r = static_cast<lane_t<value_type>>(Op{}(x));
    if constexpr (backend::checks_lanes && wrapping_symbol<Op> != nullptr &&
                  is_int32_lane_v<value_type>) {
      if (r < -2147483648LL || r > 2147483647LL)
        backend::int32_step_overflow(wrapping_symbol<Op>, 0, x, r, flat_index<shape_type>(p), p.c,
                                     shape_type::rank, loc);
    }
    if constexpr (backend::checks_lanes && std::is_floating_point_v<decltype(r)>) {
      if (!std::isfinite(r)) [[unlikely]]
        backend::float_turned_nonfinite(float_op_name<Op>, false, static_cast<double>(x), 0,
                                        static_cast<double>(r), loc);
    }
    return r;
  }
  TL_FN bool poison(const pos<shape_type::rank>& p) const {
    if constexpr (may_poison) return a.poison(p);
    return false;
  }
};

template <class Op, class A, class B>
struct binary_expr : expr_base<binary_expr<Op, A, B>> {
  using a_type = std::remove_cvref_t<A>;
  using b_type = std::remove_cvref_t<B>;
  using shape_type = broadcast_t<typename a_type::shape_type, typename b_type::shape_type>;
  using value_type = decltype(Op{}(std::declval<typename a_type::value_type>(),
                                   std::declval<typename b_type::value_type>()));
  static constexpr bool has_data = a_type::has_data || b_type::has_data;
  static constexpr bool may_poison =
      a_type::may_poison || b_type::may_poison || Op::template may_poison<value_type>;
  A a;
  B b;
  op_location loc;
  TL_FN binary_expr(const a_type& x, const b_type& y, op_location where = {})
      : a(x), b(y), loc(where) {}
  TL_FN auto eval(const pos<shape_type::rank>& p) const {
    const auto x = a.eval(broadcast_pos<typename a_type::shape_type, shape_type>(p));
    const auto y = b.eval(broadcast_pos<typename b_type::shape_type, shape_type>(p));
    const auto r = static_cast<lane_t<value_type>>(Op{}(x, y));
    if constexpr (backend::checks_lanes && wrapping_symbol<Op> != nullptr &&
                  is_int32_lane_v<value_type>) {
      if (r < -2147483648LL || r > 2147483647LL)
        backend::int32_step_overflow(wrapping_symbol<Op>, x, y, r, flat_index<shape_type>(p), p.c,
                                     shape_type::rank, loc);
    }
    if constexpr (backend::checks_lanes && std::is_floating_point_v<decltype(r)>) {
      if (!std::isfinite(r)) [[unlikely]]
        backend::float_turned_nonfinite(float_op_name<Op>, true, static_cast<double>(x),
                                        static_cast<double>(y), static_cast<double>(r), loc);
    }
    return r;
  }
  TL_FN bool poison(const pos<shape_type::rank>& p) const {
    if constexpr (may_poison) {
      const auto pa = broadcast_pos<typename a_type::shape_type, shape_type>(p);
      const auto pb = broadcast_pos<typename b_type::shape_type, shape_type>(p);
      if (a.poison(pa) || b.poison(pb)) return true;
      if constexpr (Op::template may_poison<value_type>) return Op::poisons(b.eval(pb));
    }
    return false;
  }
};

template <class C, class A, class B>
struct where_expr : expr_base<where_expr<C, A, B>> {
  using c_type = std::remove_cvref_t<C>;
  using a_type = std::remove_cvref_t<A>;
  using b_type = std::remove_cvref_t<B>;
  using shape_type = broadcast_t<typename c_type::shape_type, typename a_type::shape_type,
                                 typename b_type::shape_type>;
  using value_type =
      std::common_type_t<typename a_type::value_type, typename b_type::value_type>;
  static constexpr bool has_data = c_type::has_data || a_type::has_data || b_type::has_data;
  static constexpr bool may_poison = c_type::may_poison || a_type::may_poison || b_type::may_poison;
  C c;
  A a;
  B b;
  op_location loc;
  TL_FN where_expr(const c_type& cond, const a_type& x, const b_type& y, op_location where = {})
      : c(cond), a(x), b(y), loc(where) {}
  TL_FN auto eval(const pos<shape_type::rank>& p) const {
    using L = lane_t<value_type>;
    return c.eval(broadcast_pos<typename c_type::shape_type, shape_type>(p))
               ? static_cast<L>(a.eval(broadcast_pos<typename a_type::shape_type, shape_type>(p)))
               : static_cast<L>(b.eval(broadcast_pos<typename b_type::shape_type, shape_type>(p)));
  }
  // Only the chosen side matters: where(mask, x, 0) is how poison is cleaned up.
  TL_FN bool poison(const pos<shape_type::rank>& p) const {
    if constexpr (may_poison) {
      const auto pc = broadcast_pos<typename c_type::shape_type, shape_type>(p);
      if (c.poison(pc)) return true;
      return c.eval(pc) ? a.poison(broadcast_pos<typename a_type::shape_type, shape_type>(p))
                        : b.poison(broadcast_pos<typename b_type::shape_type, shape_type>(p));
    }
    return false;
  }
};

// An operation of three operands (tl::fma), broadcast together like a binary one. Its children
// are a_type, b_type and c_type, as where_expr's, so that the walks over expressions that look
// for them (tile/range_leaves.hpp, the GPU's layouts) see all three.
template <class Op, class A, class B, class C>
struct ternary_expr : expr_base<ternary_expr<Op, A, B, C>> {
  using op_type = Op;
  using a_type = std::remove_cvref_t<A>;
  using b_type = std::remove_cvref_t<B>;
  using c_type = std::remove_cvref_t<C>;
  using shape_type = broadcast_t<typename a_type::shape_type, typename b_type::shape_type,
                                 typename c_type::shape_type>;
  using value_type = decltype(Op{}(std::declval<typename a_type::value_type>(),
                                   std::declval<typename b_type::value_type>(),
                                   std::declval<typename c_type::value_type>()));
  static constexpr bool has_data = a_type::has_data || b_type::has_data || c_type::has_data;
  static constexpr bool may_poison = a_type::may_poison || b_type::may_poison || c_type::may_poison;
  A a;
  B b;
  C c;
  op_location loc;
  TL_FN ternary_expr(const a_type& x, const b_type& y, const c_type& z, op_location where = {})
      : a(x), b(y), c(z), loc(where) {}
  TL_FN auto eval(const pos<shape_type::rank>& p) const {
    const auto x = a.eval(broadcast_pos<typename a_type::shape_type, shape_type>(p));
    const auto y = b.eval(broadcast_pos<typename b_type::shape_type, shape_type>(p));
    const auto z = c.eval(broadcast_pos<typename c_type::shape_type, shape_type>(p));
    const auto r = static_cast<lane_t<value_type>>(Op{}(x, y, z));
    if constexpr (backend::checks_lanes && std::is_floating_point_v<decltype(r)>) {
      // A non-finite addend is where the NaN or infinity came from, not here.
      if (!std::isfinite(r) && std::isfinite(static_cast<double>(z))) [[unlikely]]
        backend::float_turned_nonfinite(float_op_name<Op>, true, static_cast<double>(x),
                                        static_cast<double>(y), static_cast<double>(r), loc);
    }
    return r;
  }
  TL_FN bool poison(const pos<shape_type::rank>& p) const {
    if constexpr (may_poison) {
      return a.poison(broadcast_pos<typename a_type::shape_type, shape_type>(p)) ||
             b.poison(broadcast_pos<typename b_type::shape_type, shape_type>(p)) ||
             c.poison(broadcast_pos<typename c_type::shape_type, shape_type>(p));
    }
    return false;
  }
};

template <class T, class A>
struct cast_expr : expr_base<cast_expr<T, A>> {
  using a_type = std::remove_cvref_t<A>;
  using shape_type = typename a_type::shape_type;
  using value_type = T;
  static constexpr bool has_data = a_type::has_data;
  static constexpr bool may_poison = a_type::may_poison;
  A a;
  TL_FN explicit cast_expr(const a_type& x) : a(x) {}
  TL_FN lane_t<T> eval(const pos<shape_type::rank>& p) const {
    return static_cast<lane_t<T>>(op::cast_to<T>{}(a.eval(p)));
  }
  TL_FN bool poison(const pos<shape_type::rank>& p) const {
    if constexpr (may_poison) return a.poison(p);
    return false;
  }
};

namespace detail {
template <int Axis, class S, std::size_t... I>
auto expanded_shape(std::index_sequence<I...>)
    -> shape<(I < Axis ? S::dims[I] : I == Axis ? 1 : S::dims[I - 1])...>;
}  // namespace detail

// A new axis of size 1 at position Axis: expand_dims<1>(x) is Triton's x[:, None] for 1-D x.
template <int Axis, class A>
struct expand_expr : expr_base<expand_expr<Axis, A>> {
  using a_type = std::remove_cvref_t<A>;
  using a_shape = typename a_type::shape_type;
  static constexpr int axis = Axis;
  static_assert(Axis >= 0 && Axis <= a_shape::rank, "tl::expand_dims: axis out of range");
  using shape_type =
      decltype(detail::expanded_shape<Axis, a_shape>(std::make_index_sequence<a_shape::rank + 1>{}));
  using value_type = typename a_type::value_type;
  static constexpr bool has_data = a_type::has_data;
  static constexpr bool may_poison = a_type::may_poison;
  A a;
  TL_FN explicit expand_expr(const a_type& x) : a(x) {}
  TL_FN pos<a_shape::rank> inner(const pos<shape_type::rank>& p) const {
    pos<a_shape::rank> q{};
    q.slot = p.slot;
    for (int i = 0, j = 0; i < shape_type::rank; ++i)
      if (i != Axis) q.c[j++] = p.c[i];
    return q;
  }
  TL_FN auto eval(const pos<shape_type::rank>& p) const { return a.eval(inner(p)); }
  TL_FN bool poison(const pos<shape_type::rank>& p) const {
    if constexpr (may_poison) return a.poison(inner(p));
    return false;
  }
};

// ---------------------------------------------------------------------------------------------
// Building nodes: lazy when every operand is lazy, evaluated at once when any operand is data.

template <class E>
TL_FN auto finish(const E& node) {
  if constexpr (E::has_data) return materialize(node);
  else return node;
}

template <class Op, class A>
TL_FN auto make_unary(const A& a, op_location loc) {
  return finish(unary_expr<Op, operand_t<A, A>>(a, loc));
}

template <class Op, class A, class B>
TL_FN auto make_binary(const A& a, const B& b, op_location loc) {
  return finish(binary_expr<Op, operand_t<A, B>, operand_t<B, A>>(as_operand<A, B>(a, loc),
                                                                   as_operand<B, A>(b, loc), loc));
}

template <class A, class B>
concept tile_operands = (is_expr_v<A> || is_expr_v<B>) && (is_expr_v<A> || is_scalar_v<A>) &&
                        (is_expr_v<B> || is_scalar_v<B>);

// Comparisons and bitwise operators can neither leave int32 nor make a NaN: they need no line.
// (+ - * / % are declared with each expression type, in expr_base, to keep theirs.)
#define TL_OPERATOR(sym, Op)                                   \
  template <class A, class B>                                  \
    requires tile_operands<A, B>                               \
  TL_FN auto operator sym(const A& a, const B& b) {            \
    return make_binary<op::Op>(a, b, {});                      \
  }
TL_OPERATOR(<, less)
TL_OPERATOR(<=, less_equal)
TL_OPERATOR(>, greater)
TL_OPERATOR(>=, greater_equal)
TL_OPERATOR(==, equal)
TL_OPERATOR(!=, not_equal)
TL_OPERATOR(&, bit_and)
TL_OPERATOR(|, bit_or)
#undef TL_OPERATOR

// Arithmetic with a rank-0 data tile (the result of a full reduction), which also converts to its
// value: these exact matches are chosen over the built-in operators, and over expr_base's.
#define TL_SCALAR_TILE_OPERATOR(sym, Op)                                                    \
  template <class A, class B>                                                              \
    requires tile_operands<A, B> && (converts_to_scalar_v<A> || converts_to_scalar_v<B>)   \
  TL_FN auto operator sym(const A& a, const B& b) {                                        \
    return make_binary<op::Op>(a, b, {});                                                  \
  }
TL_SCALAR_TILE_OPERATOR(+, add)
TL_SCALAR_TILE_OPERATOR(-, sub)
TL_SCALAR_TILE_OPERATOR(*, mul)
TL_SCALAR_TILE_OPERATOR(/, div)
TL_SCALAR_TILE_OPERATOR(%, mod)
#undef TL_SCALAR_TILE_OPERATOR

template <class A>
  requires is_expr_v<A> && converts_to_scalar_v<A>
TL_FN auto operator-(const A& a) {
  return make_unary<op::negate>(a, {});
}
template <class A>
  requires is_expr_v<A>
TL_FN auto operator~(const A& a) {
  return make_unary<op::bit_not>(a, {});
}
template <class A>
  requires is_expr_v<A>
TL_FN auto operator!(const A& a) {
  static_assert(std::is_same_v<value_of_t<A>, bool>, "tl: ! applies to masks (bool tiles)");
  return make_unary<op::bit_not>(a, {});
}

// ---------------------------------------------------------------------------------------------
// Creation and elementwise functions (triton.language names)

template <int N>
TL_FN arange_expr<N> arange() {
  static_assert(is_power_of_two(N), "tl::arange<N>: N must be a power of two, as in Triton");
  return {};
}

template <int... Dims, class T>
TL_FN full_expr<T, shape<Dims...>> full(T value) {
  static_assert(std::is_arithmetic_v<T>, "tl::full: the value must be a number or a bool");
  return full_expr<T, shape<Dims...>>(value);
}

template <class T, int... Dims>
TL_FN full_expr<T, shape<Dims...>> zeros() {
  return full_expr<T, shape<Dims...>>(T(0));
}

template <int Axis, class E>
TL_FN auto expand_dims(E&& e) {
  static_assert(is_expr_v<E>, "tl::expand_dims takes a tile");
  using A = std::remove_cvref_t<E>;
  return finish(expand_expr<Axis, stored_t<A>>(e));
}

template <class T, class E>
TL_FN auto cast(const E& e) {
  if constexpr (is_expr_v<E>) return finish(cast_expr<T, stored_t<E>>(e));
  else return static_cast<T>(e);
}

template <class C, class A, class B>
TL_FN auto where(const C& c, const A& a, const B& b,
                 std::source_location loc = std::source_location::current()) {
  static_assert(is_expr_v<C> || std::is_same_v<C, bool>, "tl::where: the condition is a mask");
  // Each side is typed next to the other, so where(m, x, 0) stays a float tile for float x.
  return finish(where_expr<operand_t<C, C>, operand_t<A, B>, operand_t<B, A>>(
      as_operand<C, C>(c, loc), as_operand<A, B>(a, loc), as_operand<B, A>(b, loc), loc));
}

template <class A, class B>
  requires tile_operands<A, B>
TL_FN auto maximum(const A& a, const B& b,
                   std::source_location loc = std::source_location::current()) {
  return make_binary<op::maximum>(a, b, loc);
}
template <class A, class B>
  requires tile_operands<A, B>
TL_FN auto minimum(const A& a, const B& b,
                   std::source_location loc = std::source_location::current()) {
  return make_binary<op::minimum>(a, b, loc);
}

#define TL_UNARY_FN(name)                                                                  \
  template <class A>                                                                       \
    requires is_expr_v<A>                                                                  \
  TL_FN auto name(const A& a, std::source_location loc = std::source_location::current()) { \
    return make_unary<op::name>(a, loc);                                                   \
  }
TL_UNARY_FN(exp)
TL_UNARY_FN(exp2)
TL_UNARY_FN(log)
TL_UNARY_FN(log2)
TL_UNARY_FN(sqrt)
TL_UNARY_FN(abs)
TL_UNARY_FN(sin)
TL_UNARY_FN(cos)
TL_UNARY_FN(rsqrt)
TL_UNARY_FN(floor)
TL_UNARY_FN(ceil)
TL_UNARY_FN(sigmoid)
TL_UNARY_FN(tanh)
TL_UNARY_FN(erf)
TL_UNARY_FN(log1p)
#undef TL_UNARY_FN

template <class A, class B>
  requires tile_operands<A, B>
TL_FN auto pow(const A& a, const B& b, std::source_location loc = std::source_location::current()) {
  return make_binary<op::pow>(a, b, loc);
}

// Random numbers, Triton's tl.randint, tl.rand and tl.randn: counter-based (Philox 4x32-10), so
// each element's number is a function of the seed and its offset alone, the same bits on both
// backends and in any program order (docs/tl.md, "Random numbers"). The seed is an int scalar;
// the offsets an int32 tile, one counter per element (give every element of the whole launch its
// own, or two elements draw the same number).
template <class Seed, class Offsets>
constexpr void check_random_operands() {
  static_assert(is_scalar_v<Seed> && std::is_integral_v<Seed> && !std::is_same_v<Seed, bool> &&
                    sizeof(Seed) <= 4 && (std::is_signed_v<Seed> || sizeof(Seed) < 4),
                "tl::rand, tl::randn, tl::randint: the seed is an int scalar (a kernel argument or "
                "a constant), as Triton's seed; an int32 seed is the key Triton makes of it");
  static_assert(is_expr_v<Offsets>,
                "tl::rand, tl::randn, tl::randint: the offsets are an int32 tile, one counter per "
                "element (e.g. pid * B + tl::arange<B>()), not a scalar");
  if constexpr (is_expr_v<Offsets>) {
    static_assert(std::is_same_v<value_of_t<Offsets>, int>,
                  "tl::rand, tl::randn, tl::randint: the offsets are an int32 tile (a float or "
                  "bool tile is no counter)");
  }
}

// A float tile of uniform numbers in [0, 1): Triton's tl.rand(seed, offsets), the same bits.
template <class Seed, class Offsets>
TL_FN auto rand(Seed seed, const Offsets& offsets,
                std::source_location loc = std::source_location::current()) {
  check_random_operands<Seed, Offsets>();
  return make_binary<op::rand>(static_cast<int>(seed), offsets, loc);
}

// A float tile of standard normal numbers: Triton's tl.randn(seed, offsets) (Box-Muller from the
// first two Philox words), computed with tl's own log and cos (tile/lanes.hpp).
template <class Seed, class Offsets>
TL_FN auto randn(Seed seed, const Offsets& offsets,
                 std::source_location loc = std::source_location::current()) {
  check_random_operands<Seed, Offsets>();
  return make_binary<op::randn>(static_cast<int>(seed), offsets, loc);
}

// An int32 tile of random bits: Triton's tl.randint(seed, offsets) (a uint32 tile there), the
// same bits.
template <class Seed, class Offsets>
TL_FN auto randint(Seed seed, const Offsets& offsets,
                   std::source_location loc = std::source_location::current()) {
  check_random_operands<Seed, Offsets>();
  return make_binary<op::randint>(static_cast<int>(seed), offsets, loc);
}

// The first operand of a, b, c that is a tile: what a scalar among them is typed next to.
template <class A, class B, class C>
using first_tile_t = std::conditional_t<is_expr_v<A>, A, std::conditional_t<is_expr_v<B>, B, C>>;

// a * b + c, rounded once. At least one operand is a tile; scalars take its type (weak scalars).
template <class A, class B, class C>
  requires(is_expr_v<A> || is_expr_v<B> || is_expr_v<C>) &&
          (is_expr_v<A> || is_scalar_v<A>) && (is_expr_v<B> || is_scalar_v<B>) &&
          (is_expr_v<C> || is_scalar_v<C>)
TL_FN auto fma(const A& a, const B& b, const C& c,
               std::source_location loc = std::source_location::current()) {
  using T = first_tile_t<A, B, C>;
  return finish(ternary_expr<op::fma, operand_t<A, T>, operand_t<B, T>, operand_t<C, T>>(
      as_operand<A, T>(a, loc), as_operand<B, T>(b, loc), as_operand<C, T>(c, loc), loc));
}

// Ceiling division, for grid sizes and loop bounds: the quotient rounded up, computed without
// `(a + b - 1) / b`, whose sum leaves int32 for an `a` within `b` of 2^31 (the size bounds'
// `cdiv(N0, B0)` at N0 = 2^31 - 1: docs/simulator.md).
template <class A, class B>
  requires std::is_integral_v<A> && std::is_integral_v<B>
TL_FN constexpr auto cdiv(A a, B b) {
  const auto quotient = a / b;
  const auto remainder = a % b;
  return remainder != 0 && (remainder > 0) == (b > 0) ? quotient + 1 : quotient;
}

// ---------------------------------------------------------------------------------------------
// Pointer tiles: a backend pointer plus a tile of element offsets.

template <class P>
struct is_ptr : std::false_type {};
template <class P>
inline constexpr bool is_ptr_v = is_ptr<std::remove_cvref_t<P>>::value;

template <class P, class E>
TL_FN auto make_ptr_expr(const P& base, const E& offsets);

template <class P, class Off>
struct ptr_expr {
  using pointer_type = P;
  using element_type = typename P::element_type;
  using offsets_type = Off;
  using shape_type = typename Off::shape_type;
  static_assert(std::is_integral_v<typename Off::value_type> &&
                    !std::is_same_v<typename Off::value_type, bool>,
                "tl: pointer offsets must be integer tiles");
  P base;
  Off offsets;

  // More offsets on a pointer tile add to its offsets, at the line of the + or -.
  template <class E>
    requires(is_expr_v<E> || std::is_integral_v<E>)
  friend TL_FN auto operator+(located<ptr_expr> p, const E& more) {
    return make_ptr_expr(p.e.base, make_binary<op::add>(p.e.offsets, more, p.loc));
  }
  template <class E>
    requires(is_expr_v<E> || std::is_integral_v<E>)
  friend TL_FN auto operator+(const E& more, located<ptr_expr> p) {
    return make_ptr_expr(p.e.base, make_binary<op::add>(more, p.e.offsets, p.loc));
  }
  template <class E>
    requires(is_expr_v<E> || std::is_integral_v<E>)
  friend TL_FN auto operator-(located<ptr_expr> p, const E& less) {
    return make_ptr_expr(p.e.base, make_binary<op::sub>(p.e.offsets, less, p.loc));
  }
};

template <class P>
struct is_ptr_expr : std::false_type {};
template <class P, class Off>
struct is_ptr_expr<ptr_expr<P, Off>> : std::true_type {};
template <class P>
inline constexpr bool is_ptr_expr_v = is_ptr_expr<std::remove_cvref_t<P>>::value;

template <class P, class E>
TL_FN auto make_ptr_expr(const P& base, const E& offsets) {
  if constexpr (has_data_v<E>) {
    using Held = std::remove_cvref_t<decltype(materialize(offsets))>;
    return ptr_expr<P, Held>{base, Held(offsets)};
  } else {
    return ptr_expr<P, std::remove_cvref_t<E>>{base, offsets};
  }
}

template <class P, class E>
  requires is_ptr_v<P> && is_expr_v<E>
TL_FN auto operator+(const P& p, const E& offsets) {
  return make_ptr_expr(p, offsets);
}
template <class E, class P>
  requires is_ptr_v<P> && is_expr_v<E>
TL_FN auto operator+(const E& offsets, const P& p) {
  return make_ptr_expr(p, offsets);
}

// A single pointer as a rank-0 pointer tile.
template <class P>
TL_FN auto as_ptr_expr(const P& p) {
  if constexpr (is_ptr_expr_v<P>) return p;
  else return ptr_expr<P, scalar_expr<int>>{p, scalar_expr<int>(0)};
}

// Tag for reductions that keep the reduced axis with size 1 (Triton's keep_dims=True).
struct keep_dims_t {};
inline constexpr keep_dims_t keep_dims{};

}  // namespace TL_ABI
}  // namespace tl
