// sampan: indexing, gathering and scattering along axes, boolean masks, joining and splitting.
//
// Integer index tensors may be int32 or int64. Negative entries count from the end (NumPy);
// entries outside [-size, size) raise IndexError naming the index, its position and the size.
// Masks are bool tensors. Every function is differentiable in its data arguments (never in
// indices or masks), with gradients written as ops (index_select <-> index_add, gather <->
// scatter_add, masked_select <-> masked_scatter), so double backward works.
//
// Python's index assignment `x[key] = v` is out of place and autograd-safe: basic indices lower
// to slice_scatter / select_scatter (ops/shape.h), an integer tensor along one axis to
// index_copy, a boolean mask to masked_fill (scalar v) or masked_scatter (a tensor v).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// x at `index` along `axis`; the axis is replaced by the index's shape (NumPy's take(x, index, axis)).
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index);
/// A copy of x with src's slices added at `index` along `axis` (duplicates accumulate). src has
/// x's shape with the axis replaced by the index's shape (or broadcasts to it).
Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
/// As index_add but writing (for duplicate indices the last one wins).
Tensor index_copy(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
/// out[i][j] = x[index[i][j]][j] (axis 0): index has x's rank, sizes <= x's off the axis (PyTorch's gather).
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index);
/// NumPy's take_along_axis: gather with the index broadcast against x off the axis.
Tensor take_along_axis(const Tensor& x, const Tensor& index, int64_t axis);
/// A copy of x with out[index[i][j]][j] += src[i][j] (axis 0); the reverse of gather.
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);

/// The elements of x where `mask` (broadcast with x) is true, 1-D, row-major.
Tensor masked_select(const Tensor& x, const Tensor& mask);
/// A copy of x whose masked elements take src's elements in row-major order.
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& src);
/// A copy of x with `value` (broadcast to x) where `mask` is true.
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);

/// Joins along an existing axis (dtypes promote).
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis = 0);
/// Joins along a new axis.
Tensor stack(const std::vector<Tensor>& tensors, int64_t axis = 0);
/// Views of consecutive pieces of the given sizes (they must add up to the axis size).
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis = 0);
/// Views of `split_size` elements each along `axis` (the last may be shorter).
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t axis = 0);
/// At most `chunks` views of equal size (the last may be shorter), as torch.chunk.
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis = 0);

/// Pads every dimension: pads = (before_0, after_0, before_1, after_1, ...), all >= 0.
/// mode: "constant" (with `value`), "reflect" (mirror without repeating the edge, as NumPy),
/// "replicate" (repeat the edge), "circular" (wrap around).
Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode = "constant",
           double value = 0.0);
/// x repeated reps[d] times along each dimension (NumPy's tile; reps may be longer than x's rank).
Tensor tile(const Tensor& x, const std::vector<int64_t>& reps);
/// Each element of `axis` repeated `repeats` times in place: [a, b] -> [a, a, b, b].
Tensor repeat_interleave(const Tensor& x, int64_t repeats, int64_t axis);
/// Element i of `axis` repeated repeats[i] times (int tensor, one count per element or one for all).
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, int64_t axis);

/// Stable sort along `axis`: (values, int64 indices). NaN counts as the largest value.
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t axis = -1, bool descending = false);
/// The indices of a stable sort.
Tensor argsort(const Tensor& x, int64_t axis = -1, bool descending = false);
/// The k largest (or smallest) along `axis`, in order: (values, int64 indices); ties keep the
/// earlier position first.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t axis = -1, bool largest = true);

}  // namespace sampan
