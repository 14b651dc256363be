// CUDA twin of the fused Adam step (optim_kernels.h), defined in optim_kernels.cu, compiled only
// where nvcc exists (SAMPAN_CUDA_KERNELS). Device pointers, contiguous, n elements each.
// Asynchronous on the default stream; errors leave as std::runtime_error.
#pragma once

#include <cstdint>

#include "adam_element.h"

namespace sampan::kernels {

template <class T>
void adam_update_cuda(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq, const AdamCoefficients<T>& c);

}  // namespace sampan::kernels
