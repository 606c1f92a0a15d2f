// What one lane of an operation computes: the one semantics of `tl`, on both backends.
//
// Every elementwise operation and every reduction combines lanes through the function objects
// here, so the CPU simulator and the GPU agree by construction. Where the GPU uses a faster
// instruction than the portable C++ (max.NaN.f32, ex2.approx.f32, div.full.f32), it is chosen
// here, next to the portable form, and docs/tl.md states the difference ("Numbers: one
// semantics on both backends").
//
// Integer lanes are int32, as on the GPU and in Triton: +, - and * wrap around. The simulator
// evaluates them exactly in 64 bits instead, and reports `index-overflow` at every step whose lane
// leaves int32 (tile/expr.hpp's nodes check their own result, with their line), and wherever a lane
// outside int32 would be used (the checks below, for lanes that come from elsewhere). A kernel that
// passes the simulator therefore never wraps on the GPU.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "tile/config.hpp"
#include "tile/dtypes.hpp"
#include "tile/math/erf.hpp"
#include "tile/math/exp.hpp"
#include "tile/math/log.hpp"
#include "tile/math/philox.hpp"
#include "tile/math/rounded.hpp"
#include "tile/math/sincos.hpp"

namespace tl {
inline namespace TL_ABI {

template <class T>
inline constexpr bool is_integer_lane_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

namespace lanes {

// An integer lane about to be used by an operation whose result depends on more than its low 32
// bits. On the GPU every integer lane is an int already.
template <class T>
TL_FN T int32_operand(T v, const char* what) {
  if constexpr (backend::checks_lanes && is_integer_lane_v<T> && sizeof(T) > 4) {
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      backend::int32_overflow(static_cast<long long>(v), what);
  }
  (void)what;
  return v;
}

// +, -, * on integer lanes wrap around: exact in the simulator's 64 bits (wrapping only past
// 2^63), two's complement in 32 bits on the GPU. Unsigned arithmetic keeps both free of undefined
// behaviour.
template <class A, class B, class F>
TL_FN auto wrapping(A a, B b, F f) {
  using R = decltype(f(a, b));
  if constexpr (std::is_integral_v<A> && std::is_integral_v<B> && is_integer_lane_v<R>) {
    using U = std::make_unsigned_t<R>;
    return static_cast<R>(f(static_cast<U>(a), static_cast<U>(b)));
  } else {
    return f(a, b);
  }
}

template <class A, class B>
using common_t = std::common_type_t<A, B>;

// IEEE 754-2019 maximum and minimum: a NaN in either operand gives NaN, and -0 < +0. Both are
// commutative and associative, so a reduction's result does not depend on its order.
template <class T>
TL_FN T float_maximum(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    float d;
    // NaN in either operand gives NaN; -0 < +0 in either order (bench/probes/gpu_float_facts.cu prints
    // it, the GPU parity test checks it).
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
  }
#endif
  if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}
template <class T>
TL_FN T float_minimum(T a, T b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    float d;
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
  }
#endif
  if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return b < a ? b : a;
}

// float division: IEEE on the CPU; div.full.f32 on the GPU (at most 2 ulp, full range), which is
// what Triton emits for `/`.
TL_FN float float_divide(float a, float b) {
#if defined(__CUDA_ARCH__)
  float d;
  asm("div.full.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
  return d;
#else
  return a / b;
#endif
}

// 2^x: exp2f on the CPU; ex2.approx.f32 on the GPU. Triton's tl.exp2 takes the .ftz form, which
// flushes results below 2^-126 to zero; this one keeps them, as exp2f does.
TL_FN float float_exp2(float x) {
#if defined(__CUDA_ARCH__)
  float d;
  asm("ex2.approx.f32 %0, %1;" : "=f"(d) : "f"(x));
  return d;
#else
  return ::exp2f(x);
#endif
}

// e^x: glibc's expf on the CPU (its algorithm, the same bits on every machine); on the GPU
// 2^(x log2 e) with ex2.approx.f32, as in Triton: the product is rounded to float first, which
// adds a relative error of about |x| 2^-24.
TL_FN float float_exp(float x) {
#if defined(__CUDA_ARCH__)
  return float_exp2(x * 1.4426950408889634f);
#elif TL_BACKEND_CPU
  return backend::exp_lane(x);
#else
  return ::expf(x);
#endif
}

// sqrt: correctly rounded on both (sqrt.rn.f32 on the GPU, whatever nvcc's -prec-sqrt says).
TL_FN float float_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return ::sqrtf(x);
#endif
}

// 1 / sqrt(x), each step correctly rounded: the same bits on both backends (Triton's tl.rsqrt is
// the approximate rsqrt.approx instead).
TL_FN float float_rsqrt(float x) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(1.0f, __fsqrt_rn(x));
#else
  return 1.0f / ::sqrtf(x);
#endif
}

