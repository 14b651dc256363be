// sampan ops (internal): the real or imaginary parts of a complex tensor as a real view of the same
// storage (std::complex's layout: re, im), for the kernels that read or write one part on any
// device by a copy (core::real, imag and complex's CUDA twins).
#pragma once

#include "sampan/dtype.h"
#include "sampan/tensor.h"

namespace sampan::detail {

/// z's part 0 (real) or 1 (imaginary): a float32 / float64 view with z's shape, strides doubled.
inline Tensor complex_part(const Tensor& z, int part) {
  Shape strides = z.strides();
  for (auto& s : strides) s *= 2;
  return Tensor(z.storage(), z.shape(), strides, 2 * z.offset() + part, real_dtype(z.dtype()));
}

}  // namespace sampan::detail
