// CUDA twins of the per-line loops of axis_loop.h (defined in axis_kernels.cu, compiled only where
// nvcc exists: SAMPAN_CUDA_KERNELS): one thread per line of a contiguous [outer, n, inner] array
// over the bodies of axis_line.h. Device pointers; errors leave as std::runtime_error;
// asynchronous on the default stream.
#pragma once

#include <cstdint>

#include "sampan/dtype.h"

namespace sampan::kernels {

/// core::cumsum's scan (cumsum_line). T / Acc: int64_t / int64_t, float / double, double /
/// double, ComplexElement<float> / ComplexElement<double>, ComplexElement<double> / itself,
/// Half / float, BFloat16 / float.
template <class T, class Acc>
void cumsum_cuda(int64_t outer, int64_t n, int64_t inner, const T* x, T* out, bool reverse);

/// core::argmax / argmin along the axis (arg_extreme_line). T: float, double, int32_t, int64_t.
template <class T>
void arg_extreme_cuda(int64_t outer, int64_t n, int64_t inner, const T* x, int64_t* out, bool want_max);

}  // namespace sampan::kernels
