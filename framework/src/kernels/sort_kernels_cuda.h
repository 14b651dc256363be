// The CUDA twin of core::sort / topk's line ordering (defined in sort_kernels.cu, compiled only
// where nvcc exists: SAMPAN_CUDA_KERNELS). Device pointers; errors leave as std::runtime_error.
#pragma once

#include <cstdint>

namespace sampan::kernels {

/// For every line of contiguous x ([outer, n, inner], the axis of n elements with stride inner),
/// the positions stably ordered by less_nan_last (axis_line.h; reversed when `descending`), ties
/// by position: the first k values and their positions into out / idx ([outer, k, inner]).
/// T: float, double, int32_t, int64_t. Synchronous (its scratch memory is freed on return).
template <class T>
void order_lines_cuda(const T* x, int64_t outer, int64_t n, int64_t inner, int64_t k, bool descending, T* out,
                      int64_t* idx);

}  // namespace sampan::kernels