// The functions below are tl's own: computed in double from correctly rounded operations
// (tile/math/), then rounded to float once, so both backends give the same bits. Each is within
// 1 ulp of the exact value and nearly always the correctly rounded float (tests/math_functions.cpp
// counts the exceptions). A NaN operand gives a quiet NaN (x + x keeps its sign and payload on the
// CPU; the GPU canonicalizes it, as for every float operation).

// 1 / (1 + e^-x), as Triton's tl.sigmoid defines it. Past |x| = 120 the float result is decided
// (0 or 1), so x is clamped there.
TL_FN float float_sigmoid(float x) {
  if (x != x) return x + x;
  double t = -static_cast<double>(x);
  t = t > 120.0 ? 120.0 : t < -120.0 ? -120.0 : t;
  return static_cast<float>(math::div(1.0, math::add(1.0, math::exp_core(t))));
}

// tanh x = (e^2a - 1) / (e^2a + 1) for a = |x|, with e^2a - 1 from its series where a is small
// (no cancellation); the sign of x, so tanh(-0) = -0. Past |x| = 10 it rounds to +-1.
TL_FN float float_tanh(float x) {
  if (x != x) return x + x;
  double a = std::signbit(x) ? -static_cast<double>(x) : static_cast<double>(x);
  a = a > 10.0 ? 10.0 : a;
  double t;
  if (a < 0.17) {
    const double em = math::expm1_reduced(math::add(a, a));
    t = math::div(em, math::add(em, 2.0));
  } else {
    const double e = math::exp_core(math::add(a, a));
    t = math::div(math::sub(e, 1.0), math::add(e, 1.0));
  }
  const float r = static_cast<float>(t);
  return std::signbit(x) ? -r : r;
}

// erf x, odd: erf(-0) = -0, erf(+-inf) = +-1.
TL_FN float float_erf(float x) {
  if (x != x) return x + x;
  double a = std::signbit(x) ? -static_cast<double>(x) : static_cast<double>(x);
  a = a > 4.0 ? 4.0 : a;
  const float r = static_cast<float>(math::erf_core(a));
  return std::signbit(x) ? -r : r;
}

// ln(1 + x): log1p(-1) = -inf, below -1 NaN, log1p(-0) = -0. Near 0, 2 atanh(x / (2 + x)), which
// keeps every bit of a small x; elsewhere ln of 1 + x rounded to double.
TL_FN float float_log1p(float x) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  if (x != x) return x + x;
  if (x < -1.0f) return std::numeric_limits<float>::quiet_NaN();
  if (x == -1.0f) return -inf;
  if (x == inf) return inf;
  const double xd = x;
  if (xd > -0.29 && xd < 0.41) return static_cast<float>(math::two_atanh(math::div(xd, math::add(2.0, xd))));
  return static_cast<float>(math::log_core(math::add(1.0, xd)));
}

