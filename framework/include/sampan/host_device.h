// The host+device marker of a kernel's per-element body (author header: no CUDA include).
//
// A function marked SAMPAN_HOST_DEVICE is the per-element (per-row, per-edge, per-slot) body that
// the CPU loop calls and the CUDA kernel (a .cu file beside it, compiled only where nvcc exists)
// calls too, so the CPU tests run exactly the arithmetic a GPU runs; only the launch glue
// (sampan/cuda_launch.cuh) is CUDA-only. Every sampan module and a user's op library use this one.
#pragma once

#if defined(__CUDACC__)
#define SAMPAN_HOST_DEVICE __host__ __device__
#else
#define SAMPAN_HOST_DEVICE
#endif
