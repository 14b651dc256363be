// sampan: indexing along an axis (core::index_select, index_add, index_copy, gather,
// scatter_add) and the C++ functions over them (take_along_axis). Boolean masks are in mask.cpp,
// concatenation, stacking and padding in assemble.cpp.
//
// Integer indices may be int32 or int64; negative entries count from the end (NumPy); anything
// outside [-size, size) raises IndexError naming the index, its position, the axis and its size.
// Every gradient is written with these same ops (index_select <-> index_add, gather <->
// scatter_add), so second derivatives come free.
#include <algorithm>
#include <cstring>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "index_support.h"
#include "../kernels/axis_loop.h"
#include "../kernels/index_kernels.h"
#include "../kernels/segment_fold.h"
#include "cuda_support.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

using detail::axis_of;
using detail::check_index_dtype;
using detail::dense_as;
using detail::visit_itemsize;

using kernels::AxisSplit;
AxisSplit split_at(const Shape& s, int64_t d) {
  return kernels::split_at_axis(s.data(), static_cast<int64_t>(s.size()), d);
}

// The entries of an integer index tensor (row-major) as positions in [0, size): negative entries
// wrap once; anything else out of range raises IndexError.
std::vector<int64_t> read_indices(const char* op, const Tensor& index, int64_t size, int64_t axis) {
  check_index_dtype(op, index.dtype());
  Tensor c = cast(index, DType::Int64).contiguous();
  const int64_t* p = c.data<int64_t>();
  std::vector<int64_t> r(p, p + c.numel());
  for (size_t k = 0; k < r.size(); ++k) {
    int64_t v = r[k];
    if (v < -size || v >= size)
      SAMPAN_THROW(IndexError, op, ": index ", v, " (at position ", k,
                   " of the index) is out of range for axis ", axis, " of size ", size);
    if (v < 0) r[k] = v + size;
  }
  return r;
}

// x.shape with axis d replaced by the index's shape (NumPy's take).
Shape take_shape(const Shape& x, int64_t d, const Shape& index) {
  Shape s(x.begin(), x.begin() + d);
  s.insert(s.end(), index.begin(), index.end());
  s.insert(s.end(), x.begin() + d + 1, x.end());
  return s;
}

#if defined(SAMPAN_CUDA_KERNELS)
// What the CUDA twins of the row updates (index_add, index_copy) check on the host before their
// launch: the index comes back to be read; x and src must be dense and src already of its full
// shape and x's dtype (no broadcasting or casting on the GPU yet).
struct CudaRowUpdate {
  AxisSplit split;
  std::vector<int64_t> idx;
};
CudaRowUpdate prepare_cuda_row_update(const char* op, const Tensor& x, int64_t axis, const Tensor& index,
                                      const Tensor& src) {
  const int64_t d = normalize_axis(axis, x.dim());
  CudaRowUpdate p{split_at(x.shape(), d), {}};
  p.idx = read_indices(op, cuda_support::index_to_host(op, "index", index), p.split.n, axis);
  cuda_support::require_contiguous(op, "x", x);
  cuda_support::require_contiguous(op, "src", src);
  cuda_support::require_exact_src(op, take_shape(x.shape(), d, index.shape()), x.dtype(), src);
  return p;
}
#endif

// Offsets (in elements, by `strides`) of every multi-index over shape[lo:hi], row-major.
std::vector<int64_t> offsets_over(const Shape& shape, const Shape& strides, int64_t lo, int64_t hi) {
  std::vector<int64_t> off{0};
  for (int64_t d = lo; d < hi; ++d) {
    std::vector<int64_t> next;
    next.reserve(off.size() * shape[d]);
    for (int64_t base : off)
      for (int64_t i = 0; i < shape[d]; ++i) next.push_back(base + i * strides[d]);
    off.swap(next);
  }
  return off;
}