// x^y with C's powf rules for the special cases (IEEE 754 pow): pow(x, +-0) = 1 and pow(1, y) = 1
// even for NaN; a negative x with a non-integer y gives NaN, with an odd integer y a negative
// result; zeros and infinities as C99 Annex F. Otherwise e^(y ln |x|) in double (the product
// rounded once: 2^-53 relative, so about 100 * 2^-53 relative error in the result where it does
// not overflow); past |y ln |x|| = 200 the float result is decided (0 or inf).
TL_FN float float_pow(float x, float y) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (x != x || y != y) return x + y;
  const float ax = std::signbit(x) ? -x : x;
  if (y == inf || y == -inf) {
    if (ax == 1.0f) return 1.0f;  // (-1)^+-inf
    return (ax < 1.0f) == (y < 0.0f) ? inf : 0.0f;
  }
  const bool y_integer = ::floorf(y) == y;
  const float ay = std::signbit(y) ? -y : y;
  const bool y_odd = y_integer && ay < 0x1p24f && (static_cast<int>(ay) & 1) != 0;
  const bool negative = std::signbit(x) && y_odd;
  if (x == 0.0f || ax == inf) {
    const float r = (y < 0.0f) == (x == 0.0f) ? inf : 0.0f;
    return negative ? -r : r;
  }
  if (x < 0.0f && !y_integer) return std::numeric_limits<float>::quiet_NaN();
  double t = math::mul(static_cast<double>(y), math::log_core(static_cast<double>(ax)));
  t = t > 200.0 ? 200.0 : t < -200.0 ? -200.0 : t;
  const float r = static_cast<float>(math::exp_core(t));
  return negative ? -r : r;
}

// Random numbers (tl::randint, tl::rand, tl::randn): Triton's random.py for an int32 seed and
// offset, one lane at a time. The first word of Philox 4x32-10 (tile/math/philox.hpp) is
// randint's bits and rand's source; randn takes the first two words through the Box-Muller step
// of Triton's pair_uniform_to_normal, each of its steps one rounding: max(u1, 1e-7), the angle
// 2 pi u2 rounded to float (Triton's constant is the float 6.2831855), ln u1 and cos of the angle
// computed in double (tile/math/log.hpp, sincos.hpp) and rounded once, sqrt correctly rounded,
// the product rounded once. Triton takes its GPU's float log, sqrt and cos there instead, so its
// randn may differ in the last bits (docs/tl.md, "Random numbers").
TL_FN int random_int(int seed, int offset) {
  return static_cast<int>(math::philox_of(seed, offset).w[0]);
}

TL_FN float random_uniform(int seed, int offset) {
  return math::uniform_float_of(math::philox_of(seed, offset).w[0]);
}

TL_FN float random_normal(int seed, int offset) {
  const auto words = math::philox_of(seed, offset);
  float u1 = math::uniform_float_of(words.w[0]);
  const float u2 = math::uniform_float_of(words.w[1]);
  u1 = u1 < 1.0e-7f ? 1.0e-7f : u1;
  const float two_pi = 6.283185307179586f;
#if defined(__CUDA_ARCH__)
  const float angle = __fmul_rn(two_pi, u2);
#else
  const float angle = two_pi * u2;
#endif
  const float log_u1 = static_cast<float>(math::log_core(static_cast<double>(u1)));
  const float radius = float_sqrt(-2.0f * log_u1);  // -2 * log_u1 is exact
  const float cosine = static_cast<float>(math::cos_core(static_cast<double>(angle)));
#if defined(__CUDA_ARCH__)
  return __fmul_rn(radius, cosine);
#else
  return radius * cosine;
#endif
}

}  // namespace lanes

// ---------------------------------------------------------------------------------------------
// Operations on lanes: function objects, so that expression nodes and reductions share them.

namespace op {

struct no_poison {
  template <class T>
  static constexpr bool may_poison = false;
};

struct add : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    return lanes::wrapping(a, b, [](auto x, auto y) { return x + y; });
  }
};
struct sub : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    return lanes::wrapping(a, b, [](auto x, auto y) { return x - y; });
  }
};
struct mul : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    return lanes::wrapping(a, b, [](auto x, auto y) { return x * y; });
  }
};

