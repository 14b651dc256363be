// CUDA sums and extremes (defined in reduce_kernels.cu, compiled only where nvcc exists: SAMPAN_CUDA_KERNELS)
// over the layouts of reduce_fold.h. Pointers are device pointers; errors leave as
// std::runtime_error. Asynchronous on the default stream.
#pragma once

#include <cstdint>

#include "reduce_fold.h"
#include "sampan/dtype.h"

namespace sampan::kernels {

/// out[o] = the sum of output o's elements of x, each output folded by one thread in the CPU's
/// order (sum_fold); with nparts > 0 (a full sum, l.nout == 1) x is folded in nparts parts into
/// `parts` (nparts accumulators of device memory) and the parts added in order into out[0].
/// T / Acc: float / double, double / double, int64_t / int64_t, ComplexElement<float> /
/// ComplexElement<double>, ComplexElement<double> / ComplexElement<double>, Half / float,
/// BFloat16 / float.
template <class T, class Acc>
void sum_cuda(const ReduceLayout& l, const T* x, T* out, Acc* parts, int64_t nparts);

/// out[o] = the product of output o's elements in the CPU's order (core::prod; the same types and
/// parts as sum_cuda, the parts multiplied in order).
template <class T, class Acc>
void prod_cuda(const ReduceLayout& l, const T* x, T* out, Acc* parts, int64_t nparts);

/// out[o] = the maximum (Max) or minimum of output o's elements (NaN propagates), each output
/// folded by one thread from init (-inf / +inf, or the integer type's extremes); with nparts > 0
/// (a full reduction) in nparts parts into `parts`, combined in order. T: float, double, int32_t,
/// int64_t. A maximum is exact: the CPU's bits whatever the partition.
template <class T, bool Max>
void extreme_cuda(const ReduceLayout& l, const T* x, T* out, T init, T* parts, int64_t nparts);

/// out[o] (float64) = the fold of output o's elements with Step from 0 in a float64 accumulator,
/// in the CPU's order (the mapped sums of var, std and the norms: SquaredModulusFoldStep,
/// AbsFoldStep); with nparts > 0 (l.nout == 1) in nparts parts into `parts`, added in order.
/// T: float, double, ComplexElement<float>, ComplexElement<double> (AbsFoldStep: real T only).
template <class T, class Step>
void fold_to_double_cuda(const ReduceLayout& l, const T* x, double* out, double* parts, int64_t nparts);

}  // namespace sampan::kernels
