// sampan: activation functions (core::sigmoid, relu, gelu, silu, softplus, clamp and the
// in-place relu_, clamp_; relu_backward, relu's gradient in one pass). Same dtype rules and vjp
// conventions as unary.cpp.
#include <cmath>
#include <limits>
#include <type_traits>

#include "unary_support.h"
#include "elementwise_cuda.h"
#include "../kernels/math_element.h"
#include "../kernels/unary_element.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

using kernels::kSqrtHalf;  // 1 / sqrt(2)
constexpr double kInvSqrtTwoPi = 0.39894228040143267794;  // 1 / sqrt(2 pi), the normal density at 0

using Sigmoid = kernels::SigmoidElement;  // kernels/math_element.h, shared with the CUDA twins
using Relu = kernels::ReluElement;  // NaN propagates; shared with the CUDA twin (kernels/unary_element.h)
using Gelu = kernels::GeluElement;  // the exact GELU x * Phi(x)
using Silu = kernels::SiluElement;

using ReluBackward = kernels::ReluBackwardElement;  // grad where x > 0, else 0 (NaN in x passes none)

Tensor relu_backward(const Tensor& x, const Tensor& g) {
  static OpHandle op("core::relu_backward");
  return op(x, g)[0];
}

// One pass (core::relu_backward) instead of a comparison into a bool tensor and a select: relu's
// gradient runs once per layer and training step over the widest activations. It reads the
// output (out > 0 exactly where x > 0), so the tape need not keep relu's input alive too.
// The output gradient is handed over, so relu_backward may write over its buffer.
Grads relu_vjp(const VjpContext& c) {
  static OpHandle op("core::relu_backward");
  return {op(c.output(0), c.take_grad_output(0))[0]};
}

// ---- clamp: NaN bounds mean "no bound" (the C++ API maps std::nullopt to NaN) ----

bool fractional(double b) { return std::isfinite(b) && b != std::trunc(b); }

TensorSpec clamp_spec(const TensorSpec& x, double min, double max) {
  detail::real_numeric_unary_spec(x);
  if (std::isnan(min) && std::isnan(max))
    SAMPAN_THROW(ValueError, "clamp needs at least one bound: 'min' and 'max' are both absent (NaN)");
  // An integer tensor clamped to a fractional bound gives float32, as a Python float scalar would.
  DType d = is_integral(x.dtype) && (fractional(min) || fractional(max)) ? DType::Float32 : x.dtype;
  return TensorSpec{x.shape, d, x.device};
}

TensorSpec clamp_inplace_spec(const TensorSpec& x, double min, double max) {
  TensorSpec s = clamp_spec(x, min, max);
  SAMPAN_CHECK(s.dtype == x.dtype, TypeError, "in-place clamp of a ", dtype_name(x.dtype),
               " tensor to fractional bounds would give ", dtype_name(s.dtype),
               "; use the out-of-place clamp");
  return s;
}

// A bound in T: NaN (absent) becomes the widest value; integer bounds saturate to T's range.
template <class T> T clamp_bound(double b, bool lower) {
  using L = std::numeric_limits<T>;
  if constexpr (std::is_integral_v<T>) {
    if (std::isnan(b)) return lower ? L::lowest() : L::max();
    if (b <= static_cast<double>(L::lowest())) return L::lowest();
    if (b >= static_cast<double>(L::max())) return L::max();
    return static_cast<T>(b);
  } else {
    if (std::isnan(b)) return lower ? -L::infinity() : L::infinity();
    return static_cast<T>(b);
  }
}

void clamp_kernel(const char* name, const Tensor& x, double min, double max, Tensor& out) {
  Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
  visit_real(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    // min(max(x, lo), hi) as PyTorch: hi wins when lo > hi; NaN x stays NaN.
    detail::unary_loop<T, T>(xc, out, kernels::ClampElement<T>{clamp_bound<T>(min, true), clamp_bound<T>(max, false)});
  });
}

#if defined(SAMPAN_CUDA_KERNELS)
void clamp_on_cuda(const char* name, const Tensor& x, double min, double max, Tensor& out) {
  detail::unary_with_on_cuda<false>(name, x, out, [&](auto tag) {
    using T = typename decltype(tag)::type;
    return kernels::ClampElement<T>{clamp_bound<T>(min, true), clamp_bound<T>(max, false)};
  });
}
#define SAMPAN_CLAMP_CUDA(NAME) \
  .cuda([](const Tensor& x, double min, double max, Tensor& out) { clamp_on_cuda(NAME, x, min, max, out); })
