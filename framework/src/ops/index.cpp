// sampan: indexing along an axis (core::index_select, index_add, index_copy, gather,
// scatter_add), boolean masks (masked_select, masked_scatter, masked_fill) and assembling
// tensors (concat, stack, pad, repeat_index). The C++ compositions on top (split, tile,
// repeat_interleave, take_along_axis, reflect padding) sit at the end of the file.
//
// Integer indices may be int32 or int64; negative entries count from the end (NumPy); anything
// outside [-size, size) raises IndexError naming the index, its position, the axis and its size.
// Every gradient is written with these same ops (index_select <-> index_add, gather <->
// scatter_add, masked_select <-> masked_scatter), so second derivatives come free.
#include <algorithm>
#include <cstring>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/axis_loop.h"
#include "../kernels/index_kernels.h"
#include "../kernels/segment_fold.h"
#include "cuda_support.h"

namespace sampan {

namespace {

using kernels::AxisSplit;
AxisSplit split_at(const Shape& s, int64_t d) {
  return kernels::split_at_axis(s.data(), static_cast<int64_t>(s.size()), d);
}

int64_t axis_of(const char* op, int64_t axis, int64_t ndim) {
  if (ndim == 0) throw IndexError(std::string(op) + ": a 0-d tensor has no axis " + std::to_string(axis));
  return normalize_axis(axis, ndim);
}

void check_index_dtype(const char* op, DType t) {
  if (!is_integral(t))
    throw TypeError(std::string(op) + ": index must be an int32 or int64 tensor, got " + dtype_name(t));
}
void check_mask_dtype(const char* op, DType t) {
  if (t != DType::Bool) throw TypeError(std::string(op) + ": mask must be a bool tensor, got " + dtype_name(t));
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
      throw IndexError(std::string(op) + ": index " + std::to_string(v) + " (at position " + std::to_string(k) +
                       " of the index) is out of range for axis " + std::to_string(axis) + " of size " +
                       std::to_string(size));
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

// One element type per item size: data movement does not care what the bytes mean.
struct Bytes16 { uint64_t lo, hi; };
template <class F> void visit_itemsize(size_t size, F f) {
  switch (size) {
    case 1: return f(type_tag<uint8_t>{});
    case 2: return f(type_tag<uint16_t>{});
    case 4: return f(type_tag<uint32_t>{});
    case 8: return f(type_tag<uint64_t>{});
    case 16: return f(type_tag<Bytes16>{});
  }
  throw NotImplementedError("no copy kernel for elements of " + std::to_string(size) + " bytes");
}

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
  if (index.size() != x.size())
    throw ValueError(std::string(op) + ": index must have the rank of x (" + std::to_string(x.size()) +
                     "), got shape " + shape_str(index));
  for (size_t i = 0; i < x.size(); ++i)
    if (static_cast<int64_t>(i) != d && index[i] > x[i])
      throw ValueError(std::string(op) + ": index of shape " + shape_str(index) + " does not fit x of shape " +
                       shape_str(x) + " at dimension " + std::to_string(i) + " (only the axis " +
                       std::to_string(d) + " may be larger)");
  return d;
}

kernels::AxisIndexLayout axis_layout(const Shape& index, int64_t d, const Shape& data_strides,
                                     std::vector<int64_t>& off_a, std::vector<int64_t>& off_b) {
  off_a = offsets_over(index, data_strides, 0, d);
  off_b = offsets_over(index, data_strides, d + 1, static_cast<int64_t>(index.size()));
  return {static_cast<int64_t>(off_a.size()), index[d], static_cast<int64_t>(off_b.size()), off_a.data(),
          off_b.data(), data_strides[d]};
}

// Validates that `t` broadcasts to `want` and returns the contiguous broadcast, converted.
Tensor dense_as(const Tensor& t, const Shape& want, DType dtype) {
  return contiguous(broadcast_to(t.to(dtype), want));
}

// The interior of a padded tensor: x's region inside `out`.
Tensor unpad(const Tensor& g, const std::vector<int64_t>& pads) {
  Tensor r = g;
  for (int64_t d = 0; d < g.dim(); ++d) {
    int64_t before = pads[2 * d], after = pads[2 * d + 1];
    if (before || after) r = slice(r, d, before, g.shape()[d] - after, 1);
  }
  return r;
}

void check_pads(const Shape& x, const std::vector<int64_t>& pads) {
  if (pads.size() != 2 * x.size())
    throw ValueError("pad: pads must hold (before, after) for each of the " + std::to_string(x.size()) +
                     " dimensions, i.e. " + std::to_string(2 * x.size()) + " numbers, got " + std::to_string(pads.size()));
  for (size_t i = 0; i < pads.size(); ++i)
    if (pads[i] < 0) throw ValueError("pad: pad widths must be >= 0, got " + std::to_string(pads[i]) + " at position " + std::to_string(i));
}

}  // namespace

// ------------------------------------------------------------------------------------------
// Along an axis
// ------------------------------------------------------------------------------------------

SAMPAN_OP(core, index_select)
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
    });

