// sampan: views (core::reshape, broadcast_to, permute, slice, select, squeeze, unsqueeze,
// diagonal) and the out-of-place writes into such views (core::slice_scatter, select_scatter,
// diagonal_scatter) that their vjps and Python's index assignment are built on.
//
// A view's output shares the input's storage: the kernel only computes a new (shape, strides,
// offset). The same geometry functions serve the shape functions (on contiguous strides, no data)
// and the kernels, so the two cannot disagree.
#include <algorithm>
#include <limits>
#include <numeric>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

Shape infer_reshape(const Shape& from, const Shape& to) {
  Shape r = to;
  int64_t known = 1, unknown = -1;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == -1) {
      SAMPAN_CHECK(unknown < 0, ValueError, "reshape to ", shape_str(to), ": only one dimension may be -1");
      unknown = static_cast<int64_t>(i);
    } else if (r[i] < 0) {
      SAMPAN_THROW(ValueError, "reshape to ", shape_str(to), ": negative dimension");
    } else {
      known *= r[i];
    }
  }
  int64_t n = shape_numel(from);
  if (unknown >= 0) {
    if (known == 0 || n % known != 0)
      SAMPAN_THROW(ValueError, "cannot reshape a tensor of shape ", shape_str(from), " into ", shape_str(to));
    r[unknown] = n / known;
  }
  SAMPAN_CHECK(shape_numel(r) == n, ValueError, "cannot reshape a tensor of shape ", shape_str(from), " (", n,
               " elements) into ", shape_str(to));
  return r;
}

std::vector<int64_t> normalize_perm(const std::vector<int64_t>& dims, int64_t ndim) {
  if (static_cast<int64_t>(dims.size()) != ndim)
    SAMPAN_THROW(ValueError, "permute needs ", ndim, " dimensions, got ", dims.size());
  std::vector<int64_t> p(ndim);
  std::vector<bool> seen(ndim, false);
  for (int64_t i = 0; i < ndim; ++i) {
    p[i] = normalize_axis(dims[i], ndim);
    if (seen[p[i]]) SAMPAN_THROW(ValueError, "permute: dimension ", dims[i], " repeated");
    seen[p[i]] = true;
  }
  return p;
}

// ---- view geometry: (shape, strides, offset) in elements ----

struct Geometry {
  Shape shape, strides;
  int64_t offset = 0;
};

Geometry geometry_of(const Tensor& x) { return {x.shape(), x.strides(), x.offset()}; }
// Shape functions see no strides; a contiguous layout gives the same output shape.
Geometry geometry_of(const TensorSpec& x) { return {x.shape, contiguous_strides(x.shape), 0}; }
Tensor view_of(const Tensor& x, const Geometry& g) {
  return Tensor(x.storage(), g.shape, g.strides, g.offset, x.dtype());
}
TensorSpec spec_of(const TensorSpec& x, const Geometry& g) { return TensorSpec{g.shape, x.dtype, x.device}; }

Geometry slice_geometry(Geometry g, int64_t axis, int64_t start, int64_t stop, int64_t step) {
  const int64_t d = normalize_axis(axis, static_cast<int64_t>(g.shape.size()));
  SAMPAN_CHECK(!g.shape.empty(), IndexError, "slice of a 0-d tensor: there is no axis to slice");
  SliceRange r = normalize_slice(g.shape[d], start, stop, step);
  if (r.length > 0) g.offset += r.start * g.strides[d];
  g.shape[d] = r.length;
  g.strides[d] *= r.step;
  return g;
}

Geometry select_geometry(Geometry g, int64_t axis, int64_t index) {
  SAMPAN_CHECK(!g.shape.empty(), IndexError, "select on a 0-d tensor: there is no axis to index");
  const int64_t d = normalize_axis(axis, static_cast<int64_t>(g.shape.size()));
  const int64_t n = g.shape[d];
  if (index < -n || index >= n)
    SAMPAN_THROW(IndexError, "index ", index, " is out of range for axis ", axis,
                 " of size ", n);
  if (index < 0) index += n;
  g.offset += index * g.strides[d];
  g.shape.erase(g.shape.begin() + d);
  g.strides.erase(g.strides.begin() + d);
  return g;
}

