// Per-element bodies of core::add, sub, mul and div (and their in-place forms), maximum and
// minimum, the comparisons and the logical ops, shared by the CPU
// loop (ops/binary.cpp) and the CUDA kernel (elementwise_kernels.cu), so the CPU tests run the
// arithmetic a GPU runs. T is any of the ops' element types (std::complex on the CPU, the
// device's ComplexElement on the GPU).
#pragma once

#include <cmath>
#include <type_traits>

#include "sampan/complex_element.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

// The math library of the side compiling: CUDA's on the device, the C++ library's on the host.
#if defined(__CUDA_ARCH__)
#define SAMPAN_MATH(f) ::f
#else
#define SAMPAN_MATH(f) std::f
#endif

struct AddElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a + b; }
};
struct SubElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a - b; }
};
struct MulElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a * b; }
};
// Complex division as the CPU's std::complex computes it (GCC's __divdc3): Smith's algorithm
// (1962: the ratio of the smaller to the larger part of the divisor, no squares to overflow), then
// C99 Annex G's recovery of infinities and zeros that came out NaN + iNaN; complex64 in float64,
// rounded once, as __divsc3 does. The CPU's bits for operands away from overflow and underflow
// (tests/cpp/framework/strided_layout_test.cpp compares two million pairs); near those bounds
// GCC also rescales the operands, which this does not.
SAMPAN_HOST_DEVICE inline ComplexElement<double> complex_divide(ComplexElement<double> z, ComplexElement<double> w) {
  double a = z.re, b = z.im, c = w.re, d = w.im, x, y;
  if (SAMPAN_MATH(fabs)(c) < SAMPAN_MATH(fabs)(d)) {
    const double r = c / d, den = c * r + d;
    x = (a * r + b) / den;
    y = (b * r - a) / den;
  } else {
    const double r = d / c, den = d * r + c;
    x = (b * r + a) / den;
    y = (b - a * r) / den;
  }
  if (x != x && y != y) {
    const double inf = HUGE_VAL;
    if (c == 0.0 && d == 0.0 && (a == a || b == b)) {
      x = SAMPAN_MATH(copysign)(inf, c) * a;
      y = SAMPAN_MATH(copysign)(inf, c) * b;
    } else if ((SAMPAN_MATH(isinf)(a) || SAMPAN_MATH(isinf)(b)) && SAMPAN_MATH(isfinite)(c) && SAMPAN_MATH(isfinite)(d)) {
      a = SAMPAN_MATH(copysign)(SAMPAN_MATH(isinf)(a) ? 1.0 : 0.0, a);
      b = SAMPAN_MATH(copysign)(SAMPAN_MATH(isinf)(b) ? 1.0 : 0.0, b);
      x = inf * (a * c + b * d);
      y = inf * (b * c - a * d);
    } else if ((SAMPAN_MATH(isinf)(c) || SAMPAN_MATH(isinf)(d)) && SAMPAN_MATH(isfinite)(a) && SAMPAN_MATH(isfinite)(b)) {
      c = SAMPAN_MATH(copysign)(SAMPAN_MATH(isinf)(c) ? 1.0 : 0.0, c);
      d = SAMPAN_MATH(copysign)(SAMPAN_MATH(isinf)(d) ? 1.0 : 0.0, d);
      x = 0.0 * (a * c + b * d);
      y = 0.0 * (b * c - a * d);
    }
  }
  return {x, y};
}

struct DivElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, ComplexElement<double>>) {
      return complex_divide(a, b);
    } else if constexpr (std::is_same_v<T, ComplexElement<float>>) {
      const ComplexElement<double> q = complex_divide({a.re, a.im}, {b.re, b.im});
      return {static_cast<float>(q.re), static_cast<float>(q.im)};
    } else {
      return a / b;
    }
  }
};

// NaN test of a real element: v != v for float32 / float64, false otherwise.
template <class T> SAMPAN_HOST_DEVICE bool is_nan_element(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}
// core::maximum / minimum: NaN wins (NumPy's and PyTorch's), then the larger (smaller) one.
struct MaximumElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return (a > b || is_nan_element(a)) ? a : b; }
};
struct MinimumElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return (a < b || is_nan_element(a)) ? a : b; }
};

