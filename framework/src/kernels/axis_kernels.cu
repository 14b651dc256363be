// CUDA twins of core::cumsum and core::argmax / argmin: one thread per line over the bodies of
// axis_line.h, which the CPU loops run too (the CPU's bits: a scan in the same order, an exact
// comparison).
#include "axis_kernels_cuda.h"
#include "axis_line.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class T, class Acc>
__global__ void cumsum_kernel(int64_t lines, int64_t n, int64_t inner, const T* x, T* out, bool reverse) {
  SAMPAN_GRID_STRIDE_LOOP(l, lines) { cumsum_line<T, Acc>(x, out, line_start(l, n, inner), n, inner, reverse); }
}

template <class T>
__global__ void arg_extreme_kernel(int64_t lines, int64_t n, int64_t inner, const T* x, int64_t* out, bool want_max) {
  SAMPAN_GRID_STRIDE_LOOP(l, lines) { out[l] = arg_extreme_line(x + line_start(l, n, inner), n, inner, want_max); }
}

}  // namespace

template <class T, class Acc>
void cumsum_cuda(int64_t outer, int64_t n, int64_t inner, const T* x, T* out, bool reverse) {
  const int64_t lines = outer * inner;
  if (lines == 0 || n == 0) return;
  cumsum_kernel<T, Acc><<<cuda::blocks_for(lines), cuda::kThreads>>>(lines, n, inner, x, out, reverse);
  cuda::check(cudaGetLastError(), "cumsum_cuda (launch)");
}

template <class T>
void arg_extreme_cuda(int64_t outer, int64_t n, int64_t inner, const T* x, int64_t* out, bool want_max) {
  const int64_t lines = outer * inner;
  if (lines == 0) return;
  arg_extreme_kernel<T><<<cuda::blocks_for(lines), cuda::kThreads>>>(lines, n, inner, x, out, want_max);
  cuda::check(cudaGetLastError(), "arg_extreme_cuda (launch)");
}

template void cumsum_cuda<Half, float>(int64_t, int64_t, int64_t, const Half*, Half*, bool);
template void cumsum_cuda<BFloat16, float>(int64_t, int64_t, int64_t, const BFloat16*, BFloat16*, bool);
template void cumsum_cuda<int64_t, int64_t>(int64_t, int64_t, int64_t, const int64_t*, int64_t*, bool);
template void cumsum_cuda<float, double>(int64_t, int64_t, int64_t, const float*, float*, bool);
template void cumsum_cuda<double, double>(int64_t, int64_t, int64_t, const double*, double*, bool);
template void cumsum_cuda<ComplexElement<float>, ComplexElement<double>>(int64_t, int64_t, int64_t,
                                                                         const ComplexElement<float>*,
                                                                         ComplexElement<float>*, bool);
template void cumsum_cuda<ComplexElement<double>, ComplexElement<double>>(int64_t, int64_t, int64_t,
                                                                          const ComplexElement<double>*,
                                                                          ComplexElement<double>*, bool);
template void arg_extreme_cuda<float>(int64_t, int64_t, int64_t, const float*, int64_t*, bool);
template void arg_extreme_cuda<double>(int64_t, int64_t, int64_t, const double*, int64_t*, bool);
template void arg_extreme_cuda<int32_t>(int64_t, int64_t, int64_t, const int32_t*, int64_t*, bool);
template void arg_extreme_cuda<int64_t>(int64_t, int64_t, int64_t, const int64_t*, int64_t*, bool);

}  // namespace sampan::kernels
