// sampan: reductions and scans. `axes` empty means all axes; negative axes count from the end;
// `keepdim` keeps reduced dimensions with size 1 (NumPy's keepdims).
#pragma once

#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// Sum over `axes` (all when empty); integer and bool inputs sum in int64.
Tensor sum(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
/// Sums a broadcast result back to `shape` (the reverse of broadcasting; used by vjps).
Tensor sum_to(const Tensor& x, const Shape& shape);
/// Product over `axes`; integer and bool inputs multiply in int64. Gradients are exact with zeros.
Tensor prod(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);

/// Maximum / minimum over `axes` (real dtypes; NaN propagates). The gradient is shared evenly
/// among tied elements.
Tensor amax(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
Tensor amin(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
/// Maximum / minimum of all elements, or along one axis (values; see argmax for indices).
Tensor max(const Tensor& x);
Tensor max(const Tensor& x, int64_t axis, bool keepdim = false);
Tensor min(const Tensor& x);
Tensor min(const Tensor& x, int64_t axis, bool keepdim = false);
/// Index (int64) of the maximum / minimum of the flattened tensor, or along one axis; the first
/// on ties, the first NaN if any. No gradient.
Tensor argmax(const Tensor& x);
Tensor argmax(const Tensor& x, int64_t axis, bool keepdim = false);
Tensor argmin(const Tensor& x);
Tensor argmin(const Tensor& x, int64_t axis, bool keepdim = false);

/// Variance sum |x - mean|^2 / (N - ddof) over `axes`; ddof = 0 is NumPy's default, ddof = 1
/// the unbiased estimate (PyTorch's default correction). Complex inputs give real results.
Tensor var(const Tensor& x, const std::vector<int64_t>& axes = {}, double ddof = 0, bool keepdim = false);
/// Standard deviation sqrt(var(x, axes, ddof)).
Tensor std(const Tensor& x, const std::vector<int64_t>& axes = {}, double ddof = 0, bool keepdim = false);
/// log(sum(exp(x))) over `axes`, stable for large and very negative inputs.
Tensor logsumexp(const Tensor& x, const std::vector<int64_t>& axes = {}, bool keepdim = false);
/// Vector norm over `axes`: ord 2 (Euclidean; Frobenius over two matrix axes), 1, inf or -inf
/// (max / min of |x|). Complex inputs give real results.
Tensor norm(const Tensor& x, double ord = 2, const std::vector<int64_t>& axes = {}, bool keepdim = false);

/// Cumulative sum along `axis` (from the end when `reverse`); integer inputs accumulate in int64.
Tensor cumsum(const Tensor& x, int64_t axis, bool reverse = false);

}  // namespace sampan
