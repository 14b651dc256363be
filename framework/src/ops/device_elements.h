// The element type the CUDA elementwise kernels read each dtype's buffer as: the CPU's element
// type (dispatch.h's visit_all, the one dtype -> C++ type table), with complex read through
// sampan/complex_element.h (std::complex's layout, device operators). Host code without CUDA
// includes, so the CPU tests walk the kernels' per-element functions through this same mapping.
#pragma once

#include <type_traits>

#include "sampan/dispatch.h"
#include "sampan/error.h"
#include "sampan/complex_element.h"

namespace sampan::detail {

template <class T> struct ElementTag { using type = T; };

template <class T> struct device_element { using type = T; };
template <class T> struct device_element<std::complex<T>> { using type = kernels::ComplexElement<T>; };

/// Calls f(ElementTag<element type>) for `dtype`; float16 and bfloat16 raise NotImplementedError
/// naming `op`.
template <class F> void visit_device_element(DType dtype, const char* op, F f) {
  visit_all(dtype, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
      SAMPAN_THROW(NotImplementedError, op, ": no CUDA kernel for dtype ", dtype_name(dtype),
                   " (bool, int32, int64, float32, float64, complex64, complex128 only)");
    else
      f(ElementTag<typename device_element<T>::type>{});
  });
}

/// visit_device_element with float16 and bfloat16 too (as sampan::Half and sampan::BFloat16,
/// whose conversions are host and device functions): the conversion kernels' dtypes.
template <class F> void visit_storage_element(DType dtype, const char* op, F f) {
  visit_all(dtype, op, [&](auto tag) { f(ElementTag<typename device_element<typename decltype(tag)::type>::type>{}); });
}

}  // namespace sampan::detail