#else
#define SAMPAN_CLAMP_CUDA(NAME)
#endif

// The gradient passes where lo <= x <= hi (both inclusive, as PyTorch's clamp_backward).
Grads clamp_vjp(const VjpContext& c) {
  Tensor x = c.input(0), g = c.grad_output(0);
  double lo = c.attr<double>(1), hi = c.attr<double>(2);
  Tensor mask;
  if (!std::isnan(lo)) mask = ge(x, scalar_like(lo, x));
  if (!std::isnan(hi)) {
    Tensor m = le(x, scalar_like(hi, x));
    mask = mask.defined() ? logical_and(mask, m) : m;
  }
  return {where(mask, g, scalar_like(0.0, g))};
}

// ---- softplus ----

void check_beta(double beta) {
  if (beta == 0 || !std::isfinite(beta))
    SAMPAN_THROW(ValueError, "softplus: 'beta' must be finite and nonzero, got ", std::to_string(beta));
}

}  // namespace

SAMPAN_UNARY_OP(sigmoid, "The logistic function 1 / (1 + exp(-x)).", detail::floating_unary_spec,
                detail::VisitFloatingComplex, detail::kFloatingComplexDTypes, Sigmoid,
                [](const VjpContext& c) -> Grads {
                  Tensor s = c.output(0);  // d sigmoid = s (1 - s)
                  return {detail::mul_taking_grad(c.take_grad_output(0), conj(mul(s, 1.0 - s)))};
                })
    SAMPAN_UNARY_CUDA_ROUNDING("core::sigmoid", Sigmoid)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(relu, "max(x, 0) (NaN propagates; keeps integer dtypes).", detail::real_numeric_unary_spec,
                detail::VisitReal, detail::kRealDTypes, Relu, relu_vjp)
    SAMPAN_UNARY_CUDA("core::relu", Relu)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_INPLACE_OP(relu_, "max(x, 0).", detail::real_numeric_unary_spec, detail::VisitReal,
                        detail::kRealDTypes, Relu, relu_vjp)
    SAMPAN_UNARY_CUDA("core::relu_", Relu)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(gelu, "The exact GELU x * Phi(x) = x/2 (1 + erf(x / sqrt 2)).", detail::real_floating_unary_spec,
                detail::VisitFloating, detail::kFloatingDTypes, Gelu, [](const VjpContext& c) -> Grads {
                  // d (x Phi(x)) = Phi(x) + x phi(x), phi the standard normal density
                  Tensor x = c.input(0);
                  Tensor cdf = (erf(x * kSqrtHalf) + 1.0) * 0.5;
                  Tensor pdf = exp(x * x * -0.5) * kInvSqrtTwoPi;
                  return {mul(c.grad_output(0), cdf + x * pdf)};
                })
    SAMPAN_UNARY_CUDA_ROUNDING("core::gelu", Gelu)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(silu, "x * sigmoid(x) (also called swish).", detail::real_floating_unary_spec,
                detail::VisitFloating, detail::kFloatingDTypes, Silu, [](const VjpContext& c) -> Grads {
                  // d (x s) = s + x s (1 - s) = s (1 + x (1 - s))
                  Tensor x = c.input(0);
                  Tensor s = sigmoid(x);
                  return {mul(c.grad_output(0), s * (x * (1.0 - s) + 1.0))};
                })
    SAMPAN_UNARY_CUDA_ROUNDING("core::silu", Silu)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; })
    .saves_for_vjp({"x"});

SAMPAN_OP(core, softplus)
    .amp(AmpCast::Float32)
    .doc("log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (as PyTorch). Computed "
         "as (max(z, 0) + log1p(exp(-|z|))) / beta with z = beta x, which neither overflows nor loses "
         "the small values.")
    .args("x", "beta", "threshold")
    .defaults({{"beta", 1.0}, {"threshold", 20.0}})  // PyTorch's
    .outputs("out")
    .shape([](const TensorSpec& x, double beta, double) {
      check_beta(beta);
      return detail::real_floating_unary_spec(x);
    })
    .dtypes(detail::kFloatingDTypes)
    .cpu([](const Tensor& x, double beta, double threshold, Tensor& out) {
      Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
      visit_floating(out.dtype(), "core::softplus", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::unary_loop<T, T>(xc, out, kernels::SoftplusElement<T>{static_cast<T>(beta), static_cast<T>(threshold)});
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, double beta, double threshold, Tensor& out) {
      detail::unary_with_on_cuda<true>("core::softplus", x, out, [&](auto tag) {
        using T = typename decltype(tag)::type;
        return kernels::SoftplusElement<T>{static_cast<T>(beta), static_cast<T>(threshold)};
      });
    })
    .cuda_rounds_differently()  // exp and log1p of CUDA's math library
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // d softplus = sigmoid(beta x), and 1 on the linear part
      Tensor x = c.input(0), g = c.grad_output(0);
      Tensor z = x * c.attr<double>(1);
      return {where(gt(z, scalar_like(c.attr<double>(2), z)), g, mul(g, sigmoid(z)))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), 1.0, 20.0}, {f64({2, 3}), 1.5, 2.0}}; })
    .saves_for_vjp({"x"});

