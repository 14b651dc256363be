// each(n, what, body): body(k) for every k < n on the GPU, one thread each (a grid-stride loop),
// the launcher of the deepmd twins whose per-element bodies are host/device functions
// (layer_kernels.cu, tabulate_kernels.cu; their files compile with --extended-lambda). The
// launch error leaves as std::runtime_error naming `what`.
#pragma once

#include <cstdint>

#include "sampan/cuda_launch.cuh"

namespace sampan::deepmd::kernels {

template <class Body> __global__ void each_kernel(int64_t n, Body body) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { body(k); }
}

template <class Body> void each(int64_t n, const char* what, Body body) {
  if (n <= 0) return;
  each_kernel<<<::sampan::kernels::cuda::blocks_for(n), ::sampan::kernels::cuda::kThreads>>>(n, body);
  ::sampan::kernels::cuda::check(cudaGetLastError(), what);
}

}  // namespace sampan::deepmd::kernels