// Shape checks shared by gather and scatter_add: index has x's rank and fits x off the axis.
int64_t check_gather_shapes(const char* op, const Shape& x, const Shape& index, int64_t axis) {
  const int64_t d = axis_of(op, axis, static_cast<int64_t>(x.size()));
  SAMPAN_CHECK(index.size() == x.size(), ValueError, op, ": index must have the rank of x (", x.size(),
               "), got shape ", shape_str(index));
  for (size_t i = 0; i < x.size(); ++i)
    if (static_cast<int64_t>(i) != d && index[i] > x[i])
      SAMPAN_THROW(ValueError, op, ": index of shape ", shape_str(index), " does not fit x of shape ",
                   shape_str(x), " at dimension ", i, " (only the axis ",
                   d, " may be larger)");
  return d;
}

kernels::AxisIndexLayout axis_layout(const Shape& index, int64_t d, const Shape& data_strides,
                                     std::vector<int64_t>& off_a, std::vector<int64_t>& off_b) {
  off_a = offsets_over(index, data_strides, 0, d);
  off_b = offsets_over(index, data_strides, d + 1, static_cast<int64_t>(index.size()));
  return {static_cast<int64_t>(off_a.size()), index[d], static_cast<int64_t>(off_b.size()), off_a.data(),
          off_b.data(), data_strides[d]};
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Along an axis
// ------------------------------------------------------------------------------------------

SAMPAN_OP(core, index_select)
    .amp(AmpCast::Float32)  // its gradient accumulates (index_add / scatter_add)
    .doc("x at the positions `index` along `axis` (NumPy's take): the axis is replaced by the "
         "index's shape. Negative indices count from the end.")
    .args("x", "axis", "index")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t axis, const TensorSpec& index) {
      int64_t d = axis_of("index_select", axis, x.dim());
      check_index_dtype("index_select", index.dtype);
      return TensorSpec{take_shape(x.shape, d, index.shape), x.dtype, x.device};
    })
    .cpu([](const Tensor& x, int64_t axis, const Tensor& index, Tensor& out) {
      const int64_t d = normalize_axis(axis, x.dim());
      const AxisSplit s = split_at(x.shape(), d);
      auto idx = read_indices("index_select", index, s.n, axis);
      Tensor xc = x.contiguous();
      kernels::index_select_rows(xc.raw_data(), s.outer, s.n, s.inner, xc.itemsize(), idx.data(),
                                 static_cast<int64_t>(idx.size()), out.raw_data());
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // The CUDA twin: the index comes back to the host to be checked; the source row of each
    // output row is index_select_source_row, as on the CPU (../kernels/index_kernels.cu).
    .cuda([](const Tensor& x, int64_t axis, const Tensor& index, Tensor& out) {
      const char* op = "index_select";
      const int64_t d = normalize_axis(axis, x.dim());
      const AxisSplit s = split_at(x.shape(), d);
      auto idx = read_indices(op, cuda_support::index_to_host(op, "index", index), s.n, axis);
      cuda_support::require_contiguous(op, "x", x);
      cuda_support::run_device([&] {
        kernels::index_select_rows_cuda(x.raw_data(), s.outer, s.n, s.inner, x.itemsize(), idx.data(),
                                        static_cast<int64_t>(idx.size()), out.raw_data());
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), g = c.grad_output(0), index = c.input(2);
      const int64_t axis = c.attr<int64_t>(1);
      // Rows of a 1-D index with no negative entries: segment_sum writes each row once (zero,
      // then its sum, in index order: the same numbers) where index_add into zeros writes the
      // zeros, copies them and adds (three passes over the gradient's size).
      if (normalize_axis(axis, x.dim()) == 0 && index.dim() == 1 && index.device().type == DeviceType::CPU &&
          index.dtype() == DType::Int64 && index.is_contiguous()) {
        const int64_t* p = index.data<int64_t>();
        if (std::all_of(p, p + index.numel(), [](int64_t v) { return v >= 0; }))
          return {segment_sum(g, index, x.shape()[0]), Tensor()};
      }
      return {index_add(zeros(x.shape(), g.dtype()), axis, index, g), Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(1), from_vector({3, 0, 3, -2}, {4}, DType::Int64)}}; })
    .saves_for_vjp({"index"});

namespace {
void index_update_spec_check(const char* op, const TensorSpec& x, int64_t axis, const TensorSpec& index,
                               const TensorSpec& src) {
  int64_t d = axis_of(op, axis, x.dim());
  check_index_dtype(op, index.dtype);
  Shape want = take_shape(x.shape, d, index.shape);
  if (broadcast_shapes(src.shape, want) != want)
    SAMPAN_THROW(ValueError, op, ": src must have shape ", shape_str(want),
                 " (x's shape with axis ", d, " replaced by the index's shape ",
                 shape_str(index.shape), "), got ", shape_str(src.shape));
}

// out = x with rows index[j] along the axis updated by src's rows via `combine`.
template <class Visit, class Combine>
void index_update(const char* op, const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src,
                  Tensor& out, Visit visit, Combine combine) {
  const int64_t d = normalize_axis(axis, x.dim());
  const AxisSplit s = split_at(x.shape(), d);
  auto idx = read_indices(op, index, s.n, axis);
  copy_(out, x);
  Tensor sc = dense_as(src, take_shape(x.shape(), d, index.shape()), x.dtype());
  visit(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::index_update_rows(static_cast<T*>(out.raw_data()), s.outer, s.n, s.inner, idx.data(),
                               static_cast<int64_t>(idx.size()), static_cast<const T*>(sc.raw_data()), combine);
  });
}
}  // namespace

SAMPAN_OP(core, index_add)
    .amp(AmpCast::Float32)
    .doc("A copy of x with src's slices added at the positions `index` along `axis` (duplicates "
         "accumulate, in index order). src has x's shape with the axis replaced by the index's "
         "shape, or broadcasts to it.")
    .args("x", "axis", "index", "src")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t axis, const TensorSpec& index, const TensorSpec& src) {
      index_update_spec_check("index_add", x, axis, index, src);
      return x;
    })
    .cpu([](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Tensor& out) {
      index_update("index_add", x, axis, index, src, out,
                   [](DType t, const char* n, auto&& f) { visit_numeric(t, n, f); },
                   [](auto& dst, auto v) { kernels::fold_segment_sum(dst, v); });  // the CUDA twin's fold too
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // The CUDA twin (../kernels/index_kernels.cu), after prepare_cuda_row_update's host checks.
    .cuda([](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Tensor& out) {
      const char* op = "index_add";
      const CudaRowUpdate p = prepare_cuda_row_update(op, x, axis, index, src);
      cuda_support::visit_cuda_dtype(x.dtype(), op, false, [&](auto tag) {
        using T = typename decltype(tag)::type;
        cuda_support::run_device([&] {
          kernels::index_add_rows_cuda<T>(x.data<T>(), p.split.outer, p.split.n, p.split.inner, p.idx.data(),
                                          static_cast<int64_t>(p.idx.size()), src.data<T>(), out.data<T>());
        });
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      return {c.needs_grad(0) ? g : Tensor(), Tensor(),
              c.needs_grad(2) ? index_select(g, c.attr<int64_t>(1), c.input(2)) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(0), from_vector({2, 0, 2}, {3}, DType::Int64), f64({3, 4}, 0.9)}}; })
    .saves_for_vjp({"index"});

SAMPAN_OP(core, index_copy)
    .doc("A copy of x with src's slices written at the positions `index` along `axis` (for "
         "duplicate indices the last one wins). The functional form of `x[..., index] = src`.")
    .args("x", "axis", "index", "src")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t axis, const TensorSpec& index, const TensorSpec& src) {
      index_update_spec_check("index_copy", x, axis, index, src);
      return x;
    })
    .cpu([](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Tensor& out) {
      visit_itemsize(x.itemsize(), [&](auto tag) {
        using B = typename decltype(tag)::type;
        const int64_t d = normalize_axis(axis, x.dim());
        const AxisSplit s = split_at(x.shape(), d);
        auto idx = read_indices("index_copy", index, s.n, axis);
        copy_(out, x);
        Tensor sc = dense_as(src, take_shape(x.shape(), d, index.shape()), x.dtype());
        kernels::index_update_rows(static_cast<B*>(out.raw_data()), s.outer, s.n, s.inner, idx.data(),
                                   static_cast<int64_t>(idx.size()), static_cast<const B*>(sc.raw_data()),
                                   [](B& dst, const B& v) { kernels::fold_index_copy(dst, v); });  // the CUDA twin's fold too
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // The CUDA twin (../kernels/index_kernels.cu), after prepare_cuda_row_update's host checks.
    .cuda([](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Tensor& out) {
      const char* op = "index_copy";
      const CudaRowUpdate p = prepare_cuda_row_update(op, x, axis, index, src);
      cuda_support::run_device([&] {
        kernels::index_copy_rows_cuda(x.raw_data(), p.split.outer, p.split.n, p.split.inner, x.itemsize(), p.idx.data(),
                                      static_cast<int64_t>(p.idx.size()), src.raw_data(), out.raw_data());
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // With duplicate indices every duplicate receives the gradient of the written slot.
      Tensor g = c.grad_output(0);
      int64_t axis = c.attr<int64_t>(1);
      return {c.needs_grad(0) ? index_copy(g, axis, c.input(2), zeros({}, g.dtype())) : Tensor(), Tensor(),
              c.needs_grad(2) ? index_select(g, axis, c.input(2)) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(1), from_vector({3, 0}, {2}, DType::Int64), f64({3, 2}, 0.9)}}; })
    .saves_for_vjp({"index"});

SAMPAN_OP(core, gather)
    .amp(AmpCast::Float32)  // its gradient accumulates (index_add / scatter_add)
    .doc("out[i][j][k] = x[index[i][j][k]][j][k] for axis 0 (likewise for other axes): index has "
         "x's rank and, off the axis, sizes no larger than x's; out has the index's shape.")
    .args("x", "axis", "index")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t axis, const TensorSpec& index) {
      check_index_dtype("gather", index.dtype);
      check_gather_shapes("gather", x.shape, index.shape, axis);
      return TensorSpec{index.shape, x.dtype, x.device};
    })
    .cpu([](const Tensor& x, int64_t axis, const Tensor& index, Tensor& out) {
      const int64_t d = normalize_axis(axis, x.dim());
      auto idx = read_indices("gather", index, x.shape()[d], axis);
      std::vector<int64_t> off_a, off_b;
      auto L = axis_layout(index.shape(), d, x.strides(), off_a, off_b);
      visit_itemsize(x.itemsize(), [&](auto tag) {
        using B = typename decltype(tag)::type;
        kernels::gather_axis(static_cast<const B*>(x.raw_data()), L, idx.data(), static_cast<B*>(out.raw_data()));
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // The CUDA twin (../kernels/index_kernels.cu): the index comes back to the host to be checked
    // and wrapped; each output byte reads x at axis_element_target, the CPU loop's offset.
    .cuda([](const Tensor& x, int64_t axis, const Tensor& index, Tensor& out) {
      const char* op = "gather";
      const int64_t d = normalize_axis(axis, x.dim());
      auto idx = read_indices(op, cuda_support::index_to_host(op, "index", index), x.shape()[d], axis);
      cuda_support::require_contiguous(op, "x", x);
      std::vector<int64_t> off_a, off_b;
      auto L = axis_layout(index.shape(), d, x.strides(), off_a, off_b);
      cuda_support::run_device([&] {
        kernels::gather_axis_cuda(x.raw_data(), x.itemsize(), L.a, L.m, L.b, off_a.data(), off_b.data(), idx.data(),
                                  L.axis_stride, out.raw_data());
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), g = c.grad_output(0);
      return {scatter_add(zeros(x.shape(), g.dtype()), c.attr<int64_t>(1), c.input(2), g), Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(1), from_vector({0, 3, 3, 1, 2, 2}, {3, 2}, DType::Int64)}}; })
    .saves_for_vjp({"index"});

SAMPAN_OP(core, scatter_add)
    .amp(AmpCast::Float32)
    .doc("A copy of x with out[index[i][j]][j] += src[i][j] for axis 0 (likewise for other axes); "
         "src has (or broadcasts to) the index's shape. Duplicates accumulate in index order.")
    .args("x", "axis", "index", "src")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t axis, const TensorSpec& index, const TensorSpec& src) {
      check_index_dtype("scatter_add", index.dtype);
      check_gather_shapes("scatter_add", x.shape, index.shape, axis);
      if (broadcast_shapes(src.shape, index.shape) != index.shape)
        SAMPAN_THROW(ValueError, "scatter_add: src of shape ", shape_str(src.shape), " does not match the index's shape ",
                     shape_str(index.shape));
      return x;
    })
    .cpu([](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Tensor& out) {
      const int64_t d = normalize_axis(axis, x.dim());
      auto idx = read_indices("scatter_add", index, x.shape()[d], axis);
      copy_(out, x);
      Tensor sc = dense_as(src, index.shape(), x.dtype());
      std::vector<int64_t> off_a, off_b;
      auto L = axis_layout(index.shape(), d, out.strides(), off_a, off_b);
      visit_numeric(x.dtype(), "core::scatter_add", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::scatter_add_axis(static_cast<T*>(out.raw_data()), L, idx.data(), static_cast<const T*>(sc.raw_data()));
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // The CUDA twin (../kernels/index_kernels.cu): the index comes back to the host to be checked,
    // and the host groups its elements by the output element they add to (increasing position,
    // the CPU's order); src must already have the index's shape and x's dtype there.
    .cuda([](const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src, Tensor& out) {
      const char* op = "scatter_add";
      const int64_t d = normalize_axis(axis, x.dim());
      auto idx = read_indices(op, cuda_support::index_to_host(op, "index", index), x.shape()[d], axis);
      cuda_support::require_contiguous(op, "x", x);
      cuda_support::require_contiguous(op, "src", src);
      cuda_support::require_contiguous(op, "out", out);
      cuda_support::require_exact_src(op, index.shape(), x.dtype(), src);
      std::vector<int64_t> off_a, off_b;
      auto L = axis_layout(index.shape(), d, out.strides(), off_a, off_b);
      cuda_support::visit_cuda_dtype(x.dtype(), op, false, [&](auto tag) {
        using T = typename decltype(tag)::type;
        cuda_support::run_device([&] {
          kernels::scatter_add_axis_cuda<T>(x.data<T>(), out.numel(), L.a, L.m, L.b, off_a.data(), off_b.data(), idx.data(),
                                            L.axis_stride, src.data<T>(), out.data<T>());
        });
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      return {c.needs_grad(0) ? g : Tensor(), Tensor(),
              c.needs_grad(2) ? gather(g, c.attr<int64_t>(1), c.input(2)) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(0), from_vector({0, 2, 2, 0, 1, 1}, {2, 3}, DType::Int64), f64({2, 3}, 0.9)}}; })
    .saves_for_vjp({"index"});

// ------------------------------------------------------------------------------------------
// C++ API
// ------------------------------------------------------------------------------------------

Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index) {
  static OpHandle op("core::index_select");
  return op(x, axis, index)[0];
}
Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src) {
  static OpHandle op("core::index_add");
  return op(x, axis, index, src)[0];
}
Tensor index_copy(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src) {
  static OpHandle op("core::index_copy");
  return op(x, axis, index, src)[0];
}
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index) {
  static OpHandle op("core::gather");
  return op(x, axis, index)[0];
}
Tensor take_along_axis(const Tensor& x, const Tensor& index, int64_t axis) {
  // NumPy broadcasts the index against x off the axis; gather wants the sizes spelled out.
  SAMPAN_CHECK(index.dim() == x.dim(), ValueError, "take_along_axis: index must have the rank of x (", x.dim(), "), got shape ",
               shape_str(index.shape()));
  const int64_t d = normalize_axis(axis, x.dim());
  Shape want = x.shape();
  want[d] = index.shape()[d];
  return gather(x, d, broadcast_to(index, broadcast_shapes(index.shape(), want)));
}
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src) {
  static OpHandle op("core::scatter_add");
  return op(x, axis, index, src)[0];
}

}  // namespace sampan