namespace {
void index_update_spec_check(const char* op, const TensorSpec& x, int64_t axis, const TensorSpec& index,
                               const TensorSpec& src) {
  int64_t d = axis_of(op, axis, x.dim());
  check_index_dtype(op, index.dtype);
  Shape want = take_shape(x.shape, d, index.shape);
  if (broadcast_shapes(src.shape, want) != want)
    throw ValueError(std::string(op) + ": src must have shape " + shape_str(want) +
                     " (x's shape with axis " + std::to_string(d) + " replaced by the index's shape " +
                     shape_str(index.shape) + "), got " + shape_str(src.shape));
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
    });

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
    });

SAMPAN_OP(core, gather)
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
    });

SAMPAN_OP(core, scatter_add)
    .doc("A copy of x with out[index[i][j]][j] += src[i][j] for axis 0 (likewise for other axes); "
         "src has (or broadcasts to) the index's shape. Duplicates accumulate in index order.")
    .args("x", "axis", "index", "src")
    .outputs("out")
    .shape([](const TensorSpec& x, int64_t axis, const TensorSpec& index, const TensorSpec& src) {
      check_index_dtype("scatter_add", index.dtype);
      check_gather_shapes("scatter_add", x.shape, index.shape, axis);
      if (broadcast_shapes(src.shape, index.shape) != index.shape)
        throw ValueError("scatter_add: src of shape " + shape_str(src.shape) + " does not match the index's shape " +
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
    });

// ------------------------------------------------------------------------------------------
// Boolean masks
// ------------------------------------------------------------------------------------------

SAMPAN_OP(core, masked_select)
    .doc("The elements of x where `mask` (bool, broadcast with x) is true, as a 1-D tensor in "
         "row-major order. Its length depends on the data.")
    .args("x", "mask")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& mask) {
      check_mask_dtype("masked_select", mask.dtype);
      broadcast_shapes(x.shape, mask.shape);
      return TensorSpec{{-1}, x.dtype, x.device};
    })
    .cpu([](const Tensor& x, const Tensor& mask, Tensor& out) {
      Shape b = broadcast_shapes(x.shape(), mask.shape());
      Tensor xb = contiguous(broadcast_to(x, b)), mb = contiguous(broadcast_to(mask, b));
      const bool* m = mb.data<bool>();
      const int64_t n = mb.numel();
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += m[i];
      out = Tensor::empty({count}, x.dtype(), x.device());
      visit_itemsize(x.itemsize(), [&](auto tag) {
        using B = typename decltype(tag)::type;
        const B* src = static_cast<const B*>(xb.raw_data());
        B* dst = static_cast<B*>(out.raw_data());
        for (int64_t i = 0, k = 0; i < n; ++i)
          if (m[i]) dst[k++] = src[i];
      });
    })
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), mask = c.input(1), g = c.grad_output(0);
      Shape b = broadcast_shapes(x.shape(), mask.shape());
      return {masked_scatter(zeros(b, g.dtype()), mask, g), Tensor()};
    });

