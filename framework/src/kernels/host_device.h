// The host+device marker of the framework's kernels with CUDA twins. A function marked
// SAMPAN_HOST_DEVICE is the per-element (per-row, per-edge) body that the CPU loop calls and the
// CUDA kernel (a .cu next to it, compiled only where nvcc exists) calls too: the CPU tests
// exercise exactly the arithmetic a GPU runs; only the launch glue is CUDA-only.
#pragma once

#if defined(__CUDACC__)
#define SAMPAN_HOST_DEVICE __host__ __device__
#else
#define SAMPAN_HOST_DEVICE
#endif
