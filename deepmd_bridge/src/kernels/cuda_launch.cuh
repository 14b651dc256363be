// Launch glue shared by the se_e2_a CUDA twins (env_mat_kernels.cu, prod_force_virial_kernels.cu):
// error checks, grid sizes for grid-stride loops, and the atomic add policy of host_device.h.
// The .cu files know nothing of sampan: errors leave as std::runtime_error, which the op layer
// turns into sampan::RuntimeError.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sampan::deepmd::kernels::cuda {

constexpr int kThreads = 256;

inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}

/// Blocks for a grid-stride loop over n items (capped: each thread then takes several items).
inline int blocks_for(int64_t n) { return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535)); }

/// The scattered-output policy of the GPU: atomicAdd (double needs sm_60; sampan builds sm_80/90).
struct AtomicAdd {
  template <class T> __device__ void operator()(T* target, T value) const { atomicAdd(target, value); }
};

}  // namespace sampan::deepmd::kernels::cuda

/// for (int64_t k = first; k < n; k += stride) over the whole grid.
#define SAMPAN_GRID_STRIDE_LOOP(k, n)                                                        \
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < (n); \
       k += static_cast<int64_t>(blockDim.x) * gridDim.x)
