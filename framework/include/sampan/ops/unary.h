// sampan: elementwise unary math.
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

inline Tensor operator-(const Tensor& a) { return neg(a); }

}  // namespace sampan