// fmod, copysign and floor of the C++ library on the host, CUDA's on the device: all exact.
#if defined(__CUDA_ARCH__)
#define SAMPAN_EXACT_MATH(f) ::f
#else
#define SAMPAN_EXACT_MATH(f) std::f
#endif

// Python's % and // and ** of integers, where b == 0 (b < 0 for **) never reaches them: the op
// layer raises first (the CPU from a flag set in its loop, the GPU from a reduction of y before
// the kernel); 0 is returned there so that no division by zero can happen. b == -1 is special:
// lowest % -1 and lowest / -1 overflow (the quotient wraps, as NumPy's and PyTorch's).
struct RemainderIntElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if (b == 0 || b == -1) return 0;
    const T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? static_cast<T>(r + b) : r;
  }
};
struct FloorDivideIntElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    if (b == 0) return 0;
    if (b == -1) return static_cast<T>(U(0) - static_cast<U>(a));  // wraps for lowest
    const T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? static_cast<T>(q - 1) : q;
  }
};
// a ** b by repeated squaring, wrapping on overflow as NumPy and PyTorch do.
struct PowIntElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    using U = std::make_unsigned_t<T>;
    if (b < 0) return 0;
    U r = 1, base = static_cast<U>(a);
    for (U e = static_cast<U>(b); e; e >>= 1) {
      if (e & 1) r *= base;
      base *= base;
    }
    return static_cast<T>(r);
  }
};

// Python's % of floating elements: the sign of the divisor (NumPy's mod, PyTorch's remainder).
struct RemainderFloatElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    const T r = SAMPAN_EXACT_MATH(fmod)(a, b);
    if (r == 0) return SAMPAN_EXACT_MATH(copysign)(T(0), b);
    return ((r < 0) != (b < 0)) ? r + b : r;
  }
};
// Python's // of floating elements: NumPy's npy_divmod, from fmod, so that a == b * q + r holds
// with r = remainder(a, b) even where a / b rounds across an integer.
struct FloorDivideFloatElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if (b == 0) return a / b;
    const T mod = SAMPAN_EXACT_MATH(fmod)(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    if (div == 0) return SAMPAN_EXACT_MATH(copysign)(T(0), a / b);
    const T q = SAMPAN_EXACT_MATH(floor)(div);
    return div - q > T(0.5) ? q + T(1) : q;
  }
};

// The integer and floating bodies as one element (the CUDA twins over real dtypes).
struct RemainderElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return RemainderIntElement{}(a, b);
    else return RemainderFloatElement{}(a, b);
  }
};
struct FloorDivideElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return FloorDivideIntElement{}(a, b);
    else return FloorDivideFloatElement{}(a, b);
  }
};

// Comparisons (core::eq ... ge), bool results; == and != of complex elements compare both parts,
// as std::complex's. The orderings are for real elements only.
struct EqElement {
  template <class T> SAMPAN_HOST_DEVICE bool operator()(T a, T b) const { return a == b; }
  template <class T> SAMPAN_HOST_DEVICE bool operator()(ComplexElement<T> a, ComplexElement<T> b) const {
    return a.re == b.re && a.im == b.im;
  }
};
struct NeElement {
  template <class T> SAMPAN_HOST_DEVICE bool operator()(T a, T b) const { return !EqElement{}(a, b); }
};
struct LtElement {
  template <class T> SAMPAN_HOST_DEVICE bool operator()(T a, T b) const { return a < b; }
};
struct LeElement {
  template <class T> SAMPAN_HOST_DEVICE bool operator()(T a, T b) const { return a <= b; }
};
struct GtElement {
  template <class T> SAMPAN_HOST_DEVICE bool operator()(T a, T b) const { return a > b; }
};
struct GeElement {
  template <class T> SAMPAN_HOST_DEVICE bool operator()(T a, T b) const { return a >= b; }
};
// The logical ops over truth values (bool elements).
struct LogicalAndElement {
  SAMPAN_HOST_DEVICE bool operator()(bool a, bool b) const { return a && b; }
};
struct LogicalOrElement {
  SAMPAN_HOST_DEVICE bool operator()(bool a, bool b) const { return a || b; }
};
struct LogicalXorElement {
  SAMPAN_HOST_DEVICE bool operator()(bool a, bool b) const { return a != b; }
};

}  // namespace sampan::kernels
