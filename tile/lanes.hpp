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
TL_FLOAT_FN(log, ::logf, ::log)
TL_FLOAT_FN(log2, ::log2f, ::log2)
TL_FLOAT_FN(sqrt, ::sqrtf, ::sqrt)
TL_FLOAT_FN(sin, ::sinf, ::sin)
TL_FLOAT_FN(cos, ::cosf, ::cos)
#undef TL_FLOAT_FN

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
// leaves it undefined): both are reported by the simulator.
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
      return static_cast<T>(f);
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
