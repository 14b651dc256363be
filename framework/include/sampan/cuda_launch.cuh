// Launch glue of CUDA kernels (author header, for .cu files only): error checks, grid sizes for
// grid-stride loops, device buffers. The .cu files know nothing of sampan's Tensor: errors leave
// as std::runtime_error, which the op layer turns into sampan::RuntimeError.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace sampan::kernels::cuda {

constexpr int kThreads = 256;

/// Throws std::runtime_error naming `what` and CUDA's own message when `status` is an error.
inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(status));
}

/// Blocks for a grid-stride loop over n items (capped: each thread then takes several).
inline int blocks_for(int64_t n) { return static_cast<int>(std::min<int64_t>((n + kThreads - 1) / kThreads, 65535)); }

/// A device copy of a host array, freed by the destructor.
template <class T> struct DeviceArray {
  T* data = nullptr;
  DeviceArray(const T* host, size_t count, const char* what) {
    if (count == 0) return;
    check(cudaMalloc(&data, sizeof(T) * count), what);
    const cudaError_t copied = cudaMemcpy(data, host, sizeof(T) * count, cudaMemcpyHostToDevice);
    if (copied != cudaSuccess) {
      cudaFree(data);
      data = nullptr;
      check(copied, what);
    }
  }
  ~DeviceArray() { cudaFree(data); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

}  // namespace sampan::kernels::cuda

/// for (int64_t k = first; k < n; k += stride) over the whole grid.
#define SAMPAN_GRID_STRIDE_LOOP(k, n)                                                        \
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < (n); \
       k += static_cast<int64_t>(blockDim.x) * gridDim.x)