Geometry diagonal_geometry(const Geometry& g, int64_t offset, int64_t axis1, int64_t axis2) {
  const int64_t nd = static_cast<int64_t>(g.shape.size());
  SAMPAN_CHECK(nd >= 2, ValueError, "diagonal needs a tensor of rank >= 2, got rank ", nd);
  const int64_t a = normalize_axis(axis1, nd), b = normalize_axis(axis2, nd);
  SAMPAN_CHECK(a != b, ValueError, "diagonal: axis1 and axis2 must differ, both are ", a);
  const int64_t n1 = g.shape[a], n2 = g.shape[b];
  // Offset k > 0 starts at (0, k) above the main diagonal; k < 0 at (-k, 0) below it.
  int64_t len = offset >= 0 ? std::min(n1, n2 - offset) : std::min(n1 + offset, n2);
  len = std::max<int64_t>(len, 0);
  Geometry r;
  r.offset = g.offset;
  if (len > 0) r.offset += offset >= 0 ? offset * g.strides[b] : -offset * g.strides[a];
  for (int64_t d = 0; d < nd; ++d) {
    if (d == a || d == b) continue;
    r.shape.push_back(g.shape[d]);
    r.strides.push_back(g.strides[d]);
  }
  r.shape.push_back(len);
  r.strides.push_back(g.strides[a] + g.strides[b]);
  return r;
}

std::vector<bool> squeeze_mask(const Shape& shape, const std::vector<int64_t>& axes) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  std::vector<bool> drop(nd, false);
  if (axes.empty()) {
    for (int64_t d = 0; d < nd; ++d) drop[d] = shape[d] == 1;
    return drop;
  }
  for (auto a : axes) {
    if (nd == 0) {  // NumPy allows axis 0 / -1 on a 0-d array as a no-op
      normalize_axis(a, 0);
      continue;
    }
    int64_t d = normalize_axis(a, nd);
    SAMPAN_CHECK(shape[d] == 1, ValueError, "squeeze: axis ", a, " has size ", shape[d],
                 ", expected 1 (shape ", shape_str(shape), ")");
    drop[d] = true;
  }
  return drop;
}

Geometry squeeze_geometry(const Geometry& g, const std::vector<int64_t>& axes) {
  auto drop = squeeze_mask(g.shape, axes);
  Geometry r;
  r.offset = g.offset;
  for (size_t d = 0; d < g.shape.size(); ++d)
    if (!drop[d]) { r.shape.push_back(g.shape[d]); r.strides.push_back(g.strides[d]); }
  return r;
}

Geometry unsqueeze_geometry(Geometry g, int64_t axis) {
  const int64_t nd = static_cast<int64_t>(g.shape.size());
  if (axis < -(nd + 1) || axis > nd)
    SAMPAN_THROW(IndexError, "unsqueeze: axis ", axis, " is out of range for a tensor of rank ",
                 nd, " (expected ", -(nd + 1), "..", nd, ")");
  if (axis < 0) axis += nd + 1;
  // Any stride works for a size-1 dimension; this one keeps contiguous tensors contiguous.
  int64_t st = axis < nd ? g.strides[axis] * g.shape[axis] : 1;
  g.shape.insert(g.shape.begin() + axis, 1);
  g.strides.insert(g.strides.begin() + axis, st);
  return g;
}

