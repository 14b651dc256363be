// sampan: elementwise binary arithmetic with NumPy broadcasting and type promotion.
#pragma once

#include "sampan/tensor.h"

namespace sampan {

Tensor add(const Tensor& x, const Tensor& y);
Tensor sub(const Tensor& x, const Tensor& y);
Tensor mul(const Tensor& x, const Tensor& y);
/// True division: integer inputs give floating results.
Tensor div(const Tensor& x, const Tensor& y);
/// In place: x += y (y broadcast to x), x *= y ...
Tensor add_(const Tensor& x, const Tensor& y);
Tensor sub_(const Tensor& x, const Tensor& y);
Tensor mul_(const Tensor& x, const Tensor& y);
Tensor div_(const Tensor& x, const Tensor& y);

/// A Python-like scalar next to a tensor: keeps the tensor's dtype when it can hold the value
/// kind (a float scalar with an integer tensor gives float32), as PyTorch and NumPy 2 do.
Tensor scalar_like(double value, const Tensor& like);

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, double b) { return add(a, scalar_like(b, a)); }
inline Tensor operator-(const Tensor& a, double b) { return sub(a, scalar_like(b, a)); }
inline Tensor operator*(const Tensor& a, double b) { return mul(a, scalar_like(b, a)); }
inline Tensor operator/(const Tensor& a, double b) { return div(a, scalar_like(b, a)); }
inline Tensor operator+(double a, const Tensor& b) { return add(scalar_like(a, b), b); }
inline Tensor operator-(double a, const Tensor& b) { return sub(scalar_like(a, b), b); }
inline Tensor operator*(double a, const Tensor& b) { return mul(scalar_like(a, b), b); }
inline Tensor operator/(double a, const Tensor& b) { return div(scalar_like(a, b), b); }

}  // namespace sampan