SAMPAN_OP(core, clamp)
    .doc("min(max(x, min), max); a NaN bound means no bound on that side. Integer x with a "
         "fractional bound gives float32. The gradient passes where min <= x <= max.")
    .args("x", "min", "max")
    .outputs("out")
    .shape(clamp_spec)
    .dtypes(detail::kRealDTypes)
    .cpu([](const Tensor& x, double min, double max, Tensor& out) { clamp_kernel("core::clamp", x, min, max, out); })
    SAMPAN_CLAMP_CUDA("core::clamp")
    .vjp(clamp_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}), 0.8, 1.9}, {f64({2, 3}), 0.8, std::nan("")}}; })
    .saves_for_vjp({"x"});

SAMPAN_OP(core, clamp_)
    .doc("min(max(x, min), max) written into x; a NaN bound means no bound on that side.")
    .args("x", "min", "max")
    .outputs("x")
    .inplace(0, 0)
    .shape(clamp_inplace_spec)
    .dtypes(detail::kRealDTypes)
    .cpu([](const Tensor& x, double min, double max, Tensor& out) { clamp_kernel("core::clamp_", x, min, max, out); })
    SAMPAN_CLAMP_CUDA("core::clamp_")
    .vjp(clamp_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}), 0.8, 1.9}}; })
    .saves_for_vjp({"x"});

SAMPAN_OP(core, relu_backward)
    .doc("relu's gradient: grad where x > 0, else 0 (x and grad broadcast, dtypes promoted). "
         "Differentiable again: d/dgrad is relu_backward(x, .), d/dx is 0 almost everywhere.")
    .args("x", "grad")
    .outputs("out")
    .shape([](const TensorSpec& x, const TensorSpec& g) {
      detail::check_dtype(is_integral(x.dtype) || is_floating(x.dtype), "x", x.dtype, "an integer or real floating type");
      detail::check_dtype(is_integral(g.dtype) || is_floating(g.dtype), "grad", g.dtype, "an integer or real floating type");
      return detail::broadcast_spec(x, g);
    })
    .dtypes(detail::kRealDTypes)
    .cpu([](const Tensor& x, const Tensor& g, Tensor& out) {
      if (detail::is_half(out.dtype())) {  // float16/bfloat16 compute in float32, stored rounded
        copy_(out, relu_backward(cast(x, DType::Float32), cast(g, DType::Float32)));
        return;
      }
      Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
      Tensor gc = g.dtype() == out.dtype() ? g : cast(g, out.dtype());
      visit_real(out.dtype(), "core::relu_backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::binary_loop<T, T>(xc, gc, out, ReluBackward{});
      });
    })
    SAMPAN_BINARY_CUDA("core::relu_backward", ReluBackward)
    .vjp([](const VjpContext& c) -> Grads { return {Tensor(), relu_backward(c.input(0), c.grad_output(0))}; })
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), f64({2, 3}, 0.2, 0.4)}, {f64({2, 3}, -1.0, 0.31), f64({3}, 0.2, 0.4)}}; })
    .saves_for_vjp({"x"})
    .output_may_reuse({"grad"});  // an elementwise loop (or a float32 temporary copied in at the end)

SAMPAN_UNARY_API(sigmoid)
SAMPAN_UNARY_API(relu)
SAMPAN_UNARY_API(relu_)
SAMPAN_UNARY_API(gelu)
SAMPAN_UNARY_API(silu)

Tensor softplus(const Tensor& x, double beta, double threshold) {
  static OpHandle op("core::softplus");
  return op(x, beta, threshold)[0];
}

namespace {
double bound_or_nan(const std::optional<double>& b) { return b ? *b : std::nan(""); }
}  // namespace

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  static OpHandle op("core::clamp");
  return op(x, bound_or_nan(min), bound_or_nan(max))[0];
}
Tensor clamp_(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  static OpHandle op("core::clamp_");
  return op(x, bound_or_nan(min), bound_or_nan(max))[0];
}

}  // namespace sampan