// The out-of-place scatter ops: out = copy of x with the view `geom(out)` overwritten by src
// (broadcast to the view's shape, converted to x's dtype).
template <class GeomFn>
TensorSpec scatter_spec(const char* name, const TensorSpec& x, const TensorSpec& src, GeomFn geom) {
  Geometry g = geom(geometry_of(x));
  if (broadcast_shapes(src.shape, g.shape) != g.shape)
    SAMPAN_THROW(ValueError, name, ": src of shape ", shape_str(src.shape),
                 " does not broadcast to the destination view of shape ", shape_str(g.shape),
                 " (x has shape ", shape_str(x.shape), ")");
  return x;
}
template <class GeomFn> void scatter_kernel(const Tensor& x, const Tensor& src, Tensor& out, GeomFn geom) {
  copy_(out, x);
  copy_(view_of(out, geom(geometry_of(out))), src);
}

void slice_scatter_kernel(const Tensor& x, const Tensor& src, int64_t axis, int64_t start, int64_t stop, int64_t step,
                          Tensor& out) {
  scatter_kernel(x, src, out, [&](const Geometry& g) { return slice_geometry(g, axis, start, stop, step); });
}
void select_scatter_kernel(const Tensor& x, const Tensor& src, int64_t axis, int64_t index, Tensor& out) {
  scatter_kernel(x, src, out, [&](const Geometry& g) { return select_geometry(g, axis, index); });
}
void diagonal_scatter_kernel(const Tensor& x, const Tensor& src, int64_t offset, int64_t a1, int64_t a2, Tensor& out) {
  scatter_kernel(x, src, out, [&](const Geometry& g) { return diagonal_geometry(g, offset, a1, a2); });
}

}  // namespace

SliceRange normalize_slice(int64_t size, int64_t start, int64_t stop, int64_t step) {
  SAMPAN_CHECK(step != 0, ValueError, "slice step must not be zero");
  if (step == std::numeric_limits<int64_t>::min())
    SAMPAN_THROW(ValueError, "slice step ", step, " is out of range");
  // Python's slice.indices(): negative positions count from the end, then clamp to the valid
  // range, which for a negative step is [-1, size-1] ("-1" meaning before the first element).
  auto clamp = [size](int64_t i, int64_t lo, int64_t hi) {
    if (i < 0) i += size;  // no overflow: only for negative i
    return std::min(std::max(i, lo), hi);
  };
  SliceRange r;
  r.step = step;
  if (step > 0) {
    r.start = clamp(start, 0, size);
    int64_t e = clamp(stop, 0, size);
    r.length = e > r.start ? 1 + (e - r.start - 1) / step : 0;  // written so that a huge step cannot overflow
  } else {
    r.start = clamp(start, -1, size - 1);
    int64_t e = clamp(stop, -1, size - 1);
    r.length = r.start > e ? 1 + (r.start - e - 1) / (-step) : 0;
  }
  return r;
}

// The view ops compute a layout over x's storage and touch no data, so one kernel serves every
// device (reshape copies only a strided x, through clone, which says what it cannot copy).
#if defined(SAMPAN_CUDA_KERNELS)
#define SAMPAN_ANY_DEVICE(KERNEL) .cpu(KERNEL).cuda(KERNEL)
#else
#define SAMPAN_ANY_DEVICE(KERNEL) .cpu(KERNEL)
#endif

