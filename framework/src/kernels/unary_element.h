// Per-element bodies of the unary ops that have CUDA twins (core::neg, abs, square, floor, ceil,
// round, conj, relu and relu's gradient), shared by the CPU loops (ops/unary.cpp, ops/activation.cpp) and the
// CUDA kernels (elementwise_kernels.cu), so the CPU tests run the arithmetic a GPU runs. Each is
// exact (no rounding a GPU library would do differently), so the twins give the CPU's bits.
#pragma once

#include <cmath>
#include <type_traits>

#include "sampan/complex_element.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

// The C++ library's function on the host, CUDA's on the device (both exact for these).
#if defined(__CUDA_ARCH__)
#define SAMPAN_ELEMENT_MATH(f) ::f
#else
#define SAMPAN_ELEMENT_MATH(f) std::f
#endif

struct NegElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return -v; }
};
// |v| of a real v: std::abs's value (fabs for floating v, so -0 and NaN lose their sign).
struct AbsElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_floating_point_v<T>) return SAMPAN_ELEMENT_MATH(fabs)(v);
    else return v < T(0) ? T(-v) : v;
  }
};
// sign of a real v: -1, 0 or +1 (NaN stays NaN, zero keeps its sign), core::sign's real part.
struct SignElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>((T(0) < v) - (v < T(0)));
    else return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v);
  }
};
struct SquareElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return v * v; }
};
// Integers are already whole: floor, ceil and round are the identity on them.
struct FloorElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) return v; else return SAMPAN_ELEMENT_MATH(floor)(v);
  }
};
struct CeilElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) return v; else return SAMPAN_ELEMENT_MATH(ceil)(v);
  }
};
// Halves round to even (NumPy's and PyTorch's rule): nearbyint under the default rounding mode.
struct RoundElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const {
    if constexpr (std::is_integral_v<T>) return v; else return SAMPAN_ELEMENT_MATH(nearbyint)(v);
  }
};
// `v < 0 ? 0 : v` rather than `v > 0 ? v : 0` so that NaN propagates, as in PyTorch.
struct ReluElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return v < T(0) ? T(0) : v; }
};
// The complex conjugate; the identity on real elements.
struct ConjElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T v) const { return v; }
  template <class T> SAMPAN_HOST_DEVICE ComplexElement<T> operator()(ComplexElement<T> v) const { return {v.re, -v.im}; }
};
// min(max(v, lo), hi) as PyTorch's clamp: hi wins when lo > hi; NaN v stays NaN. (A NaN bound
// is no bound: the op layer passes -inf / +inf, or the integer type's limits, instead.)
template <class T> struct ClampElement {
  T lo, hi;
  SAMPAN_HOST_DEVICE T operator()(T v) const {
    T r = v < lo ? lo : v;
    return r > hi ? hi : r;
  }
};
// relu's gradient: grad where x > 0, else 0 (NaN in x passes no gradient).
struct ReluBackwardElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T x, T g) const { return x > T(0) ? g : T(0); }
};

#undef SAMPAN_ELEMENT_MATH

}  // namespace sampan::kernels
