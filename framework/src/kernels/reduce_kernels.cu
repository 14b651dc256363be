// CUDA twins of core::sum, core::amax / amin and the mapped sums of var, std and norm: one thread per output folding its elements in the CPU's order
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

template <class T, bool Max> __global__ void extreme_outputs_kernel(ReduceLayout l, const T* x, T* out, T init) {
  SAMPAN_GRID_STRIDE_LOOP(o, l.nout) { out[o] = fold(l, x, o, 0, l.nred, init, ExtremeFoldStep<Max>{}); }
}

template <class T, bool Max>
__global__ void extreme_parts_kernel(ReduceLayout l, const T* x, T init, T* parts, int64_t nparts) {
  SAMPAN_GRID_STRIDE_LOOP(p, nparts) {
    parts[p] = fold(l, x, 0, l.nred * p / nparts, l.nred * (p + 1) / nparts, init, ExtremeFoldStep<Max>{});
  }
}

template <class T, bool Max> __global__ void combine_extremes_kernel(const T* parts, int64_t nparts, T init, T* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  T a = init;
  for (int64_t p = 0; p < nparts; ++p) a = ExtremeFoldStep<Max>{}(a, parts[p]);
  out[0] = a;
}

template <class T, class Step> __global__ void fold_outputs_kernel(ReduceLayout l, const T* x, double* out) {
  SAMPAN_GRID_STRIDE_LOOP(o, l.nout) { out[o] = fold(l, x, o, 0, l.nred, 0.0, Step{}); }
}

template <class T, class Step>
__global__ void fold_parts_kernel(ReduceLayout l, const T* x, double* parts, int64_t nparts) {
  SAMPAN_GRID_STRIDE_LOOP(p, nparts) {
    parts[p] = fold(l, x, 0, l.nred * p / nparts, l.nred * (p + 1) / nparts, 0.0, Step{});
  }
}

}  // namespace

template <class T, class Step>
void fold_to_double_cuda(const ReduceLayout& l, const T* x, double* out, double* parts, int64_t nparts) {
  if (l.nout == 0) return;
  if (nparts > 0) {
    fold_parts_kernel<T, Step><<<cuda::blocks_for(nparts), cuda::kThreads>>>(l, x, parts, nparts);
    cuda::check(cudaGetLastError(), "fold_to_double_cuda parts (launch)");
    add_parts_kernel<double, double><<<1, 1>>>(parts, nparts, out);
    cuda::check(cudaGetLastError(), "fold_to_double_cuda add parts (launch)");
    return;
  }
  fold_outputs_kernel<T, Step><<<cuda::blocks_for(l.nout), cuda::kThreads>>>(l, x, out);
  cuda::check(cudaGetLastError(), "fold_to_double_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_FOLD(T, STEP) \
  template void fold_to_double_cuda<T, STEP>(const ReduceLayout&, const T*, double*, double*, int64_t);
SAMPAN_INSTANTIATE_FOLD(float, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(double, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(ComplexElement<float>, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(ComplexElement<double>, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(float, AbsFoldStep)
SAMPAN_INSTANTIATE_FOLD(double, AbsFoldStep)
#undef SAMPAN_INSTANTIATE_FOLD

template <class T, bool Max>
void extreme_cuda(const ReduceLayout& l, const T* x, T* out, T init, T* parts, int64_t nparts) {
  if (l.nout == 0) return;
  if (nparts > 0) {
    extreme_parts_kernel<T, Max><<<cuda::blocks_for(nparts), cuda::kThreads>>>(l, x, init, parts, nparts);
    cuda::check(cudaGetLastError(), "extreme_cuda parts (launch)");
    combine_extremes_kernel<T, Max><<<1, 1>>>(parts, nparts, init, out);
    cuda::check(cudaGetLastError(), "extreme_cuda combine (launch)");
    return;
  }
  extreme_outputs_kernel<T, Max><<<cuda::blocks_for(l.nout), cuda::kThreads>>>(l, x, out, init);
  cuda::check(cudaGetLastError(), "extreme_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_EXTREME(T)                                                                 \
  template void extreme_cuda<T, true>(const ReduceLayout&, const T*, T*, T, T*, int64_t);           \
  template void extreme_cuda<T, false>(const ReduceLayout&, const T*, T*, T, T*, int64_t);
SAMPAN_INSTANTIATE_EXTREME(float)
SAMPAN_INSTANTIATE_EXTREME(double)
SAMPAN_INSTANTIATE_EXTREME(int32_t)
SAMPAN_INSTANTIATE_EXTREME(int64_t)
#undef SAMPAN_INSTANTIATE_EXTREME

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
