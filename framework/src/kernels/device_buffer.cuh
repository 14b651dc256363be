// DeviceBuffer: raw device scratch for a CUB call (cudaMalloc, freed at scope end), for the .cu
// files whose launchers synchronize before returning (sort_kernels.cu, random_kernels.cu).
#pragma once

#include <cstddef>

#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

struct DeviceBuffer {
  void* data = nullptr;
  DeviceBuffer(size_t bytes, const char* what) {
    if (bytes) cuda::check(cudaMalloc(&data, bytes), what);
  }
  ~DeviceBuffer() { cudaFree(data); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace sampan::kernels