#define TL_COMPARISON(name, expr)                                     \
  struct name : no_poison {                                           \
    template <class A, class B>                                       \
    TL_FN bool operator()(A a, B b) const {                 \
      a = lanes::int32_operand(a, "a comparison");                    \
      b = lanes::int32_operand(b, "a comparison");                    \
      return expr;                                                    \
    }                                                                 \
  };
TL_COMPARISON(less, a < b)
TL_COMPARISON(less_equal, a <= b)
TL_COMPARISON(greater, a > b)
TL_COMPARISON(greater_equal, a >= b)
TL_COMPARISON(equal, a == b)
TL_COMPARISON(not_equal, a != b)
#undef TL_COMPARISON

// The order tl::sort sorts by: a strict total order on values, so that a sorting network moves
// every value and never duplicates one. Numbers by <, with -0 before +0 (< calls them equal) and
// NaN after everything (< calls it unordered), as torch.sort orders them.
struct sorts_before : no_poison {
  template <class A, class B>
  TL_FN bool operator()(A a, B b) const {
    using C = lanes::common_t<A, B>;
    if constexpr (std::is_floating_point_v<C> || is_half_v<C>) {
      using F = std::conditional_t<is_half_v<C>, float, C>;  // halves compare exactly in float
      const F x = static_cast<F>(a), y = static_cast<F>(b);
      if (x != x) return false;
      if (y != y) return true;
      if (x == y) return std::signbit(x) && !std::signbit(y);
      return x < y;
    } else {
      a = lanes::int32_operand(a, "a comparison");
      b = lanes::int32_operand(b, "a comparison");
      return a < b;
    }
  }
};

struct maximum : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    using C = lanes::common_t<A, B>;
    if constexpr (std::is_floating_point_v<C>) {
      return lanes::float_maximum<C>(static_cast<C>(a), static_cast<C>(b));
    } else if constexpr (is_half_v<C>) {  // exact in float, so the same NaN and -0 rules
      return static_cast<C>(lanes::float_maximum<float>(static_cast<float>(a), static_cast<float>(b)));
    } else {
      a = lanes::int32_operand(a, "maximum");
      b = lanes::int32_operand(b, "maximum");
      return static_cast<C>(a < b ? b : a);
    }
  }
};
struct minimum : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    using C = lanes::common_t<A, B>;
    if constexpr (std::is_floating_point_v<C>) {
      return lanes::float_minimum<C>(static_cast<C>(a), static_cast<C>(b));
    } else if constexpr (is_half_v<C>) {
      return static_cast<C>(lanes::float_minimum<float>(static_cast<float>(a), static_cast<float>(b)));
    } else {
      a = lanes::int32_operand(a, "minimum");
      b = lanes::int32_operand(b, "minimum");
      return static_cast<C>(b < a ? b : a);
    }
  }
};

// Masks combine as booleans; integers combine bitwise.
struct bit_and : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, bool> && std::is_same_v<B, bool>) {
      return a && b;
    } else {
      return lanes::int32_operand(a, "&") & lanes::int32_operand(b, "&");
    }
  }
};
struct bit_or : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, bool> && std::is_same_v<B, bool>) {
      return a || b;
    } else {
      return lanes::int32_operand(a, "|") | lanes::int32_operand(b, "|");
    }
  }
};
struct bit_not {
  template <class A>
  TL_FN auto operator()(A a) const {
    if constexpr (std::is_same_v<A, bool>) return !a;
    else return ~lanes::int32_operand(a, "~");
  }
};

