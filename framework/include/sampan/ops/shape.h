// sampan: views and shape manipulation. Views share storage with their input; the *_scatter
// functions are their out-of-place writes (a copy of x with the view overwritten), which is what
// Python's index assignment `x[...] = v` lowers to: an autograd-safe "index_put" built from
// slice_scatter / select_scatter (basic indices), index_copy (an integer tensor along one axis)
// and masked_scatter (a boolean mask), see ops/index.h.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// An omitted slice bound: pass `kSliceEnd` for "to the end" and `-kSliceEnd` for "from/to the
/// beginning" (for a negative step, x[::-1] is slice(x, axis, kSliceEnd, -kSliceEnd, -1)).
constexpr int64_t kSliceEnd = std::numeric_limits<int64_t>::max();

/// A slice resolved against an axis of `size` elements: positions start, start+step, ...
/// (`length` of them). Follows Python's slice.indices().
struct SliceRange {
  int64_t start = 0, length = 0, step = 1;
};
/// Resolves start:stop:step for an axis of `size` (negative positions count from the end,
/// out-of-range positions clamp); throws ValueError for step 0.
SliceRange normalize_slice(int64_t size, int64_t start, int64_t stop, int64_t step);

/// A view when the layout allows it, else a copy; one dimension may be -1.
Tensor reshape(const Tensor& x, const Shape& shape);
/// Broadcast view (stride 0 along expanded dimensions).
Tensor broadcast_to(const Tensor& x, const Shape& shape);
/// Permuted view.
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims);
/// Swaps two dimensions (a view).
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);

/// x[start:stop:step] along `axis` (a view; Python semantics, any stride, negative steps).
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t stop = kSliceEnd, int64_t step = 1);
/// x[start:start+length] along `axis`; unlike slice, an out-of-range window raises IndexError.
Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length);
/// x[..., index, ...] along `axis`, which is dropped (a view; IndexError names index and size).
Tensor select(const Tensor& x, int64_t axis, int64_t index);
/// Drops the size-1 dimensions `axes` (all size-1 dimensions when empty).
Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes = {});
/// Inserts a size-1 dimension at `axis` (in -(dim+1) .. dim).
Tensor unsqueeze(const Tensor& x, int64_t axis);
/// The diagonal of the (axis1, axis2) planes as a view; it becomes the last dimension.
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t axis1 = 0, int64_t axis2 = 1);
/// Merges dimensions start_dim..end_dim into one (a reshape).
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);
/// x broadcast to other's shape (a view).
Tensor expand_as(const Tensor& x, const Tensor& other);
/// Reverses the order along each of `axes` (a view with negative strides).
Tensor flip(const Tensor& x, const std::vector<int64_t>& axes);

/// A copy of x with x[start:stop:step] (along `axis`) replaced by src (broadcast, converted).
Tensor slice_scatter(const Tensor& x, const Tensor& src, int64_t axis, int64_t start,
                     int64_t stop = kSliceEnd, int64_t step = 1);
/// A copy of x with select(x, axis, index) replaced by src.
Tensor select_scatter(const Tensor& x, const Tensor& src, int64_t axis, int64_t index);
/// A copy of x with diagonal(x, offset, axis1, axis2) replaced by src.
Tensor diagonal_scatter(const Tensor& x, const Tensor& src, int64_t offset = 0, int64_t axis1 = 0,
                        int64_t axis2 = 1);

}  // namespace sampan
