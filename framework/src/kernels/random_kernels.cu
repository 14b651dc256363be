// CUDA twins of the random ops: one thread per element computes the element's Philox block
// (philox.h) and applies the op's functor (random_element.h), as the CPU loops do. Integer
// arithmetic and exact conversions: rand, randint and dropout_mask give the CPU's bits; randn's
// log, sqrt and cos round as CUDA's libm does (within its documented ulps of glibc's).
// Never run on a GPU yet (docs/gpu.md).
#include <cub/cub.cuh>

#include "device_buffer.cuh"
#include "random_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class T, class F> __global__ void random_fill_kernel(uint64_t seed, uint64_t offset, int64_t n, T* out, F f) {
  SAMPAN_GRID_STRIDE_LOOP(i, n) { out[i] = f(random_block(seed, offset, static_cast<uint64_t>(i))); }
}

__global__ void positions_kernel(int64_t* p, int64_t n) {
  SAMPAN_GRID_STRIDE_LOOP(i, n) { p[i] = i; }
}

}  // namespace

void sort_permutation_cuda(const uint64_t* keys, int64_t n, int64_t* perm) {
  if (n == 0) return;
  const char* what = "randperm (CUDA)";
  DeviceBuffer sorted_keys(sizeof(uint64_t) * static_cast<size_t>(n), what), positions(sizeof(int64_t) * static_cast<size_t>(n), what);
  positions_kernel<<<cuda::blocks_for(n), cuda::kThreads>>>(static_cast<int64_t*>(positions.data), n);
  cuda::check(cudaGetLastError(), what);
  size_t bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, static_cast<uint64_t*>(sorted_keys.data),
                                              static_cast<const int64_t*>(positions.data), perm, n),
              what);
  DeviceBuffer temp(bytes, what);
  cuda::check(cub::DeviceRadixSort::SortPairs(temp.data, bytes, keys, static_cast<uint64_t*>(sorted_keys.data),
                                              static_cast<const int64_t*>(positions.data), perm, n),
              what);
  cuda::check(cudaDeviceSynchronize(), what);  // the scratch is freed below
}

template <class T, class F> void random_fill_cuda(uint64_t seed, uint64_t offset, int64_t n, T* out, F f) {
  if (n == 0) return;
  random_fill_kernel<<<cuda::blocks_for(n), cuda::kThreads>>>(seed, offset, n, out, f);
  cuda::check(cudaGetLastError(), "random op (CUDA)");
}

#define SAMPAN_RANDOM_FILL(T, F) template void random_fill_cuda<T, F>(uint64_t, uint64_t, int64_t, T*, F);
SAMPAN_RANDOM_FILL(uint64_t, PermutationKeyElement)
SAMPAN_RANDOM_FILL(float, UniformElement<float>)
SAMPAN_RANDOM_FILL(double, UniformElement<double>)
SAMPAN_RANDOM_FILL(float, DropoutElement<float>)
SAMPAN_RANDOM_FILL(double, DropoutElement<double>)
SAMPAN_RANDOM_FILL(float, NormalElement<float>)
SAMPAN_RANDOM_FILL(double, NormalElement<double>)
SAMPAN_RANDOM_FILL(int32_t, RandintElement<int32_t>)
SAMPAN_RANDOM_FILL(int64_t, RandintElement<int64_t>)
SAMPAN_RANDOM_FILL(float, RandintElement<float>)
SAMPAN_RANDOM_FILL(double, RandintElement<double>)
#undef SAMPAN_RANDOM_FILL

}  // namespace sampan::kernels
