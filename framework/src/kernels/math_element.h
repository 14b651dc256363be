// Per-element bodies of the unary ops that call a math library (core::exp, log, log1p, expm1, sin,
// cos, tan, tanh, erf, sigmoid, gelu, silu) or round once per IEEE operation (sqrt, rsqrt,
// reciprocal), shared by the CPU loops (ops/unary.cpp, ops/activation.cpp) and the CUDA kernels
// (elementwise_kernels.cu). sqrt and division are correctly rounded on both (nvcc's default
// -prec-sqrt and -prec-div), so those twins give the CPU's bits; exp, log ... come from glibc on
// the CPU and CUDA's math library on the GPU, which differ in the last bit (the ops say so with
// .cuda_rounds_differently()). On the host the bodies serve complex elements too; the CUDA twins
// are built for float32 and float64.
#pragma once

#include <cmath>
#include <type_traits>

#include "binary_element.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

#if defined(__CUDA_ARCH__)
#define SAMPAN_MATH(f) ::f
#else
#define SAMPAN_MATH(f) std::f
#endif

constexpr double kSqrtHalf = 0.70710678118654752440;  // 1 / sqrt(2)

struct ExpElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(exp)(v); } };
struct LogElement { template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return SAMPAN_MATH(log)(v); } };
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
struct PowRealElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return PowIntElement{}(a, b);
    else return PowElement{}(a, b);
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
