// CUDA twins of core::sum, prod, amax / amin and the mapped sums of var, std and norm: one thread
// per output folding its elements in the CPU's order (reduce_fold.h), or for one large full
// reduction kSumParts threads each folding a contiguous part and one thread combining the parts
// in order. Deterministic: no atomics, a fixed partition.
#include "reduce_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class T, class Acc, class Step, class Out>
__global__ void fold_outputs_kernel(ReduceLayout l, const T* x, Out* out, Acc init) {
  SAMPAN_GRID_STRIDE_LOOP(o, l.nout) { out[o] = narrow<Out>(fold(l, x, o, 0, l.nred, init, Step{})); }
}

template <class T, class Acc, class Step>
__global__ void fold_parts_kernel(ReduceLayout l, const T* x, Acc* parts, int64_t nparts, Acc init) {
  SAMPAN_GRID_STRIDE_LOOP(p, nparts) {
    parts[p] = fold(l, x, 0, l.nred * p / nparts, l.nred * (p + 1) / nparts, init, Step{});
  }
}

template <class Acc, class Step, class Out>
__global__ void combine_parts_kernel(const Acc* parts, int64_t nparts, Acc init, Out* out) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  Acc a = init;
  for (int64_t p = 0; p < nparts; ++p) a = Step{}(a, parts[p]);
  out[0] = narrow<Out>(a);
}

// out[o] = the Step fold of output o from init in Acc, rounded to Out; with nparts > 0 (a full
// reduction) in nparts parts into `parts`, combined in order by the same step.
template <class T, class Acc, class Step, class Out>
void fold_reduce(const ReduceLayout& l, const T* x, Out* out, Acc init, Acc* parts, int64_t nparts, const char* what) {
  if (l.nout == 0) return;
  if (nparts > 0) {
    fold_parts_kernel<T, Acc, Step><<<cuda::blocks_for(nparts), cuda::kThreads>>>(l, x, parts, nparts, init);
    cuda::check(cudaGetLastError(), what);
    combine_parts_kernel<Acc, Step, Out><<<1, 1>>>(parts, nparts, init, out);
    cuda::check(cudaGetLastError(), what);
    return;
  }
  fold_outputs_kernel<T, Acc, Step, Out><<<cuda::blocks_for(l.nout), cuda::kThreads>>>(l, x, out, init);
  cuda::check(cudaGetLastError(), what);
}

template <class Acc> Acc one() { return Acc(1); }
template <> ComplexElement<double> one<ComplexElement<double>>() { return {1.0, 0.0}; }

}  // namespace

template <class T, class Acc>
void sum_cuda(const ReduceLayout& l, const T* x, T* out, Acc* parts, int64_t nparts) {
  fold_reduce<T, Acc, SumFoldStep>(l, x, out, Acc{}, parts, nparts, "sum_cuda (launch)");
}

template <class T, class Acc>
void prod_cuda(const ReduceLayout& l, const T* x, T* out, Acc* parts, int64_t nparts) {
  fold_reduce<T, Acc, ProdFoldStep>(l, x, out, one<Acc>(), parts, nparts, "prod_cuda (launch)");
}

template <class T, bool Max>
void extreme_cuda(const ReduceLayout& l, const T* x, T* out, T init, T* parts, int64_t nparts) {
  fold_reduce<T, T, ExtremeFoldStep<Max>>(l, x, out, init, parts, nparts, "extreme_cuda (launch)");
}

template <class T, class Step>
void fold_to_double_cuda(const ReduceLayout& l, const T* x, double* out, double* parts, int64_t nparts) {
  if (l.nout == 0) return;
  if (nparts > 0) {  // the parts are float64 sums, added in order
    fold_parts_kernel<T, double, Step><<<cuda::blocks_for(nparts), cuda::kThreads>>>(l, x, parts, nparts, 0.0);
    cuda::check(cudaGetLastError(), "fold_to_double_cuda parts (launch)");
    combine_parts_kernel<double, SumFoldStep, double><<<1, 1>>>(parts, nparts, 0.0, out);
    cuda::check(cudaGetLastError(), "fold_to_double_cuda combine (launch)");
    return;
  }
  fold_outputs_kernel<T, double, Step, double><<<cuda::blocks_for(l.nout), cuda::kThreads>>>(l, x, out, 0.0);
  cuda::check(cudaGetLastError(), "fold_to_double_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_EXTREME(T)                                                                 \
  template void extreme_cuda<T, true>(const ReduceLayout&, const T*, T*, T, T*, int64_t);           \
  template void extreme_cuda<T, false>(const ReduceLayout&, const T*, T*, T, T*, int64_t);
SAMPAN_INSTANTIATE_EXTREME(float)
SAMPAN_INSTANTIATE_EXTREME(double)
SAMPAN_INSTANTIATE_EXTREME(int32_t)
SAMPAN_INSTANTIATE_EXTREME(int64_t)
#undef SAMPAN_INSTANTIATE_EXTREME

#define SAMPAN_INSTANTIATE_SUM_PROD(T, Acc)                                                  \
  template void sum_cuda<T, Acc>(const ReduceLayout&, const T*, T*, Acc*, int64_t);         \
  template void prod_cuda<T, Acc>(const ReduceLayout&, const T*, T*, Acc*, int64_t);
SAMPAN_INSTANTIATE_SUM_PROD(float, double)
SAMPAN_INSTANTIATE_SUM_PROD(double, double)
SAMPAN_INSTANTIATE_SUM_PROD(int64_t, int64_t)
SAMPAN_INSTANTIATE_SUM_PROD(ComplexElement<float>, ComplexElement<double>)
SAMPAN_INSTANTIATE_SUM_PROD(ComplexElement<double>, ComplexElement<double>)
SAMPAN_INSTANTIATE_SUM_PROD(Half, float)
SAMPAN_INSTANTIATE_SUM_PROD(BFloat16, float)
#undef SAMPAN_INSTANTIATE_SUM_PROD

#define SAMPAN_INSTANTIATE_FOLD(T, STEP) \
  template void fold_to_double_cuda<T, STEP>(const ReduceLayout&, const T*, double*, double*, int64_t);
SAMPAN_INSTANTIATE_FOLD(float, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(double, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(ComplexElement<float>, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(ComplexElement<double>, SquaredModulusFoldStep)
SAMPAN_INSTANTIATE_FOLD(float, AbsFoldStep)
SAMPAN_INSTANTIATE_FOLD(double, AbsFoldStep)
#undef SAMPAN_INSTANTIATE_FOLD

}  // namespace sampan::kernels
