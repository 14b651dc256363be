// sampan: views and shape manipulation. Views share storage with their input.
#pragma once

#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// A view when the layout allows it, else a copy; one dimension may be -1.
Tensor reshape(const Tensor& x, const Shape& shape);
/// Broadcast view (stride 0 along expanded dimensions).
Tensor broadcast_to(const Tensor& x, const Shape& shape);
/// Permuted view.
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
/// Swaps two dimensions (a view).
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);

}  // namespace sampan
