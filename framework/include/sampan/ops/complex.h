// sampan: complex numbers: parts, angle, and building complex tensors from real ones.
// (real() and conj() are in unary.h; abs() of a complex tensor, its modulus, too.)
#pragma once

#include "sampan/tensor.h"

namespace sampan {

/// Imaginary part, a real tensor (complex64 -> float32); zeros of x's dtype for real x (NumPy).
Tensor imag(const Tensor& x);
/// The argument of each element in (-pi, pi]: atan2(imag, real) for complex x; for real x,
/// 0 where x >= 0 and pi where x < 0 (NumPy, PyTorch). Integers give float32.
Tensor angle(const Tensor& x);
/// abs * (cos(angle) + i sin(angle)), with broadcasting; real inputs (promoted, integers to
/// float32), complex result (float64 -> complex128).
Tensor polar(const Tensor& abs, const Tensor& angle);
/// real + i imag, with broadcasting; real inputs, complex result.
Tensor complex(const Tensor& real, const Tensor& imag);

}  // namespace sampan
