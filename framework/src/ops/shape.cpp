// sampan: views (core::reshape, broadcast_to, permute). Outputs share the input's storage.
#include <numeric>

#include "sampan/ops.h"
#include "elementwise_support.h"

namespace sampan {

namespace {

Shape infer_reshape(const Shape& from, const Shape& to) {
  Shape r = to;
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      if (unknown >= 0) throw ValueError("reshape to " + shape_str(to) + ": only one dimension may be -1");
      unknown = static_cast<int64_t>(i);
    } else if (r[i] < 0) {
      throw ValueError("reshape to " + shape_str(to) + ": negative dimension");
    } else {
      known *= r[i];
    }
  }
  int64_t n = shape_numel(from);
  if (unknown >= 0) {
    if (known == 0 || n % known != 0)
      throw ValueError("cannot reshape a tensor of shape " + shape_str(from) + " into " + shape_str(to));
    r[unknown] = n / known;
  }
  if (shape_numel(r) != n)
    throw ValueError("cannot reshape a tensor of shape " + shape_str(from) + " (" + std::to_string(n) +
                     " elements) into " + shape_str(to));
  return r;
}

std::vector<int64_t> normalize_perm(const std::vector<int64_t>& dims, int64_t ndim) {
  if (static_cast<int64_t>(dims.size()) != ndim)
    throw ValueError("permute needs " + std::to_string(ndim) + " dimensions, got " + std::to_string(dims.size()));
  std::vector<int64_t> p(ndim);
  std::vector<bool> seen(ndim, false);
  for (int64_t i = 0; i < ndim; ++i) {
    p[i] = normalize_axis(dims[i], ndim);
    if (seen[p[i]]) throw ValueError("permute: dimension " + std::to_string(dims[i]) + " repeated");
    seen[p[i]] = true;
  }
  return p;
}

}  // namespace

SAMPAN_OP(core, reshape)
    .doc("Same data with a new shape (a view when the layout allows, else a copy); one size may be -1.")
    .args("x", "shape")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& shape) {
      return TensorSpec{infer_reshape(x.shape, shape), x.dtype, x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& shape, Tensor& out) {
      Shape s = infer_reshape(x.shape(), shape);
      Tensor src = x.is_contiguous() ? x : clone(x);
      out = Tensor(src.storage(), s, contiguous_strides(s), src.offset(), src.dtype());
    })
    .vjp([](const VjpContext& c) -> Grads { return {reshape(c.grad_output(0), c.input(0).shape())}; });

SAMPAN_OP(core, broadcast_to)
    .doc("A read-only broadcast view of x with `shape` (NumPy rules).")
    .args("x", "shape")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& shape) {
      if (broadcast_shapes(x.shape, shape) != Shape(shape))
        throw ValueError("cannot broadcast shape " + shape_str(x.shape) + " to " + shape_str(shape));
      return TensorSpec{shape, x.dtype, x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& shape, Tensor& out) {
      out = Tensor(x.storage(), shape, detail::broadcast_strides(x, shape), x.offset(), x.dtype());
    })
    .vjp([](const VjpContext& c) -> Grads { return {sum_to(c.grad_output(0), c.input(0).shape())}; });

SAMPAN_OP(core, permute)
    .doc("A view with dimensions reordered: out.shape[i] = x.shape[dims[i]].")
    .args("x", "dims")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& dims) {
      auto p = normalize_perm(dims, x.dim());
      Shape s(p.size());
      for (size_t i = 0; i < p.size(); ++i) s[i] = x.shape[p[i]];
      return TensorSpec{s, x.dtype, x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& dims, Tensor& out) {
      auto p = normalize_perm(dims, x.dim());
      Shape s(p.size()), st(p.size());
      for (size_t i = 0; i < p.size(); ++i) { s[i] = x.shape()[p[i]]; st[i] = x.strides()[p[i]]; }
      out = Tensor(x.storage(), s, st, x.offset(), x.dtype());
    })
    .vjp([](const VjpContext& c) -> Grads {
      auto p = normalize_perm(c.attr<std::vector<int64_t>>(1), c.input(0).dim());
      std::vector<int64_t> inv(p.size());
      for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
      return {permute(c.grad_output(0), inv)};
    });

Tensor reshape(const Tensor& x, const Shape& shape) {
  static OpHandle op("core::reshape");
  return op(x, shape)[0];
}
Tensor broadcast_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  static OpHandle op("core::broadcast_to");
  return op(x, shape)[0];
}
Tensor permute(const Tensor& x, const std::vector<int64_t>& dims) {
  static OpHandle op("core::permute");
  return op(x, dims)[0];
}
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  std::vector<int64_t> p(x.dim());
  std::iota(p.begin(), p.end(), 0);
  std::swap(p[normalize_axis(dim0, x.dim())], p[normalize_axis(dim1, x.dim())]);
  return permute(x, p);
}

}  // namespace sampan