SAMPAN_OP(core, reshape)
    .doc("Same data with a new shape (a view when the layout allows, else a copy); one size may be -1.")
    .args("x", "shape")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& shape) {
      return TensorSpec{infer_reshape(x.shape, shape), x.dtype, x.device};
    })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, const std::vector<int64_t>& shape, Tensor& out) {
      Shape s = infer_reshape(x.shape(), shape);
      Tensor src = x.is_contiguous() ? x : clone(x);
      out = Tensor(src.storage(), s, contiguous_strides(s), src.offset(), src.dtype());
    }))
    .vjp([](const VjpContext& c) -> Grads { return {reshape(c.grad_output(0), c.input(0).shape())}; })
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{3, -1}}, {transpose(f64({2, 3}), 0, 1), IntList{6}}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, broadcast_to)
    .doc("A read-only broadcast view of x with `shape` (NumPy rules).")
    .args("x", "shape")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& shape) {
      if (broadcast_shapes(x.shape, shape) != Shape(shape))
        SAMPAN_THROW(ValueError, "cannot broadcast shape ", shape_str(x.shape), " to ", shape_str(shape));
      return TensorSpec{shape, x.dtype, x.device};
    })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, const std::vector<int64_t>& shape, Tensor& out) {
      out = Tensor(x.storage(), shape, detail::broadcast_strides(x, shape), x.offset(), x.dtype());
    }))
    .vjp([](const VjpContext& c) -> Grads { return {sum_to(c.grad_output(0), c.input(0).shape())}; })
    .samples([] { return std::vector<Values>{{f64({3, 1}), IntList{2, 3, 4}}}; })
    .saves_for_vjp({});

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
    SAMPAN_ANY_DEVICE(([](const Tensor& x, const std::vector<int64_t>& dims, Tensor& out) {
      auto p = normalize_perm(dims, x.dim());
      Shape s(p.size()), st(p.size());
      for (size_t i = 0; i < p.size(); ++i) { s[i] = x.shape()[p[i]]; st[i] = x.strides()[p[i]]; }
      out = Tensor(x.storage(), s, st, x.offset(), x.dtype());
    }))
    .vjp([](const VjpContext& c) -> Grads {
      auto p = normalize_perm(c.attr<std::vector<int64_t>>(1), c.input(0).dim());
      std::vector<int64_t> inv(p.size());
      for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = static_cast<int64_t>(i);
      return {permute(c.grad_output(0), inv)};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3, 4}), IntList{2, 0, 1}}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, slice)
    .doc("A view of x[start:stop:step] along `axis` with Python's rules: negative positions count "
         "from the end, out-of-range positions clamp, a negative step walks backwards. Pass "
         "sampan::kSliceEnd (INT64_MAX) / -kSliceEnd for an omitted bound.")
    .args("x", "axis", "start", "stop", "step")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, int64_t axis, int64_t start, int64_t stop, int64_t step) {
      return spec_of(x, slice_geometry(geometry_of(x), axis, start, stop, step));
    })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, int64_t axis, int64_t start, int64_t stop, int64_t step, Tensor& out) {
      out = view_of(x, slice_geometry(geometry_of(x), axis, start, stop, step));
    }))
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), g = c.grad_output(0);
      return {slice_scatter(zeros(x.shape(), g.dtype()), g, c.attr<int64_t>(1), c.attr<int64_t>(2),
                            c.attr<int64_t>(3), c.attr<int64_t>(4))};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(1), int64_t(3), int64_t(0), int64_t(-2)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, select)
    .doc("A view of x[..., index, ...] at position `index` of `axis`, which is dropped; a negative "
         "index counts from the end.")
    .args("x", "axis", "index")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, int64_t axis, int64_t index) {
      return spec_of(x, select_geometry(geometry_of(x), axis, index));
    })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, int64_t axis, int64_t index, Tensor& out) {
      out = view_of(x, select_geometry(geometry_of(x), axis, index));
    }))
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), g = c.grad_output(0);
      return {select_scatter(zeros(x.shape(), g.dtype()), g, c.attr<int64_t>(1), c.attr<int64_t>(2))};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(1), int64_t(-1)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, squeeze)
    .doc("A view without the size-1 dimensions listed in `axes` (all size-1 dimensions when empty); "
         "naming a dimension whose size is not 1 is an error, as in NumPy.")
    .args("x", "axes")
    .defaults({{"axes", IntList{}}})  // empty: every size-1 axis
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes) {
      return spec_of(x, squeeze_geometry(geometry_of(x), axes));
    })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, const std::vector<int64_t>& axes, Tensor& out) {
      out = view_of(x, squeeze_geometry(geometry_of(x), axes));
    }))
    .vjp([](const VjpContext& c) -> Grads { return {reshape(c.grad_output(0), c.input(0).shape())}; })
    .samples([] { return std::vector<Values>{{f64({3, 1}), IntList{}}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, unsqueeze)
    .doc("A view with a new size-1 dimension at position `axis` (-1 appends).")
    .args("x", "axis")
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, int64_t axis) { return spec_of(x, unsqueeze_geometry(geometry_of(x), axis)); })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, int64_t axis, Tensor& out) { out = view_of(x, unsqueeze_geometry(geometry_of(x), axis)); }))
    .vjp([](const VjpContext& c) -> Grads { return {reshape(c.grad_output(0), c.input(0).shape())}; })
    .samples([] { return std::vector<Values>{{f64({3, 2}), int64_t(-1)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, diagonal)
    .doc("A view of the diagonal of the planes (axis1, axis2), `offset` above (> 0) or below (< 0) "
         "the main one; those axes are removed and the diagonal becomes the last dimension (NumPy).")
    .args("x", "offset", "axis1", "axis2")
    .defaults({{"offset", 0}, {"axis1", 0}, {"axis2", 1}})
    .outputs("out")
    .view(0)
    .shape([](const TensorSpec& x, int64_t offset, int64_t a1, int64_t a2) {
      return spec_of(x, diagonal_geometry(geometry_of(x), offset, a1, a2));
    })
    SAMPAN_ANY_DEVICE(([](const Tensor& x, int64_t offset, int64_t a1, int64_t a2, Tensor& out) {
      out = view_of(x, diagonal_geometry(geometry_of(x), offset, a1, a2));
    }))
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), g = c.grad_output(0);
      return {diagonal_scatter(zeros(x.shape(), g.dtype()), g, c.attr<int64_t>(1), c.attr<int64_t>(2),
                               c.attr<int64_t>(3))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3, 4}), int64_t(1), int64_t(2), int64_t(1)}}; })
    .saves_for_vjp({});

