// core::sort / topk on the GPU: one stable merge sort (CUB's DeviceMergeSort) of every element's
// (line, position) key under "line first, then the CPU's value order" (less_nan_last of
// axis_line.h, the comparison the CPU's std::stable_sort uses), then one thread per output reading
// the first k keys of its line. A stable sort under a strict weak order ties by position, so the
// permutation is the CPU's exactly, on any GPU, run to run.
#include <cub/device/device_merge_sort.cuh>

#include "axis_line.h"
#include "device_buffer.cuh"
#include "sort_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

namespace cu = sampan::kernels::cuda;

// Key j = line * n + position; its element of x.
struct LineLayout {
  int64_t n, inner;
  __host__ __device__ int64_t line(int64_t j) const { return j / n; }
  __host__ __device__ int64_t position(int64_t j) const { return j % n; }
  __host__ __device__ int64_t offset(int64_t j) const {
    const int64_t l = j / n;
    return (l / inner) * n * inner + (j % n) * inner + l % inner;
  }
};

template <class T> struct LineOrder {
  const T* x;
  LineLayout L;
  bool descending;
  __device__ bool operator()(int64_t a, int64_t b) const {
    const int64_t la = L.line(a), lb = L.line(b);
    if (la != lb) return la < lb;
    const T va = x[L.offset(a)], vb = x[L.offset(b)];
    return descending ? less_nan_last(vb, va) : less_nan_last(va, vb);
  }
};

__global__ void iota_kernel(int64_t* keys, int64_t count) {
  SAMPAN_GRID_STRIDE_LOOP(j, count) keys[j] = j;
}

template <class T>
__global__ void first_k_kernel(const T* x, const int64_t* keys, LineLayout L, int64_t lines, int64_t k, T* out,
                               int64_t* idx) {
  SAMPAN_GRID_STRIDE_LOOP(e, lines * k) {
    const int64_t l = e / k, r = e % k, key = keys[l * L.n + r];
    const int64_t o = l / L.inner, i = l % L.inner, at = o * k * L.inner + r * L.inner + i;
    out[at] = x[L.offset(key)];
    idx[at] = L.position(key);
  }
}

}  // namespace

template <class T>
void order_lines_cuda(const T* x, int64_t outer, int64_t n, int64_t inner, int64_t k, bool descending, T* out,
                      int64_t* idx) {
  const int64_t lines = outer * inner, count = lines * n;
  if (lines == 0 || k == 0) return;
  const char* what = "core::sort (CUB merge sort)";
  DeviceBuffer keys(sizeof(int64_t) * static_cast<size_t>(count), what);
  int64_t* k_ptr = static_cast<int64_t*>(keys.data);
  iota_kernel<<<cu::blocks_for(count), cu::kThreads>>>(k_ptr, count);
  cu::check(cudaGetLastError(), what);
  const LineLayout L{n, inner};
  const LineOrder<T> order{x, L, descending};
  size_t scratch_bytes = 0;
  cu::check(cub::DeviceMergeSort::StableSortKeys(nullptr, scratch_bytes, k_ptr, count, order), what);
  DeviceBuffer scratch(scratch_bytes, what);
  cu::check(cub::DeviceMergeSort::StableSortKeys(scratch.data, scratch_bytes, k_ptr, count, order), what);
  first_k_kernel<T><<<cu::blocks_for(lines * k), cu::kThreads>>>(x, k_ptr, L, lines, k, out, idx);
  cu::check(cudaGetLastError(), what);
  cu::check(cudaDeviceSynchronize(), what);  // the scratch is freed below
}

template void order_lines_cuda<float>(const float*, int64_t, int64_t, int64_t, int64_t, bool, float*, int64_t*);
template void order_lines_cuda<double>(const double*, int64_t, int64_t, int64_t, int64_t, bool, double*, int64_t*);
template void order_lines_cuda<int32_t>(const int32_t*, int64_t, int64_t, int64_t, int64_t, bool, int32_t*, int64_t*);
template void order_lines_cuda<int64_t>(const int64_t*, int64_t, int64_t, int64_t, int64_t, bool, int64_t*, int64_t*);

}  // namespace sampan::kernels