// Integer division truncates toward zero, as in C and in the code Triton generates for //.
// Division by zero gives poison in the simulator (and 0 on the GPU), never a trap. INT_MIN / -1
// is 2^31: the simulator reports it where it is used; the GPU wraps it to INT_MIN.
struct div {
  template <class T>
  static constexpr bool may_poison = is_integer_lane_v<T>;
  template <class B>
  TL_FN static bool poisons(B b) {
    return is_integer_lane_v<B> && b == B(0);
  }
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
      using C = decltype(a / b);
      a = lanes::int32_operand(a, "integer division");
      b = lanes::int32_operand(b, "integer division");
      if (b == B(0)) return C(0);
      if (b == B(-1)) return lanes::wrapping(C(0), static_cast<C>(a), [](auto x, auto y) { return x - y; });
      return static_cast<C>(a / b);
    } else if constexpr (std::is_same_v<lanes::common_t<A, B>, float>) {
      return lanes::float_divide(static_cast<float>(a), static_cast<float>(b));
    } else {
      return a / b;
    }
  }
};
struct mod {
  template <class T>
  static constexpr bool may_poison = is_integer_lane_v<T>;
  template <class B>
  TL_FN static bool poisons(B b) {
    return b == B(0);
  }
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    if constexpr (std::is_integral_v<A> && std::is_integral_v<B>) {
      using C = decltype(a % b);
      a = lanes::int32_operand(a, "%");
      b = lanes::int32_operand(b, "%");
      if (b == B(0) || b == B(-1)) return C(0);
      return static_cast<C>(a % b);
    } else if constexpr (std::is_same_v<lanes::common_t<A, B>, float>) {
      return ::fmodf(static_cast<float>(a), static_cast<float>(b));
    } else {
      return ::fmod(static_cast<double>(a), static_cast<double>(b));
    }
  }
};

struct negate {
  template <class A>
  TL_FN auto operator()(A a) const {
    return lanes::wrapping(A(0), a, [](auto x, auto y) { return x - y; });
  }
};

struct exp {
  template <class A>
  TL_FN auto operator()(A a) const {
    if constexpr (std::is_same_v<A, double>) return ::exp(a);
    else return lanes::float_exp(static_cast<float>(lanes::int32_operand(a, "tl::exp")));
  }
};
struct exp2 {
  template <class A>
  TL_FN auto operator()(A a) const {
    if constexpr (std::is_same_v<A, double>) return ::exp2(a);
    else return lanes::float_exp2(static_cast<float>(lanes::int32_operand(a, "tl::exp2")));
  }
};

