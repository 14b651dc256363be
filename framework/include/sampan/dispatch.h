// sampan: dtype dispatch for kernels. Calls `f(type_tag<T>{})` with the C++ type of `dtype`:
//
//   visit_floating(x.dtype(), "my_op", [&](auto tag) {
//     using T = typename decltype(tag)::type;
//     my_kernel<T>(x.data<T>(), ...);
//   });
#pragma once

#include <string>

#include "sampan/dtype.h"
#include "sampan/error.h"

namespace sampan {

template <class T> struct type_tag { using type = T; };

namespace detail {
[[noreturn]] inline void unsupported_dtype(DType t, const char* op, const char* which) {
  SAMPAN_THROW(TypeError, "'", op, "' does not support dtype ", dtype_name(t),
               " (supported: ", which, ")");
}
}  // namespace detail

/// float32, float64.
template <class F> decltype(auto) visit_floating(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    default: detail::unsupported_dtype(t, op, "float32, float64");
  }
}
/// float32, float64, complex64, complex128.
template <class F> decltype(auto) visit_floating_complex(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    case DType::Complex64: return f(type_tag<complex64>{});
    case DType::Complex128: return f(type_tag<complex128>{});
    default: detail::unsupported_dtype(t, op, "float32, float64, complex64, complex128");
  }
}
/// int32, int64, float32, float64.
template <class F> decltype(auto) visit_real(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Int32: return f(type_tag<int32_t>{});
    case DType::Int64: return f(type_tag<int64_t>{});
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    default: detail::unsupported_dtype(t, op, "int32, int64, float32, float64");
  }
}
/// int32, int64, float32, float64, complex64, complex128.
template <class F> decltype(auto) visit_numeric(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Int32: return f(type_tag<int32_t>{});
    case DType::Int64: return f(type_tag<int64_t>{});
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    case DType::Complex64: return f(type_tag<complex64>{});
    case DType::Complex128: return f(type_tag<complex128>{});
    default: detail::unsupported_dtype(t, op, "int32, int64, float32, float64, complex64, complex128");
  }
}
/// Every dtype.
template <class F> decltype(auto) visit_all(DType t, const char* op, F&& f) {
  switch (t) {
    case DType::Bool: return f(type_tag<bool>{});
    case DType::Int32: return f(type_tag<int32_t>{});
    case DType::Int64: return f(type_tag<int64_t>{});
    case DType::Float16: return f(type_tag<Half>{});
    case DType::BFloat16: return f(type_tag<BFloat16>{});
    case DType::Float32: return f(type_tag<float>{});
    case DType::Float64: return f(type_tag<double>{});
    case DType::Complex64: return f(type_tag<complex64>{});
    case DType::Complex128: return f(type_tag<complex128>{});
  }
  detail::unsupported_dtype(t, op, "any");
}

}  // namespace sampan
