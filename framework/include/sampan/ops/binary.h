// sampan: elementwise binary math with NumPy broadcasting and type promotion, and where().
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

/// x ** y. Integer powers are exact (wrapping on overflow; a negative integer exponent is a
/// ValueError); 0 ** 0 = 1. The gradient w.r.t. y is 0 where x == 0 and y >= 0 (PyTorch).
Tensor pow(const Tensor& x, const Tensor& y);
/// x ** y with a Python-like scalar exponent (see scalar_like).
Tensor pow(const Tensor& x, double y);
/// Elementwise larger / smaller (real dtypes; NaN wins). The gradient goes to the larger
/// (smaller) input and is split equally between x and y where they tie, as PyTorch does.
Tensor maximum(const Tensor& x, const Tensor& y);
Tensor minimum(const Tensor& x, const Tensor& y);
/// The angle of the point (x, y) (note the order: y first, as std::atan2); integers give float32.
Tensor atan2(const Tensor& y, const Tensor& x);
/// x - y * floor(x / y): the sign of y, as Python's % (real dtypes). Integer division by zero
/// is a ValueError.
Tensor remainder(const Tensor& x, const Tensor& y);
/// floor(x / y), as Python's // (real dtypes; integers stay integers). Zero gradient.
Tensor floor_divide(const Tensor& x, const Tensor& y);
/// x where cond (a bool tensor) is true, else y; all three broadcast together, x and y are
/// promoted to a common dtype. The gradient flows to x where cond holds and to y elsewhere.
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y);

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