SAMPAN_OP(core, masked_scatter)
    .doc("A copy of x whose elements where `mask` (bool, broadcast to x) is true take src's "
         "elements in row-major order; src needs at least as many elements as the mask selects.")
    .args("x", "mask", "src")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& mask, const TensorSpec& src) {
      check_mask_dtype("masked_scatter", mask.dtype);
      if (broadcast_shapes(mask.shape, x.shape) != x.shape)
        throw ValueError("masked_scatter: mask of shape " + shape_str(mask.shape) + " does not broadcast to x's shape " +
                         shape_str(x.shape));
      return x;
    })
    .cpu([](const Tensor& x, const Tensor& mask, const Tensor& src, Tensor& out) {
      Tensor mb = contiguous(broadcast_to(mask, x.shape()));
      const bool* m = mb.data<bool>();
      const int64_t n = mb.numel();
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += m[i];
      if (count > src.numel())
        throw ValueError("masked_scatter: the mask selects " + std::to_string(count) + " elements but src has only " +
                         std::to_string(src.numel()));
      copy_(out, x);
      Tensor sc = contiguous(src.to(x.dtype()));
      visit_itemsize(x.itemsize(), [&](auto tag) {
        using B = typename decltype(tag)::type;
        const B* s = static_cast<const B*>(sc.raw_data());
        B* dst = static_cast<B*>(out.raw_data());
        for (int64_t i = 0, k = 0; i < n; ++i)
          if (m[i]) dst[i] = s[k++];
      });
    })
    .vjp([](const VjpContext& c) -> Grads {
      Tensor mask = c.input(1), src = c.input(2), g = c.grad_output(0);
      Grads r(3);
      if (c.needs_grad(0)) r[0] = masked_fill(g, mask, zeros({}, g.dtype()));
      if (c.needs_grad(2)) {
        Tensor used = masked_select(g, broadcast_to(mask, g.shape()));
        // src elements past the selected count were never read: zero gradient.
        if (used.numel() != src.numel())
          used = slice_scatter(zeros({src.numel()}, g.dtype()), used, 0, 0, used.numel(), 1);
        r[2] = reshape(used, src.shape());
      }
      return r;
    });

SAMPAN_OP(core, masked_fill)
    .doc("A copy of x with `value` (a tensor broadcast to x, usually 0-d) where `mask` is true: "
         "the functional form of `x[mask] = value`.")
    .args("x", "mask", "value")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& mask, const TensorSpec& value) {
      check_mask_dtype("masked_fill", mask.dtype);
      if (broadcast_shapes(mask.shape, x.shape) != x.shape)
        throw ValueError("masked_fill: mask of shape " + shape_str(mask.shape) + " does not broadcast to x's shape " +
                         shape_str(x.shape));
      if (broadcast_shapes(value.shape, x.shape) != x.shape)
        throw ValueError("masked_fill: value of shape " + shape_str(value.shape) + " does not broadcast to x's shape " +
                         shape_str(x.shape));
      return x;
    })
    .cpu([](const Tensor& x, const Tensor& mask, const Tensor& value, Tensor& out) {
      Tensor mb = contiguous(broadcast_to(mask, x.shape()));
      Tensor vb = dense_as(value, x.shape(), x.dtype());
      copy_(out, x);
      const bool* m = mb.data<bool>();
      visit_itemsize(x.itemsize(), [&](auto tag) {
        using B = typename decltype(tag)::type;
        const B* v = static_cast<const B*>(vb.raw_data());
        B* dst = static_cast<B*>(out.raw_data());
        const int64_t n = out.numel();
#pragma omp parallel for if (n > kernels::kParallelGrain) schedule(static)
        for (int64_t i = 0; i < n; ++i)
          if (m[i]) dst[i] = v[i];
      });
    })
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      Tensor gx = masked_fill(g, c.input(1), zeros({}, g.dtype()));
      // value receives what x does not: g where the mask is set (summed to value's shape).
      return {c.needs_grad(0) ? gx : Tensor(), Tensor(), c.needs_grad(2) ? sub(g, gx) : Tensor()};
    });

// ------------------------------------------------------------------------------------------
// Assembling
// ------------------------------------------------------------------------------------------

