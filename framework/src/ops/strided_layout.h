// The StridedLayout (kernels/strided_index.h) of an elementwise op's output and its inputs, which
// broadcast to the output's shape: what the op layer hands a CUDA elementwise kernel.
#pragma once

#include <initializer_list>

#include "sampan/error.h"
#include "sampan/tensor.h"
#include "../kernels/strided_index.h"

namespace sampan::detail {

/// Operand 0 is `out`, then `inputs` in order; an input of lower rank or with size-1 dimensions
/// broadcasts (stride 0). Raises NotImplementedError past kernels::kMaxStridedDims dimensions.
template <int N>
kernels::StridedLayout<N> strided_layout(const char* op, const Tensor& out, std::initializer_list<const Tensor*> inputs) {
  static_assert(N >= 1);
  SAMPAN_CHECK(static_cast<int>(inputs.size()) == N - 1, RuntimeError, op, ": strided_layout<", N, "> needs ", N - 1,
               " inputs, got ", inputs.size());
  const Shape& shape = out.shape();
  const int ndim = static_cast<int>(shape.size());
  SAMPAN_CHECK(ndim <= kernels::kMaxStridedDims, NotImplementedError, op, ": the CUDA elementwise kernels take up to ",
               kernels::kMaxStridedDims, " dimensions, got a result of shape ", shape_str(shape));
  kernels::StridedLayout<N> layout;
  layout.ndim = ndim;
  bool dense = out.is_contiguous();
  for (int d = 0; d < ndim; ++d) {
    layout.shape[d] = shape[d];
    layout.strides[0][d] = out.strides()[d];
  }
  int i = 1;
  for (const Tensor* t : inputs) {
    const Shape& s = t->shape();
    const int lead = ndim - static_cast<int>(s.size());
    SAMPAN_CHECK(lead >= 0, ValueError, op, ": input of shape ", shape_str(s), " does not broadcast to ", shape_str(shape));
    dense = dense && s == shape && t->is_contiguous();
    for (int d = 0; d < ndim; ++d) {
      const int64_t extent = d < lead ? 1 : s[d - lead];
      SAMPAN_CHECK(extent == 1 || extent == shape[d], ValueError, op, ": input of shape ", shape_str(s),
                   " does not broadcast to ", shape_str(shape));
      layout.strides[i][d] = extent == 1 ? 0 : t->strides()[d - lead];
    }
    ++i;
  }
  layout.dense = dense;
  return layout;
}

}  // namespace sampan::detail
