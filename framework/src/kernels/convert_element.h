// One element converted between the element types the CUDA kernels read (bool, int32_t, int64_t,
// Half, BFloat16, float, double, ComplexElement<float>, ComplexElement<double>; the 16-bit floats
// by sampan/half_bits.h) exactly as the CPU's cast does
// (detail::convert_value in ops/elementwise_support.h): complex to real keeps the real part, real
// to complex goes through double, anything to bool is v != 0, the rest is static_cast.
// tests/cpp/framework/strided_layout_test.cpp compares the two over every pair of dtypes.
#pragma once

#include <type_traits>

#include "sampan/host_device.h"
#include "sampan/complex_element.h"
#include "sampan/dtype.h"
#include "strided_index.h"

namespace sampan::kernels {

template <class T> struct complex_element_traits : std::false_type {};
template <class T> struct complex_element_traits<ComplexElement<T>> : std::true_type { using real = T; };

template <class To, class From> SAMPAN_HOST_DEVICE inline To convert_element(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (complex_element_traits<From>::value) {
    if constexpr (complex_element_traits<To>::value) {
      using R = typename complex_element_traits<To>::real;
      return To{static_cast<R>(v.re), static_cast<R>(v.im)};
    } else {
      return convert_element<To>(v.re);
    }
  } else if constexpr (complex_element_traits<To>::value) {
    using R = typename complex_element_traits<To>::real;
    return To{static_cast<R>(convert_element<double>(v)), R(0)};
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert_element<To>(static_cast<float>(v));  // storage types: through float32
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

/// out = convert(x) at element k: one thread's work in the CUDA conversion kernel.
template <class In, class Out>
SAMPAN_HOST_DEVICE inline void convert_at(const StridedLayout<2>& layout, int64_t k, Out* out, const In* x) {
  int64_t off[2];
  strided_offsets(layout, k, off);
  out[off[0]] = convert_element<Out>(x[off[1]]);
}

}  // namespace sampan::kernels
