// CUDA twins of the random ops' fills (random_element.h), defined in random_kernels.cu, compiled
// only where nvcc exists (SAMPAN_CUDA_KERNELS). out: device pointer, n contiguous elements;
// element i gets f(random_block(seed, offset, i)). Asynchronous on the default stream; errors
// leave as std::runtime_error.
#pragma once

#include <cstdint>

#include "random_element.h"

namespace sampan::kernels {

template <class T, class F> void random_fill_cuda(uint64_t seed, uint64_t offset, int64_t n, T* out, F f);

}  // namespace sampan::kernels