namespace {
Shape concat_shape(const std::vector<TensorSpec>& ts, int64_t axis, int64_t& d, DType& dtype) {
  if (ts.empty()) throw ValueError("concat: needs at least one tensor");
  const Shape& first = ts[0].shape;
  d = axis_of("concat", axis, static_cast<int64_t>(first.size()));
  Shape out = first;
  out[d] = 0;
  dtype = ts[0].dtype;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Shape& s = ts[i].shape;
    bool ok = s.size() == first.size();
    for (size_t k = 0; ok && k < s.size(); ++k) ok = static_cast<int64_t>(k) == d || s[k] == first[k];
    if (!ok)
      throw ValueError("concat along axis " + std::to_string(axis) + ": tensor " + std::to_string(i) + " has shape " +
                       shape_str(s) + " but tensor 0 has shape " + shape_str(first) +
                       " (all sizes must match except along the axis)");
    out[d] += s[d];
    dtype = promote_types(dtype, ts[i].dtype);
  }
  return out;
}

int64_t stack_axis(int64_t axis, int64_t ndim) {
  if (axis < -(ndim + 1) || axis > ndim)
    throw IndexError("stack: axis " + std::to_string(axis) + " is out of range for inputs of rank " + std::to_string(ndim) +
                     " (expected " + std::to_string(-(ndim + 1)) + ".." + std::to_string(ndim) + ")");
  return axis < 0 ? axis + ndim + 1 : axis;
}
}  // namespace

SAMPAN_OP(core, concat)
    .doc("Joins tensors along an existing `axis`; sizes must match elsewhere; dtypes promote.")
    .args("tensors", "axis")
    .outputs("out")
    .shape([](const std::vector<TensorSpec>& ts, int64_t axis) {
      int64_t d;
      DType t;
      Shape s = concat_shape(ts, axis, d, t);
      return TensorSpec{s, t, ts[0].device};
    })
    .cpu([](const std::vector<Tensor>& ts, int64_t axis, Tensor& out) {
      const int64_t d = normalize_axis(axis, out.dim());
      int64_t off = 0;
      for (const Tensor& t : ts) {
        Tensor dst(out.storage(), t.shape(), out.strides(), out.offset() + off * out.strides()[d], out.dtype());
        copy_(dst, t);
        off += t.shape()[d];
      }
    })
    .vjp([](const VjpContext& c) -> Grads {
      auto ts = c.inputs(0);
      Tensor g = c.grad_output(0);
      const int64_t d = normalize_axis(c.attr<int64_t>(1), g.dim());
      Grads r;
      int64_t off = 0;
      for (size_t i = 0; i < ts.size(); ++i) {
        const int64_t n = ts[i].shape()[d];
        r.push_back(c.needs_grad(i) ? slice(g, d, off, off + n, 1) : Tensor());
        off += n;
      }
      return r;
    });

SAMPAN_OP(core, stack)
    .doc("Joins tensors of one shape along a new `axis` (in -(rank+1) .. rank); dtypes promote.")
    .args("tensors", "axis")
    .outputs("out")
    .shape([](const std::vector<TensorSpec>& ts, int64_t axis) {
      if (ts.empty()) throw ValueError("stack: needs at least one tensor");
      DType t = ts[0].dtype;
      for (size_t i = 0; i < ts.size(); ++i) {
        if (ts[i].shape != ts[0].shape)
          throw ValueError("stack: tensor " + std::to_string(i) + " has shape " + shape_str(ts[i].shape) +
                           " but tensor 0 has shape " + shape_str(ts[0].shape));
        t = promote_types(t, ts[i].dtype);
      }
      Shape s = ts[0].shape;
      s.insert(s.begin() + stack_axis(axis, ts[0].dim()), static_cast<int64_t>(ts.size()));
      return TensorSpec{s, t, ts[0].device};
    })
    .cpu([](const std::vector<Tensor>& ts, int64_t axis, Tensor& out) {
      const int64_t d = stack_axis(axis, ts[0].dim());
      Shape st = out.strides();
      st.erase(st.begin() + d);
      for (size_t i = 0; i < ts.size(); ++i) {
        Tensor dst(out.storage(), ts[i].shape(), st, out.offset() + static_cast<int64_t>(i) * out.strides()[d], out.dtype());
        copy_(dst, ts[i]);
      }
    })
    .vjp([](const VjpContext& c) -> Grads {
      auto ts = c.inputs(0);
      Tensor g = c.grad_output(0);
      const int64_t d = stack_axis(c.attr<int64_t>(1), ts[0].dim());
      Grads r;
      for (size_t i = 0; i < ts.size(); ++i) r.push_back(c.needs_grad(i) ? select(g, d, static_cast<int64_t>(i)) : Tensor());
      return r;
    });

