// sampan: dtype conversion and copies (core::cast, core::clone, core::copy_).
#include "sampan/cuda.h"
#include "sampan/ops.h"
#include "elementwise_support.h"
#include "elementwise_cuda.h"
#include "sample_support.h"
#include "../kernels/bf16_convert.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

// dst[i] = convert(src[i]) with src broadcast to dst's shape, any layouts, any dtypes.
void convert_into(const Tensor& src, const Tensor& dst) {
  // autocast's casts: contiguous float32 <-> bfloat16 of one shape, through the vectorized kernel.
  if (src.is_contiguous() && dst.is_contiguous() && src.shape() == dst.shape()) {
    if (src.dtype() == DType::Float32 && dst.dtype() == DType::BFloat16)
      return kernels::float_to_bfloat16(static_cast<const float*>(src.raw_data()),
                                        static_cast<BFloat16*>(dst.raw_data()), dst.numel());
    if (src.dtype() == DType::BFloat16 && dst.dtype() == DType::Float32)
      return kernels::bfloat16_to_float(static_cast<const BFloat16*>(src.raw_data()),
                                        static_cast<float*>(dst.raw_data()), dst.numel());
  }
  visit_all(src.dtype(), "copy", [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    visit_all(dst.dtype(), "copy", [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      detail::unary_loop<In, Out>(src, dst, [](In v) { return detail::convert_value<Out>(v); });
    });
  });
}

// out = x, byte for byte, between any two devices (out was allocated on the target device).
void transfer(const Tensor& x, Tensor& out) {
  const Tensor src = contiguous(x);  // a strided GPU tensor through clone's CUDA kernel
  cuda::copy_bytes(out.raw_data(), out.device().is_cuda(), src.raw_data(), src.device().is_cuda(), out.nbytes());
}

}  // namespace

SAMPAN_OP(core, to_device)
    .doc("A copy of `x` on `device` ('cpu', 'cuda' or 'cuda:0'); the gradient returns to x's device.")
    .args("x", "device")
    .outputs("out")
    .transfers_device()
    .shape([](const TensorSpec& x, const std::string& device) {
      return TensorSpec{x.shape, x.dtype, Device::parse(device)};
    })
    .cpu([](const Tensor& x, const std::string&, Tensor& out) { transfer(x, out); })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const std::string&, Tensor& out) { transfer(x, out); })
#endif
    .vjp([](const VjpContext& c) -> Grads { return {to_device(c.grad_output(0), c.input(0).device())}; })
    .samples([] { return std::vector<Values>{{f64({2, 3}), std::string("cpu")}, {c128({4}), std::string("cpu")}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, cast)
    .doc("Converts `x` to `dtype` (NumPy names: 'float32', 'complex128' ...).")
    .args("x", "dtype")
    .outputs("out")
    .shape([](const TensorSpec& x, const std::string& dtype) {
      return TensorSpec{x.shape, dtype_from_name(dtype), x.device};
    })
    .cpu([](const Tensor& x, const std::string&, Tensor& out) { convert_into(x, out); })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const std::string&, Tensor& out) { detail::convert_on_cuda("core::cast", x, out); })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // The engine converts back to the input dtype (keeping the real part for real inputs).
      return {c.grad_output(0)};
    })
    .samples([] { return std::vector<Values>{{f64({3}), std::string("float64")}, {c128({2}), std::string("complex128")}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, clone)
    .doc("A contiguous copy of `x` that stays in the autograd graph.")
    .args("x")
    .outputs("out")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) { convert_into(x, out); })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) { detail::convert_on_cuda("core::clone", x, out); })
#endif
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0)}; })
    .samples([] { return std::vector<Values>{{f64({2, 2})}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, copy_)
    .doc("Writes `src` (broadcast, converted to dst's dtype) into `dst` in place.")
    .args("dst", "src")
    .outputs("dst")
    .inplace(0, 0)
    .shape([](const TensorSpec& dst, const TensorSpec& src) {
      if (broadcast_shapes(src.shape, dst.shape) != dst.shape)
        SAMPAN_THROW(ValueError, "cannot copy a tensor of shape ", shape_str(src.shape), " into shape ",
                     shape_str(dst.shape));
      return dst;
    })
    .cpu([](const Tensor&, const Tensor& src, Tensor& dst) {
      if (src.shares_storage(dst)) {
        Tensor tmp = clone(src);
        convert_into(tmp, dst);
      } else {
        convert_into(src, dst);
      }
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor&, const Tensor& src, Tensor& dst) {  // src on the GPU too (one device per call)
      detail::convert_on_cuda("core::copy_", src.shares_storage(dst) ? clone(src) : src, dst);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // dst is overwritten: no gradient to its old value; src receives the gradient.
      return {Tensor(), c.grad_output(0)};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; })
    .saves_for_vjp({});

Tensor to_device(const Tensor& x, Device device) {
  static OpHandle op("core::to_device");
  return op(x, device.str())[0];
}
Tensor cast(const Tensor& x, DType dtype) {
  static OpHandle op("core::cast");
  return op(x, std::string(dtype_name(dtype)))[0];
}
Tensor clone(const Tensor& x) {
  static OpHandle op("core::clone");
  return op(x)[0];
}
Tensor fill_(const Tensor& x, double value) { return copy_(x, scalar_tensor(value, x.dtype(), x.device())); }
Tensor zero_(const Tensor& x) { return fill_(x, 0.0); }
Tensor contiguous(const Tensor& x) { return x.is_contiguous() ? x : clone(x); }
Tensor copy_(const Tensor& dst, const Tensor& src) {
  static OpHandle op("core::copy_");
  return op(dst, src)[0];
}

}  // namespace sampan
