// sampan: comparisons and logical ops. Results are bool tensors without gradients.
#pragma once

#include "sampan/tensor.h"

namespace sampan {

/// x == y, x != y with broadcasting; both are promoted to a common dtype first (any dtypes).
Tensor eq(const Tensor& x, const Tensor& y);
Tensor ne(const Tensor& x, const Tensor& y);
/// Orderings with broadcasting and promotion; complex inputs are a TypeError. NaN compares false.
Tensor lt(const Tensor& x, const Tensor& y);
Tensor le(const Tensor& x, const Tensor& y);
Tensor gt(const Tensor& x, const Tensor& y);
Tensor ge(const Tensor& x, const Tensor& y);
/// Logical ops over any dtypes read as truth values (nonzero is true), with broadcasting.
Tensor logical_and(const Tensor& x, const Tensor& y);
Tensor logical_or(const Tensor& x, const Tensor& y);
Tensor logical_xor(const Tensor& x, const Tensor& y);
Tensor logical_not(const Tensor& x);
/// NaN test (false for integers; complex: either part NaN).
Tensor isnan(const Tensor& x);
/// Neither inf nor NaN (true for integers; complex: both parts finite).
Tensor isfinite(const Tensor& x);

}  // namespace sampan