SAMPAN_OP(core, pad)
    .doc("x surrounded by `value`: pads = (before_0, after_0, before_1, after_1, ...) for every "
         "dimension, each >= 0 (constant mode; see sampan::pad for reflect/replicate/circular).")
    .args("x", "pads", "value")
    .outputs("out")
    .shape([](const TensorSpec& x, const std::vector<int64_t>& pads, double) {
      check_pads(x.shape, pads);
      Shape s = x.shape;
      for (size_t d = 0; d < s.size(); ++d) s[d] += pads[2 * d] + pads[2 * d + 1];
      return TensorSpec{s, x.dtype, x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& pads, double value, Tensor& out) {
      copy_(out, scalar_tensor(value, x.dtype()));
      copy_(unpad(out, pads), x);
    })
    .vjp([](const VjpContext& c) -> Grads { return {unpad(c.grad_output(0), c.attr<std::vector<int64_t>>(1))}; });

SAMPAN_OP(core, repeat_index)
    .doc("[0]*repeats[0] + [1]*repeats[1] + ... as int64: the index behind repeat_interleave. Its "
         "length depends on the data.")
    .args("repeats")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& repeats) {
      check_index_dtype("repeat_index", repeats.dtype);
      if (repeats.dim() != 1) throw ValueError("repeat_index: repeats must be 1-D, got shape " + shape_str(repeats.shape));
      return TensorSpec{{-1}, DType::Int64, repeats.device};
    })
    .cpu([](const Tensor& repeats, Tensor& out) {
      Tensor r = cast(repeats, DType::Int64).contiguous();
      const int64_t* p = r.data<int64_t>();
      int64_t total = 0;
      for (int64_t i = 0; i < r.numel(); ++i) {
        if (p[i] < 0)
          throw ValueError("repeat_index: repeats must be >= 0, got " + std::to_string(p[i]) + " at position " + std::to_string(i));
        total += p[i];
      }
      out = Tensor::empty({total}, DType::Int64, repeats.device());
      int64_t* o = out.data<int64_t>();
      for (int64_t i = 0, k = 0; i < r.numel(); ++i)
        for (int64_t j = 0; j < p[i]; ++j) o[k++] = i;
    });

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
  if (index.dim() != x.dim())
    throw ValueError("take_along_axis: index must have the rank of x (" + std::to_string(x.dim()) + "), got shape " +
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
Tensor masked_select(const Tensor& x, const Tensor& mask) {
  static OpHandle op("core::masked_select");
  return op(x, mask)[0];
}
Tensor masked_scatter(const Tensor& x, const Tensor& mask, const Tensor& src) {
  static OpHandle op("core::masked_scatter");
  return op(x, mask, src)[0];
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value) {
  static OpHandle op("core::masked_fill");
  return op(x, mask, value)[0];
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  return masked_fill(x, mask, scalar_tensor(value, x.dtype(), x.device()));
}
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis) {
  static OpHandle op("core::concat");
  return op(tensors, axis)[0];
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t axis) {
  static OpHandle op("core::stack");
  return op(tensors, axis)[0];
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  const int64_t d = axis_of("split", axis, x.dim());
  int64_t total = 0;
  for (auto s : sizes) {
    if (s < 0) throw ValueError("split: sizes must be >= 0, got " + std::to_string(s));
    total += s;
  }
  if (total != x.shape()[d])
    throw ValueError("split: sizes add up to " + std::to_string(total) + " but axis " + std::to_string(axis) +
                     " has size " + std::to_string(x.shape()[d]));
  std::vector<Tensor> r;
  int64_t off = 0;
  for (auto s : sizes) {
    r.push_back(slice(x, d, off, off + s, 1));
    off += s;
  }
  return r;
}
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t axis) {
  const int64_t d = axis_of("split", axis, x.dim());
  if (split_size <= 0) throw ValueError("split: split_size must be > 0, got " + std::to_string(split_size));
  const int64_t n = x.shape()[d];
  std::vector<int64_t> sizes;
  for (int64_t off = 0; off < n; off += split_size) sizes.push_back(std::min(split_size, n - off));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, d);
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis) {
  if (chunks <= 0) throw ValueError("chunk: chunks must be > 0, got " + std::to_string(chunks));
  const int64_t n = x.size(axis);
  return split(x, std::max<int64_t>((n + chunks - 1) / chunks, 1), axis);
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, double value) {
  if (mode == "constant") {
    static OpHandle op("core::pad");
    return op(x, pads, value)[0];
  }
  check_pads(x.shape(), pads);
  if (mode != "reflect" && mode != "replicate" && mode != "circular")
    throw ValueError("pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got '" + mode + "'");
  // The other modes are a gather per padded dimension, so their gradient is index_add's.
  Tensor r = x;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t before = pads[2 * d], after = pads[2 * d + 1], n = x.shape()[d];
    if (!before && !after) continue;
    if (n == 0) throw ValueError("pad: cannot " + mode + "-pad dimension " + std::to_string(d) + " of size 0");
    Tensor idx = Tensor::empty({before + n + after}, DType::Int64);
    int64_t* p = idx.data<int64_t>();
    for (int64_t i = -before; i < n + after; ++i) {
      int64_t j;
      if (mode == "replicate") {
        j = std::min(std::max<int64_t>(i, 0), n - 1);
      } else if (mode == "circular") {
        j = ((i % n) + n) % n;
      } else {  // reflect about the edge elements without repeating them (NumPy 'reflect')
        const int64_t period = 2 * (n - 1);
        j = period == 0 ? 0 : ((i % period) + period) % period;
        if (j >= n) j = period - j;
      }
      p[i + before] = j;
    }
    r = index_select(r, d, idx);
  }
  return r;
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  for (auto r : reps)
    if (r < 0) throw ValueError("tile: repetitions must be >= 0, got " + std::to_string(r));
  const size_t nd = std::max(reps.size(), static_cast<size_t>(x.dim()));
  std::vector<int64_t> rp(nd - reps.size(), 1);
  rp.insert(rp.end(), reps.begin(), reps.end());
  Shape xs(nd - x.dim(), 1);
  xs.insert(xs.end(), x.shape().begin(), x.shape().end());
  // [s0, s1] -> [1, s0, 1, s1] -> broadcast [r0, s0, r1, s1] -> [r0*s0, r1*s1]
  Shape inter, expanded, out;
  for (size_t d = 0; d < nd; ++d) {
    inter.insert(inter.end(), {1, xs[d]});
    expanded.insert(expanded.end(), {rp[d], xs[d]});
    out.push_back(rp[d] * xs[d]);
  }
  return reshape(broadcast_to(reshape(x, inter), expanded), out);
}