#define TL_FLOAT_FN(name, ffn, dfn)                                                     \
  struct name {                                                                         \
    template <class A>                                                                  \
    TL_FN auto operator()(A a) const {                                                  \
      if constexpr (std::is_same_v<A, double>) return dfn(a);                           \
      else return ffn(static_cast<float>(lanes::int32_operand(a, "tl::" #name)));       \
    }                                                                                   \
  };
// A double lane takes the C library's double function (CUDA's on the GPU).
TL_FN double double_sigmoid(double x) { return 1.0 / (1.0 + ::exp(-x)); }
TL_FN double double_rsqrt(double x) { return 1.0 / ::sqrt(x); }
TL_FLOAT_FN(log, ::logf, ::log)
TL_FLOAT_FN(log2, ::log2f, ::log2)
TL_FLOAT_FN(sqrt, lanes::float_sqrt, ::sqrt)
TL_FLOAT_FN(sin, ::sinf, ::sin)
TL_FLOAT_FN(cos, ::cosf, ::cos)
TL_FLOAT_FN(rsqrt, lanes::float_rsqrt, double_rsqrt)
TL_FLOAT_FN(floor, ::floorf, ::floor)
TL_FLOAT_FN(ceil, ::ceilf, ::ceil)
TL_FLOAT_FN(sigmoid, lanes::float_sigmoid, double_sigmoid)
TL_FLOAT_FN(tanh, lanes::float_tanh, ::tanh)
TL_FLOAT_FN(erf, lanes::float_erf, ::erf)
TL_FLOAT_FN(log1p, lanes::float_log1p, ::log1p)
#undef TL_FLOAT_FN

// x^y: in double where either operand is double, otherwise in float (lanes::float_pow).
struct pow : no_poison {
  template <class A, class B>
  TL_FN auto operator()(A a, B b) const {
    if constexpr (std::is_same_v<A, double> || std::is_same_v<B, double>) {
      return ::pow(static_cast<double>(a), static_cast<double>(b));
    } else {
      return lanes::float_pow(static_cast<float>(lanes::int32_operand(a, "tl::pow")),
                              static_cast<float>(lanes::int32_operand(b, "tl::pow")));
    }
  }
};

// tl::randint, tl::rand and tl::randn of a lane: the seed (an int scalar, uniform over the
// program) and the lane's offset, each inside int32.
#define TL_RANDOM_OP(name, lane_fn)                                                   \
  struct name : no_poison {                                                         \
    template <class A, class B>                                                     \
    TL_FN auto operator()(A seed, B offset) const {                                 \
      return lane_fn(static_cast<int>(lanes::int32_operand(seed, "tl::" #name)),    \
                     static_cast<int>(lanes::int32_operand(offset, "tl::" #name))); \
    }                                                                               \
  };
TL_RANDOM_OP(randint, lanes::random_int)
TL_RANDOM_OP(rand, lanes::random_uniform)
TL_RANDOM_OP(randn, lanes::random_normal)
#undef TL_RANDOM_OP

// a * b + c rounded once (IEEE fma, fma.rn on the GPU): the same bits on both backends. In double
// where any operand is double, otherwise in float.
struct fma : no_poison {
  template <class A, class B, class C>
  TL_FN auto operator()(A a, B b, C c) const {
    if constexpr (std::is_same_v<A, double> || std::is_same_v<B, double> ||
                  std::is_same_v<C, double>) {
      return ::fma(static_cast<double>(a), static_cast<double>(b), static_cast<double>(c));
    } else {
      return ::fmaf(static_cast<float>(lanes::int32_operand(a, "tl::fma")),
                    static_cast<float>(lanes::int32_operand(b, "tl::fma")),
                    static_cast<float>(lanes::int32_operand(c, "tl::fma")));
    }
  }
};

struct abs {
  template <class A>
  TL_FN auto operator()(A a) const {
    if constexpr (std::is_floating_point_v<A>) {
      return std::signbit(a) ? -a : a;
    } else {
      a = lanes::int32_operand(a, "tl::abs");
      return a < A(0) ? negate{}(a) : a;
    }
  }
};

// tl::cast<T>: static_cast per lane. An integer lane converted to float must be inside int32;
// a float lane converted to an integer must be a number inside int32 (the GPU saturates, C++
// leaves it undefined): both are reported by the simulator. A cast to int8 or uint8 keeps the low
// 8 bits of the int32 (a float goes through int32 first, truncated toward zero), as Triton's does:
// a kernel that means to saturate clamps first.
template <class T>
struct cast_to {
  template <class A>
  TL_FN auto operator()(A a) const {
    if constexpr (is_integer_lane_v<A>) {
      return static_cast<T>(lanes::int32_operand(a, "tl::cast"));
    } else if constexpr (is_floating_v<A> && is_integer_lane_v<T>) {
      // A half lane converts through float (exact), so its NaN and infinities are reported too.
      using F = std::conditional_t<std::is_floating_point_v<A>, A, float>;
      const F f = static_cast<F>(a);
      if constexpr (backend::checks_lanes) {
        if (!(f >= F(-2147483648.0) && f < F(2147483648.0)))
          backend::float_to_int32_overflow(static_cast<double>(f));
      }
      if constexpr (sizeof(T) < sizeof(int)) return static_cast<T>(static_cast<int>(f));
      else return static_cast<T>(f);
    } else {
      return static_cast<T>(a);
    }
  }
};

}  // namespace op

// The value type of a reduction: summing a mask counts its true lanes, as in Triton; max and min
// of a mask stay masks.
template <class Op, class T>
using reduced_value_t =
    std::conditional_t<std::is_same_v<T, bool> && std::is_same_v<Op, op::add>, int, T>;

}  // namespace TL_ABI
}  // namespace tl
