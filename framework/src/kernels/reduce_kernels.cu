// CUDA twin of core::sum: one thread per output folding its elements in the CPU's order
// (reduce_fold.h), or for one large full sum kSumParts threads each folding a contiguous part and
// one thread adding the parts in order. Deterministic: no atomics, a fixed partition.
#include "reduce_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class T, class Acc> __global__ void sum_outputs_kernel(ReduceLayout l, const T* x, T* out) {
  SAMPAN_GRID_STRIDE_LOOP(o, l.nout) { out[o] = narrow<T>(sum_fold<Acc>(l, x, o, 0, l.nred, Acc{})); }
}

template <class T, class Acc> __global__ void sum_parts_kernel(ReduceLayout l, const T* x, Acc* parts, int64_t nparts) {
  SAMPAN_GRID_STRIDE_LOOP(p, nparts) { parts[p] = sum_part<Acc>(l, x, p, nparts); }
}

template <class T, class Acc> __global__ void add_parts_kernel(const Acc* parts, int64_t nparts, T* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  Acc a{};
  for (int64_t p = 0; p < nparts; ++p) a = a + parts[p];
  out[0] = narrow<T>(a);
}

}  // namespace

template <class T, class Acc>
void sum_cuda(const ReduceLayout& l, const T* x, T* out, Acc* parts, int64_t nparts) {
  if (l.nout == 0) return;
  if (nparts > 0) {
    sum_parts_kernel<T, Acc><<<cuda::blocks_for(nparts), cuda::kThreads>>>(l, x, parts, nparts);
    cuda::check(cudaGetLastError(), "sum_cuda parts (launch)");
    add_parts_kernel<T, Acc><<<1, 1>>>(parts, nparts, out);
    cuda::check(cudaGetLastError(), "sum_cuda add parts (launch)");
    return;
  }
  sum_outputs_kernel<T, Acc><<<cuda::blocks_for(l.nout), cuda::kThreads>>>(l, x, out);
  cuda::check(cudaGetLastError(), "sum_cuda (launch)");
}

template void sum_cuda<float, double>(const ReduceLayout&, const float*, float*, double*, int64_t);
template void sum_cuda<double, double>(const ReduceLayout&, const double*, double*, double*, int64_t);
template void sum_cuda<int64_t, int64_t>(const ReduceLayout&, const int64_t*, int64_t*, int64_t*, int64_t);
template void sum_cuda<ComplexElement<float>, ComplexElement<double>>(const ReduceLayout&, const ComplexElement<float>*,
                                                                      ComplexElement<float>*, ComplexElement<double>*,
                                                                      int64_t);
template void sum_cuda<ComplexElement<double>, ComplexElement<double>>(const ReduceLayout&,
                                                                       const ComplexElement<double>*,
                                                                       ComplexElement<double>*,
                                                                       ComplexElement<double>*, int64_t);

}  // namespace sampan::kernels
