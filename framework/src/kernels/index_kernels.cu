// CUDA twin of index_select_rows (index_kernels.h): the row gather of message passing (each
// edge reads its source node's features). The source row of output row r is
// index_select_source_row (index_select_row.h), the same function the CPU loop calls; one
// thread per output byte copies it (a byte copy serves every dtype, as on the CPU). Deterministic
// (no writes collide). Compiled only where nvcc exists; not yet run on a GPU.
#include "cuda_launch.cuh"
#include "graph_kernels_cuda.h"
#include "index_select_row.h"

namespace sampan::kernels {

namespace {

__global__ void index_select_bytes_kernel(const unsigned char* x, int64_t n, int64_t m, int64_t row_bytes,
                                          const int64_t* index, int64_t total, unsigned char* out) {
  SAMPAN_GRID_STRIDE_LOOP(b, total) {
    const int64_t r = b / row_bytes, k = b % row_bytes;
    out[b] = x[index_select_source_row(r, n, m, index) * row_bytes + k];
  }
}

}  // namespace

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
