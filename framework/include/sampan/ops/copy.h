// sampan: copies and dtype conversion.
#pragma once

#include "sampan/tensor.h"

namespace sampan {

/// Converts to `dtype` (complex to real keeps the real part, as NumPy with a warning).
Tensor cast(const Tensor& x, DType dtype);
/// A contiguous copy.
Tensor contiguous(const Tensor& x);
/// A contiguous copy that stays in the graph.
Tensor clone(const Tensor& x);
/// Writes `src` (broadcast and converted) into `dst` in place; returns dst.
Tensor copy_(const Tensor& dst, const Tensor& src);
/// Sets every element of x to `value` in place (a copy_ from a scalar); returns x.
Tensor fill_(const Tensor& x, double value);
/// Sets every element of x to zero in place; returns x.
Tensor zero_(const Tensor& x);
/// A copy of x on `device` (cpu <-> cuda:0, or within one), differentiable: the gradient goes
/// back to x's device. A strided tensor on the GPU must be made contiguous first.
Tensor to_device(const Tensor& x, Device device);

}  // namespace sampan
