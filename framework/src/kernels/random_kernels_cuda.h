// CUDA twins of the random ops' fills (random_element.h), defined in random_kernels.cu, compiled
// only where nvcc exists (SAMPAN_CUDA_KERNELS). out: device pointer, n contiguous elements;
// element i gets f(random_block(seed, offset, i)). Asynchronous on the default stream; errors
// leave as std::runtime_error.
#pragma once

#include <cstdint>

#include "random_element.h"

namespace sampan::kernels {

template <class T, class F> void random_fill_cuda(uint64_t seed, uint64_t offset, int64_t n, T* out, F f);

/// perm = 0 .. n-1 ordered by keys (ascending, ties by position: a stable radix sort), the
/// CPU's order of core::randperm. keys: n device keys (PermutationKeyElement); perm: n int64.
void sort_permutation_cuda(const uint64_t* keys, int64_t n, int64_t* perm);

}  // namespace sampan::kernels
