// Per-element bodies of core::add, sub, mul and div (and their in-place forms), maximum and
// minimum, the comparisons and the logical ops, shared by the CPU
// loop (ops/binary.cpp) and the CUDA kernel (elementwise_kernels.cu), so the CPU tests run the
// arithmetic a GPU runs. T is any of the ops' element types (complex ones on the CPU only).
#pragma once

#include <type_traits>

#include "sampan/complex_element.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

struct AddElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a + b; }
};
struct SubElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a - b; }
};
struct MulElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a * b; }
};
struct DivElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a / b; }
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
