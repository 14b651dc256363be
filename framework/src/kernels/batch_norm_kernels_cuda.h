// CUDA twins of the training-mode batch normalization kernels (batch_norm_kernels.h), defined in
// batch_norm_kernels.cu, compiled only where nvcc exists (SAMPAN_CUDA_KERNELS). All pointers are
// device pointers (contiguous); grad_mean and grad_var may be null (zero). Errors leave as
// std::runtime_error.
#pragma once

#include <cstdint>

namespace sampan::kernels {

/// As batch_norm_train_forward: mean, biased var [c] and out [n, c].
template <class T>
void batch_norm_train_forward_cuda(const T* x, int64_t n, int64_t c, const T* weight, const T* bias, T eps, T* out,
                                   T* mean, T* var);

/// As batch_norm_train_backward: grad_x [n, c], grad_weight and grad_bias [c].
template <class T>
void batch_norm_train_backward_cuda(const T* x, const T* grad_out, int64_t n, int64_t c, const T* mean, const T* var,
                                    const T* weight, T eps, const T* grad_mean, const T* grad_var, T* grad_x,
                                    T* grad_weight, T* grad_bias);

}  // namespace sampan::kernels
