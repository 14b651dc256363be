// sampan: softmax and log_softmax along one axis (core::softmax, core::log_softmax).
//
// The kernels subtract the row maximum before exponentiating (kernels/axis_loop.h), so inputs
// in the thousands neither overflow nor lose the small entries. vjps are written with ops and
// use the forward output, so they are differentiable again.
#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/axis_loop.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

TensorSpec softmax_spec(const TensorSpec& x, int64_t axis) {
  if (is_complex(x.dtype) || x.dtype == DType::Float16 || x.dtype == DType::BFloat16)
    SAMPAN_THROW(TypeError, "argument 'x' has dtype ", dtype_name(x.dtype),
                 ", expected bool, int32, int64, float32 or float64");
  normalize_axis(axis, x.dim());
  return TensorSpec{x.shape, to_floating(x.dtype), x.device};
}

template <bool Log> void softmax_kernel(const Tensor& x, int64_t axis, Tensor& out) {
  Tensor xc = x.to(out.dtype()).contiguous();
  if (xc.numel() == 0) return;
  kernels::AxisSplit sp;  // a 0-d tensor is one line of one element
  if (xc.dim() > 0) sp = kernels::split_at_axis(xc.shape().data(), xc.dim(), normalize_axis(axis, xc.dim()));
  const int64_t outer = sp.outer, n = sp.n, inner = sp.inner;
  visit_floating(out.dtype(), Log ? "core::log_softmax" : "core::softmax", [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::softmax_axis(outer, n, inner, xc.data<T>(), out.data<T>(), Log);
  });
}

#if defined(SAMPAN_CUDA_KERNELS)
// On the GPU: the same stable recipe composed of ops with CUDA twins (the row maximum subtracted,
// exp, the sum along the axis), so CUDA's exp and the composition's rounding: the CPU's values
// to rounding.
template <bool Log> void softmax_on_cuda(const Tensor& x, int64_t axis, Tensor& out) {
  Tensor xc = x.to(out.dtype());
  if (xc.numel() == 0) return;
  if (xc.dim() == 0) {  // one line of one element: softmax 1, log_softmax 0
    copy_(out, scalar_tensor(Log ? 0.0 : 1.0, out.dtype(), out.device()));
    return;
  }
  const int64_t d = normalize_axis(axis, xc.dim());
  Tensor shifted = sub(xc, amax(xc, {d}, true));
  Tensor e = exp(shifted), total = sum(e, {d}, true);
  copy_(out, Log ? sub(shifted, log(total)) : div(e, total));
}
#endif

}  // namespace

SAMPAN_OP(core, softmax)
    .amp(AmpCast::Float32)
    .doc("exp(x) / sum(exp(x)) along `axis`, computed stably (the maximum is subtracted first).")
    .args("x", "axis")
    .defaults({{"axis", -1}})
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64})
    .shape(softmax_spec)
    .cpu(softmax_kernel<false>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(softmax_on_cuda<false>)
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // dy_i/dx_j = y_i (delta_ij - y_j): grad = y * (g - sum(g * y)).
      Tensor y = c.output(0), g = c.grad_output(0);
      return {mul(y, sub(g, sum(mul(g, y), {c.attr<int64_t>(1)}, true)))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), int64_t(1)}, {f64({2, 3}), int64_t(0)}}; })
    .saves_for_vjp({"out"});

SAMPAN_OP(core, log_softmax)
    .amp(AmpCast::Float32)
    .doc("x - logsumexp(x) along `axis`, computed stably; the log of softmax without its underflow.")
    .args("x", "axis")
    .defaults({{"axis", -1}})
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64})
    .shape(softmax_spec)
    .cpu(softmax_kernel<true>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(softmax_on_cuda<true>)
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // d(log y_i)/dx_j = delta_ij - y_j: grad = g - softmax * sum(g).
      Tensor y = c.output(0), g = c.grad_output(0);
      return {sub(g, mul(exp(y), sum(g, {c.attr<int64_t>(1)}, true)))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), int64_t(-1)}}; })
    .saves_for_vjp({"out"});

Tensor softmax(const Tensor& x, int64_t axis) {
  static OpHandle op("core::softmax");
  return op(x, axis)[0];
}
Tensor log_softmax(const Tensor& x, int64_t axis) {
  static OpHandle op("core::log_softmax");
  return op(x, axis)[0];
}

}  // namespace sampan
