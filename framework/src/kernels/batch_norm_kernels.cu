// CUDA twin of the training-mode batch normalization kernels (batch_norm_kernels.h), over the
// same per-column and per-element functions (batch_norm_element.h). One thread per column folds
// its rows in order into a double accumulator (as the CPU does: the same statistics bits), then
// one thread per element writes the output. Deterministic, no atomics. Compiled only where nvcc
// exists; run on an H200 (the CPU's bits; docs/gpu.md).
#include "batch_norm_element.h"
#include "batch_norm_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class T>
__global__ void batch_norm_stats_kernel(const T* x, int64_t n, int64_t c, T eps, T* mean, T* var, T* invstd) {
  SAMPAN_GRID_STRIDE_LOOP(j, c) {
    double a = 0.0;
    for (int64_t r = 0; r < n; ++r) a += static_cast<double>(x[r * c + j]);
    const T m = batch_norm_column_mean<T>(a, n);
    a = 0.0;
    for (int64_t r = 0; r < n; ++r) {
      const T d = x[r * c + j] - m;
      a += static_cast<double>(d * d);
    }
    mean[j] = m;
    var[j] = batch_norm_column_mean<T>(a, n);
    invstd[j] = batch_norm_invstd(var[j], eps);
  }
}

template <class T>
__global__ void batch_norm_normalize_kernel(const T* x, int64_t n, int64_t c, const T* mean, const T* invstd,
                                            const T* weight, const T* bias, T* out) {
  SAMPAN_GRID_STRIDE_LOOP(k, n * c) {
    const int64_t j = k % c;
    out[k] = batch_norm_normalize(x[k], mean[j], invstd[j], weight[j], bias[j]);
  }
}

template <class T>
__global__ void batch_norm_backward_columns_kernel(const T* x, const T* grad_out, int64_t n, int64_t c, const T* mean,
                                                   const T* var, const T* weight, T eps, const T* grad_mean,
                                                   const T* grad_var, T* coef, T* grad_weight, T* grad_bias) {
  SAMPAN_GRID_STRIDE_LOOP(j, c) {
    double s1 = 0.0, s2 = 0.0;
    for (int64_t r = 0; r < n; ++r) {
      const T g = grad_out[r * c + j];
      s1 += static_cast<double>(g);
      s2 += static_cast<double>(g * (x[r * c + j] - mean[j]));
    }
    const BatchNormBackwardColumn<T> k = batch_norm_backward_column<T>(
        s1, s2, n, var[j], eps, weight[j], grad_mean ? grad_mean[j] : T(0), grad_var ? grad_var[j] : T(0));
    grad_weight[j] = k.grad_weight;
    grad_bias[j] = k.grad_bias;
    coef[j] = k.kg;
    coef[c + j] = k.kd;
    coef[2 * c + j] = k.k0;
  }
}

template <class T>
__global__ void batch_norm_backward_elements_kernel(const T* x, const T* grad_out, int64_t n, int64_t c, const T* mean,
                                                    const T* coef, T* grad_x) {
  SAMPAN_GRID_STRIDE_LOOP(k, n * c) {
    const int64_t j = k % c;
    grad_x[k] = batch_norm_backward_element(grad_out[k], x[k], mean[j], coef[j], coef[c + j], coef[2 * c + j]);
  }
}

/// Device scratch of `count` elements, freed by the destructor.
template <class T> struct DeviceScratch {
  T* data = nullptr;
  DeviceScratch(size_t count, const char* what) {
    if (count) cuda::check(cudaMalloc(&data, sizeof(T) * count), what);
  }
  ~DeviceScratch() { cudaFree(data); }
  DeviceScratch(const DeviceScratch&) = delete;
  DeviceScratch& operator=(const DeviceScratch&) = delete;
};

}  // namespace

template <class T>
void batch_norm_train_forward_cuda(const T* x, int64_t n, int64_t c, const T* weight, const T* bias, T eps, T* out,
                                   T* mean, T* var) {
  const char* what = "core::batch_norm_train (CUDA)";
  if (c == 0) return;
  DeviceScratch<T> invstd(static_cast<size_t>(c), what);
  batch_norm_stats_kernel<<<cuda::blocks_for(c), cuda::kThreads>>>(x, n, c, eps, mean, var, invstd.data);
  cuda::check(cudaGetLastError(), what);
  if (n * c > 0) {
    batch_norm_normalize_kernel<<<cuda::blocks_for(n * c), cuda::kThreads>>>(x, n, c, mean, invstd.data, weight, bias, out);
    cuda::check(cudaGetLastError(), what);
  }
  cuda::check(cudaDeviceSynchronize(), what);  // the scratch is freed on return
}

template <class T>
void batch_norm_train_backward_cuda(const T* x, const T* grad_out, int64_t n, int64_t c, const T* mean, const T* var,
                                    const T* weight, T eps, const T* grad_mean, const T* grad_var, T* grad_x,
                                    T* grad_weight, T* grad_bias) {
  const char* what = "core::batch_norm_train_backward (CUDA)";
  if (c == 0) return;
  DeviceScratch<T> coef(static_cast<size_t>(3 * c), what);
  batch_norm_backward_columns_kernel<<<cuda::blocks_for(c), cuda::kThreads>>>(
      x, grad_out, n, c, mean, var, weight, eps, grad_mean, grad_var, coef.data, grad_weight, grad_bias);
  cuda::check(cudaGetLastError(), what);
  if (n * c > 0) {
    batch_norm_backward_elements_kernel<<<cuda::blocks_for(n * c), cuda::kThreads>>>(x, grad_out, n, c, mean, coef.data, grad_x);
    cuda::check(cudaGetLastError(), what);
  }
  cuda::check(cudaDeviceSynchronize(), what);
}

#define SAMPAN_BATCH_NORM_CUDA_INSTANTIATE(T)                                                                      \
  template void batch_norm_train_forward_cuda<T>(const T*, int64_t, int64_t, const T*, const T*, T, T*, T*, T*); \
  template void batch_norm_train_backward_cuda<T>(const T*, const T*, int64_t, int64_t, const T*, const T*,      \
                                                  const T*, T, const T*, const T*, T*, T*, T*);
SAMPAN_BATCH_NORM_CUDA_INSTANTIATE(float)
SAMPAN_BATCH_NORM_CUDA_INSTANTIATE(double)
#undef SAMPAN_BATCH_NORM_CUDA_INSTANTIATE

}  // namespace sampan::kernels
