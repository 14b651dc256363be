// CUDA twin of gather_add_scatter_rows (gather_scatter_kernels.h): one thread per output element
// (segment s, column c) folds the messages x[gather[e], c] + edge[e, c] of the edges of s in
// increasing edge order, through a stable order of the edges by segment built on the host
// (rows_by_segment.h), with the per-element functions of segment_fold.h: the CPU's operations in
// the CPU's order, no atomics, the same bits. Compiled only where nvcc exists; run on an H200
// (the CPU's bits; docs/gpu.md).
#include "sampan/cuda_launch.cuh"
#include "graph_kernels_cuda.h"
#include "rows_by_segment.h"
#include "segment_fold.h"

namespace sampan::kernels {

namespace {

template <class T>
__global__ void gather_add_scatter_kernel(const T* x, const int64_t* gather, const T* edge, const int64_t* offsets,
                                          const int64_t* order, int64_t num_segments, int64_t f, T* out) {
  SAMPAN_GRID_STRIDE_LOOP(k, num_segments * f) {
    const int64_t s = k / f, c = k % f;
    T acc = T(0);
    for (int64_t j = offsets[s]; j < offsets[s + 1]; ++j) {
      const int64_t e = order[j];
      const T v = x[gather[e] * f + c];
      fold_segment_sum(acc, edge ? gather_add_message(v, edge[e * f + c]) : v);
    }
    out[k] = acc;
  }
}

}  // namespace

template <class T>
void gather_add_scatter_rows_cuda(const T* x, const int64_t* host_gather, const T* edge, const int64_t* host_scatter,
                                  int64_t num_edges, int64_t f, int64_t num_segments, T* out) {
  const char* what = "core::gather_add_scatter (CUDA)";
  if (num_segments * f == 0) return;
  const RowsByBucket g = rows_by_bucket(host_scatter, num_edges, num_segments);
  cuda::DeviceArray<int64_t> offsets(g.offsets.data(), g.offsets.size(), what), order(g.order.data(), g.order.size(), what);
  cuda::DeviceArray<int64_t> gather(host_gather, static_cast<size_t>(num_edges), what);
  gather_add_scatter_kernel<<<cuda::blocks_for(num_segments * f), cuda::kThreads>>>(
      x, gather.data, edge, offsets.data, order.data, num_segments, f, out);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the index buffers are freed on return
}

#define SAMPAN_GATHER_ADD_SCATTER_CUDA_INSTANTIATE(T) \
  template void gather_add_scatter_rows_cuda<T>(const T*, const int64_t*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*);
SAMPAN_GATHER_ADD_SCATTER_CUDA_INSTANTIATE(float)
SAMPAN_GATHER_ADD_SCATTER_CUDA_INSTANTIATE(double)
SAMPAN_GATHER_ADD_SCATTER_CUDA_INSTANTIATE(int32_t)
SAMPAN_GATHER_ADD_SCATTER_CUDA_INSTANTIATE(int64_t)
#undef SAMPAN_GATHER_ADD_SCATTER_CUDA_INSTANTIATE

}  // namespace sampan::kernels
