// sampan: boolean masks (core::masked_select, masked_scatter, masked_fill). masked_select and
// masked_scatter are each other's gradients, so second derivatives come free.
#include <algorithm>
#include <cstring>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "index_support.h"
#include "../kernels/axis_loop.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

using detail::dense_as;
using detail::visit_itemsize;

void check_mask_dtype(const char* op, DType t) {
  if (t != DType::Bool) SAMPAN_THROW(TypeError, op, ": mask must be a bool tensor, got ", dtype_name(t));
}

}  // namespace


#if defined(SAMPAN_CUDA_KERNELS)
namespace {
// The positions where a mask is true, read on the host (their count sizes the result), as an
// int64 index tensor on `device`: the GPU twins gather and scatter through it, exactly.
Tensor true_positions(const Tensor& mask, const Shape& shape, const Device& device) {
  const Tensor m = to_device(contiguous(broadcast_to(mask, shape)), cpu_device());
  const bool* p = m.data<bool>();
  std::vector<int64_t> at;
  for (int64_t i = 0; i < m.numel(); ++i)
    if (p[i]) at.push_back(i);
  Tensor idx = Tensor::empty({static_cast<int64_t>(at.size())}, DType::Int64);
  std::copy(at.begin(), at.end(), idx.data<int64_t>());
  return to_device(idx, device);
}
}  // namespace
#endif

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
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& mask, Tensor& out) {
      const Shape b = broadcast_shapes(x.shape(), mask.shape());
      const Tensor flat = reshape(contiguous(broadcast_to(x, b)), {-1});
      out = index_select(flat, 0, true_positions(mask, b, x.device()));
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), mask = c.input(1), g = c.grad_output(0);
      Shape b = broadcast_shapes(x.shape(), mask.shape());
      return {masked_scatter(zeros(b, g.dtype(), g.device()), mask, g), Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), from_vector({1, 0, 1}, {3}, DType::Bool)}}; });

SAMPAN_OP(core, masked_scatter)
    .doc("A copy of x whose elements where `mask` (bool, broadcast to x) is true take src's "
         "elements in row-major order; src needs at least as many elements as the mask selects.")
    .args("x", "mask", "src")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& mask, const TensorSpec& src) {
      check_mask_dtype("masked_scatter", mask.dtype);
      if (broadcast_shapes(mask.shape, x.shape) != x.shape)
        SAMPAN_THROW(ValueError, "masked_scatter: mask of shape ", shape_str(mask.shape), " does not broadcast to x's shape ",
                     shape_str(x.shape));
      return x;
    })
    .cpu([](const Tensor& x, const Tensor& mask, const Tensor& src, Tensor& out) {
      Tensor mb = contiguous(broadcast_to(mask, x.shape()));
      const bool* m = mb.data<bool>();
      const int64_t n = mb.numel();
      int64_t count = 0;
      for (int64_t i = 0; i < n; ++i) count += m[i];
      SAMPAN_CHECK(count <= src.numel(), ValueError, "masked_scatter: the mask selects ", count, " elements but src has only ",
                   src.numel());
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
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& mask, const Tensor& src, Tensor& out) {
      const Tensor at = true_positions(mask, x.shape(), x.device());
      const int64_t count = at.numel();
      SAMPAN_CHECK(count <= src.numel(), ValueError, "masked_scatter: the mask selects ", count,
                   " elements but src has only ", src.numel());
      const Tensor values = slice(reshape(contiguous(src.to(x.dtype())), {-1}), 0, 0, count);
      copy_(out, reshape(index_copy(reshape(contiguous(x), {-1}), 0, at, values), x.shape()));
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor mask = c.input(1), src = c.input(2), g = c.grad_output(0);
      Grads r(3);
      if (c.needs_grad(0)) r[0] = masked_fill(g, mask, zeros({}, g.dtype(), g.device()));
      if (c.needs_grad(2)) {
        Tensor used = masked_select(g, broadcast_to(mask, g.shape()));
        // src elements past the selected count were never read: zero gradient.
        if (used.numel() != src.numel())
          used = slice_scatter(zeros({src.numel()}, g.dtype(), g.device()), used, 0, 0, used.numel(), 1);
        r[2] = reshape(used, src.shape());
      }
      return r;
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), from_vector({1, 0, 1}, {3}, DType::Bool), f64({5}, 0.9)}}; });

SAMPAN_OP(core, masked_fill)
    .doc("A copy of x with `value` (a tensor broadcast to x, usually 0-d) where `mask` is true: "
         "the functional form of `x[mask] = value`.")
    .args("x", "mask", "value")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& mask, const TensorSpec& value) {
      check_mask_dtype("masked_fill", mask.dtype);
      if (broadcast_shapes(mask.shape, x.shape) != x.shape)
        SAMPAN_THROW(ValueError, "masked_fill: mask of shape ", shape_str(mask.shape), " does not broadcast to x's shape ",
                     shape_str(x.shape));
      if (broadcast_shapes(value.shape, x.shape) != x.shape)
        SAMPAN_THROW(ValueError, "masked_fill: value of shape ", shape_str(value.shape), " does not broadcast to x's shape ",
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
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& mask, const Tensor& value, Tensor& out) {  // a selection: exact
      copy_(out, where(mask, value.to(x.dtype()), x));
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      Tensor gx = masked_fill(g, c.input(1), zeros({}, g.dtype(), g.device()));
      // value receives what x does not: g where the mask is set (summed to value's shape).
      return {c.needs_grad(0) ? gx : Tensor(), Tensor(), c.needs_grad(2) ? sub(g, gx) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), from_vector({1, 0, 1}, {3}, DType::Bool), f64({}, 0.9)}}; });

// ------------------------------------------------------------------------------------------
// C++ API
// ------------------------------------------------------------------------------------------

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

}  // namespace sampan
