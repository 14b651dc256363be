// CUDA twins of the gathers and scatters along an axis (index_kernels.h): index_select_rows (the
// row gather of message passing: each edge reads its source node's features), index_add (its
// gradient), gather and scatter_add (the elementwise-index pair), index_copy. The per-element
// bodies are the functions the CPU loops call: index_select_source_row (index_select_row.h),
// axis_element_offset and friends (gather_scatter_element.h), the folds of segment_fold.h.
// Gathers (index_select, gather) copy bytes, one thread per output byte (a byte copy serves every
// dtype, as on the CPU). Scatters (index_add, scatter_add, index_copy) give one thread per output
// element, which folds the contributions that land on it in increasing index position, through a
// stable order built on the host (rows_by_segment.h): the CPU's order, no atomics, the same bits
// (for index_copy: the last duplicate wins, as on the CPU). No two threads write the same place:
// deterministic. Compiled only where nvcc exists; checked against the CPU on an H200 (README).
#include <cstdint>

#include "sampan/cuda_launch.cuh"
#include "gather_scatter_element.h"
#include "graph_kernels_cuda.h"
#include "index_select_row.h"
#include "rows_by_segment.h"
#include "segment_fold.h"

namespace sampan::kernels {

namespace {

// index_select copies whole rows in units W (16, 8, 4, 2 or 1 bytes: the widest that divides the
// row and the alignment of both pointers), one thread per unit: a row of 256 floats is 64 loads
// of 16 bytes instead of 1,024 of one byte.
template <class W>
__global__ void index_select_units_kernel(const W* x, int64_t n, int64_t m, int64_t row_units, const int64_t* index,
                                          int64_t total, W* out) {
  SAMPAN_GRID_STRIDE_LOOP(u, total) {
    const int64_t r = u / row_units, k = u % row_units;
    out[u] = x[index_select_source_row(r, n, m, index) * row_units + k];
  }
}

template <class W>
void launch_index_select(const void* x, int64_t n, int64_t m, int64_t row_bytes, const int64_t* index, int64_t rows,
                         void* out) {
  const int64_t row_units = row_bytes / static_cast<int64_t>(sizeof(W)), total = rows * row_units;
  index_select_units_kernel<W><<<cuda::blocks_for(total), cuda::kThreads>>>(static_cast<const W*>(x), n, m, row_units,
                                                                            index, total, static_cast<W*>(out));
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

__global__ void gather_bytes_kernel(const unsigned char* x, int64_t itemsize, int64_t m, int64_t b,
                                    const int64_t* off_a, const int64_t* off_b, const int64_t* index,
                                    int64_t axis_stride, int64_t total, unsigned char* out) {
  SAMPAN_GRID_STRIDE_LOOP(q, total) {
    const int64_t e = q / itemsize, k = q % itemsize;
    out[q] = x[axis_element_target(e, m, b, off_a, off_b, index, axis_stride) * itemsize + k];
  }
}

template <class T>
__global__ void scatter_add_kernel(const T* src, const int64_t* offsets, const int64_t* order, int64_t total, T* out) {
  SAMPAN_GRID_STRIDE_LOOP(t, total) out[t] = scatter_add_element(out[t], src, offsets, order, t);
}

__global__ void index_copy_bytes_kernel(const unsigned char* x, const unsigned char* src, int64_t n, int64_t m,
                                        int64_t row_bytes, const int64_t* offsets, const int64_t* order, int64_t total,
                                        unsigned char* out) {
  SAMPAN_GRID_STRIDE_LOOP(q, total) out[q] = index_copy_byte(x, src, n, m, row_bytes, offsets, order, q);
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
  const auto fits = [&](int64_t unit) {
    return row_bytes % unit == 0 && reinterpret_cast<std::uintptr_t>(x) % unit == 0 &&
           reinterpret_cast<std::uintptr_t>(out) % unit == 0;
  };
  const int64_t rows = outer * m;
  if (fits(16)) launch_index_select<uint4>(x, n, m, row_bytes, index.data, rows, out);
  else if (fits(8)) launch_index_select<uint2>(x, n, m, row_bytes, index.data, rows, out);
  else if (fits(4)) launch_index_select<unsigned int>(x, n, m, row_bytes, index.data, rows, out);
  else if (fits(2)) launch_index_select<unsigned short>(x, n, m, row_bytes, index.data, rows, out);
  else launch_index_select<unsigned char>(x, n, m, row_bytes, index.data, rows, out);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the index buffer is freed on return
}

void gather_axis_cuda(const void* x, size_t itemsize, int64_t a, int64_t m, int64_t b, const int64_t* host_off_a,
                      const int64_t* host_off_b, const int64_t* host_index, int64_t axis_stride, void* out) {
  const char* what = "core::gather (CUDA)";
  const int64_t count = a * m * b, total = count * static_cast<int64_t>(itemsize);
  if (total == 0) return;
  cuda::DeviceArray<int64_t> off_a(host_off_a, static_cast<size_t>(a), what), off_b(host_off_b, static_cast<size_t>(b), what),
      index(host_index, static_cast<size_t>(count), what);
  gather_bytes_kernel<<<cuda::blocks_for(total), cuda::kThreads>>>(static_cast<const unsigned char*>(x),
                                                                   static_cast<int64_t>(itemsize), m, b, off_a.data, off_b.data,
                                                                   index.data, axis_stride, total, static_cast<unsigned char*>(out));
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);  // the index buffers are freed on return
}

template <class T>
void scatter_add_axis_cuda(const T* x, int64_t out_numel, int64_t a, int64_t m, int64_t b, const int64_t* host_off_a,
                           const int64_t* host_off_b, const int64_t* host_index, int64_t axis_stride, const T* src, T* out) {
  const char* what = "core::scatter_add (CUDA)";
  if (out_numel == 0) return;
  cuda::check(cudaMemcpy(out, x, sizeof(T) * out_numel, cudaMemcpyDeviceToDevice), what);
  if (a * m * b == 0) return;
  const RowsByBucket g = scatter_add_plan(a, m, b, host_off_a, host_off_b, host_index, axis_stride, out_numel);
  cuda::DeviceArray<int64_t> offsets(g.offsets.data(), g.offsets.size(), what), order(g.order.data(), g.order.size(), what);
  scatter_add_kernel<<<cuda::blocks_for(out_numel), cuda::kThreads>>>(src, offsets.data, order.data, out_numel, out);
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);
}

#define SAMPAN_SCATTER_ADD_CUDA_INSTANTIATE(T)                                                                     \
  template void scatter_add_axis_cuda<T>(const T*, int64_t, int64_t, int64_t, int64_t, const int64_t*, const int64_t*, \
                                         const int64_t*, int64_t, const T*, T*);
SAMPAN_SCATTER_ADD_CUDA_INSTANTIATE(float)
SAMPAN_SCATTER_ADD_CUDA_INSTANTIATE(double)
SAMPAN_SCATTER_ADD_CUDA_INSTANTIATE(int32_t)
SAMPAN_SCATTER_ADD_CUDA_INSTANTIATE(int64_t)
#undef SAMPAN_SCATTER_ADD_CUDA_INSTANTIATE

void index_copy_rows_cuda(const void* x, int64_t outer, int64_t n, int64_t inner, size_t itemsize,
                          const int64_t* host_index, int64_t m, const void* src, void* out) {
  const char* what = "core::index_copy (CUDA)";
  const int64_t row_bytes = inner * static_cast<int64_t>(itemsize), total = outer * n * row_bytes;
  if (total == 0) return;
  const RowsByBucket g = rows_by_bucket(host_index, m, n);
  cuda::DeviceArray<int64_t> offsets(g.offsets.data(), g.offsets.size(), what), order(g.order.data(), g.order.size(), what);
  index_copy_bytes_kernel<<<cuda::blocks_for(total), cuda::kThreads>>>(
      static_cast<const unsigned char*>(x), static_cast<const unsigned char*>(src), n, m, row_bytes, offsets.data,
      order.data, total, static_cast<unsigned char*>(out));
  cuda::check(cudaGetLastError(), what);
  cuda::check(cudaDeviceSynchronize(), what);
}

}  // namespace sampan::kernels
