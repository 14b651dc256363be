// CUDA twins of index_select_rows and of index_add (index_kernels.h): the row gather of message
// passing (each edge reads its source node's features) and its gradient, the scatter-add. index_add
// folds each output element's contributions in increasing index position through a stable order
// built on the host (rows_by_segment.h), with the fold of segment_fold.h, as the CPU does: no
// atomics, the same bits. The source row of output row r is
// index_select_source_row (index_select_row.h), the same function the CPU loop calls; one
// thread per output byte copies it (a byte copy serves every dtype, as on the CPU). Deterministic
// (no writes collide). Compiled only where nvcc exists; not yet run on a GPU.
#include "cuda_launch.cuh"
#include "graph_kernels_cuda.h"
#include "index_select_row.h"
#include "rows_by_segment.h"
#include "segment_fold.h"

namespace sampan::kernels {

namespace {

__global__ void index_select_bytes_kernel(const unsigned char* x, int64_t n, int64_t m, int64_t row_bytes,
                                          const int64_t* index, int64_t total, unsigned char* out) {
  SAMPAN_GRID_STRIDE_LOOP(b, total) {
    const int64_t r = b / row_bytes, k = b % row_bytes;
    out[b] = x[index_select_source_row(r, n, m, index) * row_bytes + k];
  }
}

template <class T>
__global__ void index_add_kernel(const T* src, int64_t outer, int64_t n, int64_t inner, int64_t m,
                                 const int64_t* offsets, const int64_t* order, T* out) {
  SAMPAN_GRID_STRIDE_LOOP(e, outer * n * inner) {
    const int64_t o = e / (n * inner), t = (e / inner) % n, i = e % inner;
    T acc = out[e];  // x, copied in first
    for (int64_t k = offsets[t]; k < offsets[t + 1]; ++k) fold_segment_sum(acc, src[(o * m + order[k]) * inner + i]);
    out[e] = acc;
  }
}

}  // namespace

template <class T>
void index_add_rows_cuda(const T* x, int64_t outer, int64_t n, int64_t inner, const int64_t* host_index, int64_t m,
                         const T* src, T* out) {
  const char* what = "core::index_add (CUDA)";
  const int64_t total = outer * n * inner;
  if (total == 0) return;
  cuda::check(cudaMemcpy(out, x, sizeof(T) * total, cudaMemcpyDeviceToDevice), what);
  const RowsByBucket g = rows_by_bucket(host_index, m, n);
  cuda::DeviceArray<int64_t> offsets(g.offsets.data(), g.offsets.size(), what), order(g.order.data(), g.order.size(), what);
  index_add_kernel<<<cuda::blocks_for(total), cuda::kThreads>>>(src, outer, n, inner, m, offsets.data, order.data, out);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the index buffers are freed on return
}

#define SAMPAN_INDEX_ADD_CUDA_INSTANTIATE(T)                                                                 \
  template void index_add_rows_cuda<T>(const T*, int64_t, int64_t, int64_t, const int64_t*, int64_t, const T*, T*);
SAMPAN_INDEX_ADD_CUDA_INSTANTIATE(float)
SAMPAN_INDEX_ADD_CUDA_INSTANTIATE(double)
SAMPAN_INDEX_ADD_CUDA_INSTANTIATE(int32_t)
SAMPAN_INDEX_ADD_CUDA_INSTANTIATE(int64_t)
#undef SAMPAN_INDEX_ADD_CUDA_INSTANTIATE

void index_select_rows_cuda(const void* x, int64_t outer, int64_t n, int64_t inner, size_t itemsize,
                            const int64_t* host_index, int64_t m, void* out) {
  const char* what = "core::index_select (CUDA)";
  const int64_t row_bytes = inner * static_cast<int64_t>(itemsize), total = outer * m * row_bytes;
  if (total == 0) return;
  cuda::DeviceArray<int64_t> index(host_index, static_cast<size_t>(m), what);
  index_select_bytes_kernel<<<cuda::blocks_for(total), cuda::kThreads>>>(
      static_cast<const unsigned char*>(x), n, m, row_bytes, index.data, total, static_cast<unsigned char*>(out));
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the index buffer is freed on return
}

}  // namespace sampan::kernels
