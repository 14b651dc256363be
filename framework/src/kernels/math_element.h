// Per-element bodies of the unary ops that call a math library (core::exp, log, log1p, expm1, sin,
// cos, tan, tanh, erf, sigmoid, gelu, silu) or round once per IEEE operation (sqrt, rsqrt,
// reciprocal), shared by the CPU loops (ops/unary.cpp, ops/activation.cpp) and the CUDA kernels
// (elementwise_kernels.cu). sqrt and division are correctly rounded on both (nvcc's default
// -prec-sqrt and -prec-div), so those twins give the CPU's bits; exp, log ... come from glibc on
// the CPU and CUDA's math library on the GPU, which differ in the last bit (the ops say so with
// .cuda_rounds_differently()). On the host the bodies serve std::complex elements too; the CUDA
// twins are built for float32 and float64, and exp, log and pow for the device's complex elements
// (ComplexElement, through complex_exp / complex_log below).
#pragma once

#include <cmath>
#include <type_traits>

#include "binary_element.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

constexpr double kSqrtHalf = 0.70710678118654752440;  // 1 / sqrt(2)

// The device's complex exp and log (principal branch): e^re (cos im + i sin im) and
// log|z| + i arg z, glibc's cexp / clog to rounding for finite z. std::complex on the host.
template <class T> SAMPAN_HOST_DEVICE inline ComplexElement<T> complex_exp(ComplexElement<T> z) {
  const T r = SAMPAN_MATH(exp)(z.re);
  return {r * SAMPAN_MATH(cos)(z.im), r * SAMPAN_MATH(sin)(z.im)};
}
template <class T> SAMPAN_HOST_DEVICE inline ComplexElement<T> complex_log(ComplexElement<T> z) {
  return {SAMPAN_MATH(log)(SAMPAN_MATH(hypot)(z.re, z.im)), SAMPAN_MATH(atan2)(z.im, z.re)};
}
template <class T> struct is_complex_element : std::false_type {};
template <class T> struct is_complex_element<ComplexElement<T>> : std::true_type {};

struct ExpElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (is_complex_element<T>::value) return complex_exp(v);
    else return SAMPAN_MATH(exp)(v);
  }
};
struct LogElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (is_complex_element<T>::value) return complex_log(v);
    else return SAMPAN_MATH(log)(v);
  }
};
struct Log1pElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(log1p)(v); } };
struct Expm1Element { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(expm1)(v); } };
struct SqrtElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(sqrt)(v); } };
struct RsqrtElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return T(1) / SAMPAN_MATH(sqrt)(v); }
};
struct SinElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(sin)(v); } };
struct CosElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(cos)(v); } };
struct TanElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(tan)(v); } };
struct TanhElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(tanh)(v); } };
struct ErfElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(erf)(v); } };
// atan2(y, x) of floating elements (core::atan2).
struct Atan2Element {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T y, T x) const { return SAMPAN_MATH(atan2)(y, x); }
};
// x ** y of floating elements (core::pow's float32 / float64 branch).
struct PowElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return SAMPAN_MATH(pow)(a, b); }
};
// x ** y of real elements: integers by repeated squaring (binary_element.h), floats as above.
// The device's complex elements too: exp(b log a), with 0 ** 0 = 1 (the CPU op's convention) and
// 0 ** b = 0 otherwise (libstdc++'s).
struct PowRealElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      return PowIntElement{}(a, b);
    } else if constexpr (is_complex_element<T>::value) {
      using R = decltype(a.re);
      if (a.re == R(0) && a.im == R(0)) return (b.re == R(0) && b.im == R(0)) ? T{R(1), R(0)} : T{R(0), R(0)};
      return complex_exp(b * complex_log(a));
    } else {
      return PowElement{}(a, b);
    }
  }
};
struct ReciprocalElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return T(1) / v; } };
struct SigmoidElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return T(1) / (T(1) + SAMPAN_MATH(exp)(-v)); }
};
// The exact GELU, x * Phi(x) with Phi the standard normal CDF (Hendrycks & Gimpel 2016, eq. 1).
struct GeluElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    return T(0.5) * v * (T(1) + SAMPAN_MATH(erf)(v * T(kSqrtHalf)));
  }
};
struct SiluElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return v / (T(1) + SAMPAN_MATH(exp)(-v)); }
};

// softplus: log(1 + exp(beta v)) / beta as (max(z, 0) + log1p(exp(-|z|))) / beta with z = beta v,
// and v itself where z > threshold.
template <class T> struct SoftplusElement {
  T beta, threshold;
  SAMPAN_HOST_DEVICE T operator()(T v) const {
    const T z = v * beta;
    return z > threshold ? v : ((z < T(0) ? T(0) : z) + SAMPAN_MATH(log1p)(SAMPAN_MATH(exp)(-SAMPAN_MATH(fabs)(z)))) / beta;
  }
};

#undef SAMPAN_MATH

}  // namespace sampan::kernels
