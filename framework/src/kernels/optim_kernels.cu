// CUDA twin of the fused Adam step: one thread per element through adam_element (adam_element.h),
// the CPU loop's arithmetic on the host's coefficients. sqrt and division are correctly rounded
// in CUDA as in glibc, and the .cu files build without FMA contraction, so the GPU gives the
// CPU's bits. Never run on a GPU yet (docs/gpu.md).
#include "optim_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class T>
__global__ void adam_update_kernel(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq,
                                   AdamCoefficients<T> c) {
  SAMPAN_GRID_STRIDE_LOOP(i, n) { adam_element(c, param[i], grad[i], exp_avg[i], exp_avg_sq[i]); }
}

}  // namespace

template <class T>
void adam_update_cuda(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq, const AdamCoefficients<T>& c) {
  if (n == 0) return;
  adam_update_kernel<<<cuda::blocks_for(n), cuda::kThreads>>>(n, param, grad, exp_avg, exp_avg_sq, c);
  cuda::check(cudaGetLastError(), "core::adam_update_ (CUDA)");
}

template void adam_update_cuda<float>(int64_t, float*, const float*, float*, float*, const AdamCoefficients<float>&);
template void adam_update_cuda<double>(int64_t, double*, const double*, double*, double*,
                                       const AdamCoefficients<double>&);

}  // namespace sampan::kernels
