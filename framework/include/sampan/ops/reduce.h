// sampan: reductions.
#pragma once

#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// Sum over `axes` (all when empty); integer and bool inputs sum in int64.
Tensor sum(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
/// Sums a broadcast result back to `shape` (the reverse of broadcasting; used by vjps).
Tensor sum_to(const Tensor& x, const Shape& shape);

}  // namespace sampan
