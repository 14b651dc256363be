// CUDA elementwise kernels over strided, broadcast operands (defined in elementwise_kernels.cu,
// compiled only where nvcc exists: SAMPAN_CUDA_KERNELS). Pointers are device pointers to element
// 0 of each operand; the layout (strided_index.h) gives every operand's strides over the
// iteration shape of n elements. Errors leave as std::runtime_error.
#pragma once

#include <cstdint>

#include "strided_index.h"

namespace sampan::kernels {

/// out = F{}(x, y) elementwise (F: AddElement ... DivElement of binary_element.h or
/// ReluBackwardElement of unary_element.h; T: float,
/// double, int32_t, int64_t, and for Add, Sub, Mul, Div and PowReal ComplexElement<float> and <double> of
/// complex_element.h). out may be x or y (the in-place ops). Asynchronous on the default stream,
/// as the ops that follow it.
template <class F, class T>
void binary_cuda(const StridedLayout<3>& layout, int64_t n, T* out, const T* x, const T* y);

/// out = f(x) elementwise (F: the functions of unary_element.h; T: float, double, int32_t,
/// int64_t, and for NegElement, SquareElement and ConjElement the complex types; those of
/// math_element.h for float and double (Exp and Log for the complex types too), ClampElement<T> and SoftplusElement<T> with their
/// bounds). out may be x (in place).
template <class F, class T> void unary_cuda(const StridedLayout<2>& layout, int64_t n, T* out, const T* x, F f = F{});

/// out = F{}(x, y) as bool elementwise (F: EqElement ... GeElement, LogicalAndElement ... of
/// binary_element.h; T: bool, int32_t, int64_t, float, double, and for Eq and Ne the complex
/// types; the logical ones over bool only).
template <class F, class T>
void compare_cuda(const StridedLayout<3>& layout, int64_t n, bool* out, const T* x, const T* y);

/// out = cond ? x : y elementwise (core::where; T: bool, int32_t, int64_t, float, double, complex,
/// Half, BFloat16: a selection, the same bits on any device).
template <class T>
void where_cuda(const StridedLayout<4>& layout, int64_t n, T* out, const bool* cond, const T* x, const T* y);

/// out = x converted (convert_element.h), x broadcast to out's layout; In and Out any of bool,
/// int32_t, int64_t, Half, BFloat16, float, double, ComplexElement<float>, ComplexElement<double>. out must not
/// overlap x unless they are the same buffer with the same layout.
template <class In, class Out> void convert_cuda(const StridedLayout<2>& layout, int64_t n, Out* out, const In* x);

}  // namespace sampan::kernels