// ---- out-of-place writes into views ----

#undef SAMPAN_ANY_DEVICE

SAMPAN_OP(core, slice_scatter)
    .doc("A copy of x whose slice x[start:stop:step] along `axis` holds src (broadcast, converted "
         "to x's dtype). The functional form of `x[a:b:c] = src`.")
    .args("x", "src", "axis", "start", "stop", "step")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& src, int64_t axis, int64_t start, int64_t stop, int64_t step) {
      return scatter_spec("slice_scatter", x, src, [&](const Geometry& g) { return slice_geometry(g, axis, start, stop, step); });
    })
    .cpu(slice_scatter_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(slice_scatter_kernel)  // copies and a view: the same composition on the GPU
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      int64_t axis = c.attr<int64_t>(2), start = c.attr<int64_t>(3), stop = c.attr<int64_t>(4), step = c.attr<int64_t>(5);
      return {c.needs_grad(0) ? slice_scatter(g, zeros({}, g.dtype()), axis, start, stop, step) : Tensor(),
              c.needs_grad(1) ? slice(g, axis, start, stop, step) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), f64({3, 2}, 0.9), int64_t(1), int64_t(3), int64_t(0), int64_t(-2)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, select_scatter)
    .doc("A copy of x whose position `index` along `axis` holds src (broadcast, converted to x's "
         "dtype). The functional form of `x[..., index, ...] = src`.")
    .args("x", "src", "axis", "index")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& src, int64_t axis, int64_t index) {
      return scatter_spec("select_scatter", x, src, [&](const Geometry& g) { return select_geometry(g, axis, index); });
    })
    .cpu(select_scatter_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(select_scatter_kernel)  // copies and a view: the same composition on the GPU
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      int64_t axis = c.attr<int64_t>(2), index = c.attr<int64_t>(3);
      return {c.needs_grad(0) ? select_scatter(g, zeros({}, g.dtype()), axis, index) : Tensor(),
              c.needs_grad(1) ? select(g, axis, index) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), f64({3}, 0.9), int64_t(1), int64_t(2)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, diagonal_scatter)
    .doc("A copy of x whose diagonal (as core::diagonal selects it) holds src.")
    .args("x", "src", "offset", "axis1", "axis2")
    .defaults({{"offset", 0}, {"axis1", 0}, {"axis2", 1}})
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& src, int64_t offset, int64_t a1, int64_t a2) {
      return scatter_spec("diagonal_scatter", x, src, [&](const Geometry& g) { return diagonal_geometry(g, offset, a1, a2); });
    })
    .cpu(diagonal_scatter_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(diagonal_scatter_kernel)  // copies and a view: the same composition on the GPU
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      int64_t offset = c.attr<int64_t>(2), a1 = c.attr<int64_t>(3), a2 = c.attr<int64_t>(4);
      return {c.needs_grad(0) ? diagonal_scatter(g, zeros({}, g.dtype()), offset, a1, a2) : Tensor(),
              c.needs_grad(1) ? diagonal(g, offset, a1, a2) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), f64({2}, 0.9), int64_t(-1), int64_t(0), int64_t(1)}}; })
    .saves_for_vjp({});

