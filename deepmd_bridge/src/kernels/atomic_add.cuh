// The scattered-output policy of the se_e2_a CUDA twins (see add_policy.h), and the shared launch
// glue (sampan/cuda_launch.cuh) under the names these kernels use.
#pragma once

#include "sampan/cuda_launch.cuh"

namespace sampan::deepmd::kernels::cuda {

using sampan::kernels::cuda::blocks_for;
using sampan::kernels::cuda::check;
using sampan::kernels::cuda::kThreads;

/// atomicAdd (double needs sm_60; sampan builds sm_80/90).
struct AtomicAdd {
  template <class T> __device__ void operator()(T* target, T value) const { atomicAdd(target, value); }
};

}  // namespace sampan::deepmd::kernels::cuda
