// CUDA twins of the segment reductions (segment_kernels.h), over the same per-element folds
// (segment_fold.h). One thread per output element (segment s, column c) folds the rows of s in
// increasing row order, found through a stable counting sort of the rows by segment done on the
// host (the ids are there already: the op layer checked them). Same operations in the same order
// as the CPU: no atomics, deterministic, the same bits. segment_count is the exception: one thread
// per row adds 1 to its segment's count with an integer atomicAdd (the rows are counted in any
// order, unlike the CPU's increasing order, but integer addition is exact: the same counts).
// Compiled only where nvcc exists; run on an H200 (the CPU's bits; docs/gpu.md).
#include <vector>

#include "sampan/cuda_launch.cuh"
#include "graph_kernels_cuda.h"
#include "rows_by_segment.h"
#include "segment_fold.h"

namespace sampan::kernels {

namespace {

template <class T>
__global__ void segment_sum_kernel(const T* data, const int64_t* offsets, const int64_t* order, int64_t num_segments,
                                   int64_t f, bool mean, T* out) {
  SAMPAN_GRID_STRIDE_LOOP(e, num_segments * f) {
    const int64_t s = e / f, c = e % f;
    T acc = T(0);
    for (int64_t k = offsets[s]; k < offsets[s + 1]; ++k) fold_segment_sum(acc, data[order[k] * f + c]);
    if (mean) finish_segment_mean(acc, offsets[s + 1] - offsets[s]);
    out[e] = acc;
  }
}

template <class T>
__global__ void segment_extreme_kernel(const T* data, const int64_t* offsets, const int64_t* order,
                                       int64_t num_segments, int64_t f, bool want_max, T* out, int64_t* arg) {
  SAMPAN_GRID_STRIDE_LOOP(e, num_segments * f) {
    const int64_t s = e / f, c = e % f;
    T value = T(0);
    int64_t row = -1;  // an empty segment gives 0 and row -1
    for (int64_t k = offsets[s]; k < offsets[s + 1]; ++k) fold_segment_extreme(value, row, data[order[k] * f + c], order[k], want_max);
    out[e] = value;
    arg[e] = row;
  }
}

// The counts are int64 (the op's dtype); CUDA's 64-bit atomicAdd takes unsigned long long, whose
// wrap-around addition has the same bits for counts below 2^63.
static_assert(sizeof(unsigned long long) == sizeof(int64_t), "64-bit atomicAdd on int64 counts");
__global__ void segment_count_kernel(const int64_t* ids, int64_t n, int64_t* counts) {
  SAMPAN_GRID_STRIDE_LOOP(r, n) atomicAdd(reinterpret_cast<unsigned long long*>(counts + ids[r]), 1ULL);
}

}  // namespace

void segment_count_cuda(const int64_t* host_ids, int64_t n, int64_t num_segments, int64_t* counts) {
  const char* what = "core::segment_count (CUDA)";
  if (num_segments == 0) return;
  cuda::check(cudaMemset(counts, 0, sizeof(int64_t) * num_segments), what);
  if (n == 0) return;
  cuda::DeviceArray<int64_t> ids(host_ids, static_cast<size_t>(n), what);
  segment_count_kernel<<<cuda::blocks_for(n), cuda::kThreads>>>(ids.data, n, counts);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the ids buffer is freed on return
}

template <class T>
void segment_sum_rows_cuda(const T* data, const int64_t* host_ids, int64_t n, int64_t f, int64_t num_segments,
                           bool mean, T* out) {
  const char* what = "core::segment_sum (CUDA)";
  if (num_segments * f == 0) return;
  const RowsByBucket g = rows_by_bucket(host_ids, n, num_segments);
  cuda::DeviceArray<int64_t> offsets(g.offsets.data(), g.offsets.size(), what), order(g.order.data(), g.order.size(), what);
  segment_sum_kernel<<<cuda::blocks_for(num_segments * f), cuda::kThreads>>>(data, offsets.data, order.data,
                                                                            num_segments, f, mean, out);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the index buffers are freed on return
}

template <class T>
void segment_extreme_rows_cuda(const T* data, const int64_t* host_ids, int64_t n, int64_t f, int64_t num_segments,
                               bool want_max, T* out, int64_t* arg) {
  const char* what = "core::segment_max/min (CUDA)";
  if (num_segments * f == 0) return;
  const RowsByBucket g = rows_by_bucket(host_ids, n, num_segments);
  cuda::DeviceArray<int64_t> offsets(g.offsets.data(), g.offsets.size(), what), order(g.order.data(), g.order.size(), what);
  segment_extreme_kernel<<<cuda::blocks_for(num_segments * f), cuda::kThreads>>>(data, offsets.data, order.data,
                                                                                num_segments, f, want_max, out, arg);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);
}

void copy_to_host_cuda(void* host, const void* device, size_t nbytes) {
  cuda::check(cudaMemcpy(host, device, nbytes, cudaMemcpyDeviceToHost), "sampan::kernels::copy_to_host_cuda");
}

#define SAMPAN_SEGMENT_CUDA_INSTANTIATE(T)                                                                   \
  template void segment_sum_rows_cuda<T>(const T*, const int64_t*, int64_t, int64_t, int64_t, bool, T*); \
  template void segment_extreme_rows_cuda<T>(const T*, const int64_t*, int64_t, int64_t, int64_t, bool, T*, int64_t*);
SAMPAN_SEGMENT_CUDA_INSTANTIATE(float)
SAMPAN_SEGMENT_CUDA_INSTANTIATE(double)
SAMPAN_SEGMENT_CUDA_INSTANTIATE(int32_t)
SAMPAN_SEGMENT_CUDA_INSTANTIATE(int64_t)
#undef SAMPAN_SEGMENT_CUDA_INSTANTIATE

}  // namespace sampan::kernels