// ---- C++ API ----

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
Tensor slice(const Tensor& x, int64_t axis, int64_t start, int64_t stop, int64_t step) {
  static OpHandle op("core::slice");
  return op(x, axis, start, stop, step)[0];
}
Tensor narrow(const Tensor& x, int64_t axis, int64_t start, int64_t length) {
  const int64_t n = x.size(axis);
  if (start < -n || start > n)
    SAMPAN_THROW(IndexError, "narrow: start ", start, " is out of range for axis ",
                 axis, " of size ", n);
  if (start < 0) start += n;
  if (length < 0 || start + length > n)
    SAMPAN_THROW(IndexError, "narrow: length ", length, " from start ", start,
                 " does not fit axis ", axis, " of size ", n);
  return slice(x, axis, start, start + length, 1);
}
Tensor select(const Tensor& x, int64_t axis, int64_t index) {
  static OpHandle op("core::select");
  return op(x, axis, index)[0];
}
Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes) {
  static OpHandle op("core::squeeze");
  return op(x, axes)[0];
}
Tensor unsqueeze(const Tensor& x, int64_t axis) {
  static OpHandle op("core::unsqueeze");
  return op(x, axis)[0];
}
Tensor diagonal(const Tensor& x, int64_t offset, int64_t axis1, int64_t axis2) {
  static OpHandle op("core::diagonal");
  return op(x, offset, axis1, axis2)[0];
}
Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  if (x.dim() == 0) return reshape(x, {1});
  const int64_t a = normalize_axis(start_dim, x.dim()), b = normalize_axis(end_dim, x.dim());
  SAMPAN_CHECK(a <= b, ValueError, "flatten: start_dim ", start_dim, " comes after end_dim ", end_dim);
  Shape s(x.shape().begin(), x.shape().begin() + a);
  int64_t n = 1;
  for (int64_t d = a; d <= b; ++d) n *= x.shape()[d];
  s.push_back(n);
  s.insert(s.end(), x.shape().begin() + b + 1, x.shape().end());
  return reshape(x, s);
}
Tensor expand_as(const Tensor& x, const Tensor& other) { return broadcast_to(x, other.shape()); }
Tensor flip(const Tensor& x, const std::vector<int64_t>& axes) {
  Tensor r = x;
  for (auto a : axes) r = slice(r, a, kSliceEnd, -kSliceEnd, -1);
  return r;
}
Tensor slice_scatter(const Tensor& x, const Tensor& src, int64_t axis, int64_t start, int64_t stop, int64_t step) {
  static OpHandle op("core::slice_scatter");
  return op(x, src, axis, start, stop, step)[0];
}
Tensor select_scatter(const Tensor& x, const Tensor& src, int64_t axis, int64_t index) {
  static OpHandle op("core::select_scatter");
  return op(x, src, axis, index)[0];
}
Tensor diagonal_scatter(const Tensor& x, const Tensor& src, int64_t offset, int64_t axis1, int64_t axis2) {
  static OpHandle op("core::diagonal_scatter");
  return op(x, src, offset, axis1, axis2)[0];
}

}  // namespace sampan