Tensor repeat_interleave(const Tensor& x, int64_t repeats, int64_t axis) {
  if (repeats < 0) throw ValueError("repeat_interleave: repeats must be >= 0, got " + std::to_string(repeats));
  const int64_t d = axis_of("repeat_interleave", axis, x.dim());
  // [.., n, ..] -> [.., n, 1, ..] -> broadcast [.., n, r, ..] -> [.., n*r, ..]
  Shape expanded = x.shape();
  expanded.insert(expanded.begin() + d + 1, repeats);
  Shape out = x.shape();
  out[d] *= repeats;
  return reshape(broadcast_to(unsqueeze(x, d + 1), expanded), out);
}
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, int64_t axis) {
  const int64_t d = axis_of("repeat_interleave", axis, x.dim());
  Tensor r = repeats.dim() == 0 ? reshape(repeats, {1}) : repeats;
  if (r.numel() == 1 && x.shape()[d] != 1) r = broadcast_to(r, {x.shape()[d]});
  if (r.dim() != 1 || r.numel() != x.shape()[d])
    throw ValueError("repeat_interleave: repeats of shape " + shape_str(repeats.shape()) + " does not match axis " +
                     std::to_string(axis) + " of size " + std::to_string(x.shape()[d]));
  static OpHandle op("core::repeat_index");
  return index_select(x, d, op(r)[0]);
}

}  // namespace sampan
