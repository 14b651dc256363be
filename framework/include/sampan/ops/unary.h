// sampan: elementwise unary math.
//
// Floating functions (exp, sqrt, sin, erf ...) give float32 for integer and bool inputs (PyTorch's
// default dtype) and keep floating and complex dtypes; exact arithmetic (abs, sign, square, floor,
// ceil, round) keeps integer dtypes. Real-only functions (log1p, expm1, erf, floor ...) reject
// complex inputs with a TypeError. Activations are in activation.h.
#pragma once

#include "sampan/tensor.h"

namespace sampan {

Tensor neg(const Tensor& x);
Tensor exp(const Tensor& x);
Tensor log(const Tensor& x);
/// Real part (identity for real tensors).
Tensor real(const Tensor& x);
/// Complex conjugate (identity for real tensors).
Tensor conj(const Tensor& x);

/// |x|; for complex x the modulus, a real tensor (complex64 -> float32).
Tensor abs(const Tensor& x);
/// log(1 + x), accurate near 0 (real only).
Tensor log1p(const Tensor& x);
/// exp(x) - 1, accurate near 0 (real only).
Tensor expm1(const Tensor& x);
Tensor sqrt(const Tensor& x);
/// 1 / sqrt(x).
Tensor rsqrt(const Tensor& x);
Tensor sin(const Tensor& x);
Tensor cos(const Tensor& x);
Tensor tan(const Tensor& x);
Tensor tanh(const Tensor& x);
/// The Gauss error function (real only).
Tensor erf(const Tensor& x);
/// -1, 0, +1 (NaN stays NaN); z / |z| for complex z, 0 at 0. Zero gradient for real x.
Tensor sign(const Tensor& x);
/// floor, ceil, round (halves to even) are the identity on integer dtypes; zero gradient.
Tensor floor(const Tensor& x);
Tensor ceil(const Tensor& x);
Tensor round(const Tensor& x);
/// x * x (keeps integer dtypes).
Tensor square(const Tensor& x);
/// 1 / x (integers give float32).
Tensor reciprocal(const Tensor& x);

/// In place (x must already have the result's dtype, e.g. float): returns x.
Tensor exp_(const Tensor& x);
Tensor sqrt_(const Tensor& x);

inline Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace sampan
