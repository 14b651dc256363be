// sampan: elementwise unary math (core::neg, exp, log, real, conj, abs, sqrt, sin, erf, floor ...
// and the in-place exp_, sqrt_). Activations (sigmoid, relu, gelu ...) are in activation.cpp.
//
// Dtype rules: floating functions turn integer and bool inputs into float32 (PyTorch's default
// dtype); arithmetic that stays exact (abs, sign, square, floor ...) keeps integer dtypes.
// Gradients of complex ops follow PyTorch: grad_x = grad_out * conj(d out / d x) for holomorphic
// functions. Every vjp is written with ops, so it is differentiable again.
#include <cmath>
#include <type_traits>

#include "complex_parts.h"
#include "unary_support.h"
#include "elementwise_cuda.h"
#include "../kernels/math_element.h"
#include "../kernels/unary_element.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

using detail::is_complex_t;

namespace {

TensorSpec same_spec(const TensorSpec& x) { return x; }
TensorSpec real_spec(const TensorSpec& x) { return TensorSpec{x.shape, real_dtype(x.dtype), x.device}; }

constexpr double kTwoOverSqrtPi = 1.12837916709551257390;  // 2 / sqrt(pi), d erf / dx at 0

// ---- elementwise functions, one per op (instantiated for every dtype their visitor accepts) ----
using Neg = kernels::NegElement;  // the per-element bodies the CUDA twins share (kernels/unary_element.h)
using Exp = kernels::ExpElement;  // kernels/math_element.h, shared with the CUDA twins
using Log = kernels::LogElement;
using Log1p = kernels::Log1pElement;
using Expm1 = kernels::Expm1Element;
using Sqrt = kernels::SqrtElement;
using Rsqrt = kernels::RsqrtElement;
using Sin = kernels::SinElement;
using Cos = kernels::CosElement;
using Tan = kernels::TanElement;
using Tanh = kernels::TanhElement;
using Erf = kernels::ErfElement;
using Square = kernels::SquareElement;
using Reciprocal = kernels::ReciprocalElement;
using Floor = kernels::FloorElement;  // identity on integers
using Ceil = kernels::CeilElement;
using Round = kernels::RoundElement;  // halves to even
// Real: -1, 0, +1 (NaN stays NaN). Complex: z / |z| and 0 at 0 (NumPy 2's sign, PyTorch's sgn).
#if defined(SAMPAN_CUDA_KERNELS)
// The CUDA twin of an op whose complex branch divides by |z| (a hypot, which CUDA's library
// rounds its own way): real dtypes only.
template <class F> void real_unary_on_cuda(const char* name, const Tensor& x, Tensor& out) {
  SAMPAN_CHECK(!is_complex(x.dtype()), NotImplementedError, name, " of a ", dtype_name(x.dtype()),
               " tensor has no CUDA kernel yet (real dtypes have)");
  detail::unary_on_cuda<F>(name, x, out);
}
#endif

struct Sign {
  template <class T> T operator()(T v) const {
    if constexpr (is_complex_t<T>::value) {
      auto a = std::abs(v);
      return a == 0 ? T(0) : v / a;
    } else {
      return kernels::SignElement{}(v);  // the body of the CUDA twin
    }
  }
};

// ---- vjps ----
Tensor zero_grad(const VjpContext& c) { return zeros_like(c.grad_output(0)); }

Grads sqrt_vjp(const VjpContext& c) {  // d sqrt(x) = 1 / (2 sqrt(x))
  return {div(c.grad_output(0), conj(c.output(0) * 2.0))};
}
Grads exp_vjp(const VjpContext& c) { return {detail::mul_taking_grad(c.take_grad_output(0), conj(c.output(0)))}; }

// d sign(z)/dz for complex z (sign = z/|z|, not holomorphic): with s = sign(z),
// grad = (g - s^2 conj(g)) / (2|z|), and 0 at z = 0 as in PyTorch's sgn_backward.
Grads sign_vjp(const VjpContext& c) {
  Tensor g = c.grad_output(0), x = c.input(0);
  if (!is_complex(x.dtype())) return {zero_grad(c)};
  Tensor s = c.output(0), a = abs(x);
  Tensor r = div(sub(g, mul(mul(s, s), conj(g))), a * 2.0);
  return {where(eq(a, scalar_like(0.0, a)), scalar_like(0.0, r), r)};
}

}  // namespace

SAMPAN_UNARY_OP(neg, "-x.", detail::numeric_unary_spec, detail::VisitNumeric, detail::kNumericDTypes, Neg,
                [](const VjpContext& c) -> Grads { return {neg(c.grad_output(0))}; })
    SAMPAN_UNARY_CUDA("core::neg", Neg)
    .samples([] { return std::vector<Values>{{f64({4})}}; })
    .saves_for_vjp({});
SAMPAN_UNARY_OP(exp, "e**x, elementwise.", detail::floating_unary_spec, detail::VisitFloatingComplex,
                detail::kFloatingComplexDTypes, Exp, exp_vjp)
    SAMPAN_UNARY_CUDA_ROUNDING("core::exp", Exp)
    .amp(AmpCast::Float32)
    .samples([] { return std::vector<Values>{{f64({4})}, {c128({2})}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(log, "Natural logarithm, elementwise.", detail::floating_unary_spec,
                detail::VisitFloatingComplex, detail::kFloatingComplexDTypes, Log,
                [](const VjpContext& c) -> Grads { return {div(c.grad_output(0), conj(c.input(0)))}; })
    SAMPAN_UNARY_CUDA_ROUNDING("core::log", Log)
    .amp(AmpCast::Float32)
    .samples([] { return std::vector<Values>{{f64({4}, 0.5)}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(log1p, "log(1 + x), accurate for small x.", detail::real_floating_unary_spec,
                detail::VisitFloating, detail::kFloatingDTypes, Log1p,
                [](const VjpContext& c) -> Grads { return {div(c.grad_output(0), c.input(0) + 1.0)}; })
    SAMPAN_UNARY_CUDA_ROUNDING("core::log1p", Log1p)
    .amp(AmpCast::Float32)
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(expm1, "exp(x) - 1, accurate for small x.", detail::real_floating_unary_spec,
                detail::VisitFloating, detail::kFloatingDTypes, Expm1,
                [](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), c.output(0) + 1.0)}; })
    SAMPAN_UNARY_CUDA_ROUNDING("core::expm1", Expm1)
    .amp(AmpCast::Float32)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(sqrt, "Square root (principal branch for complex).", detail::floating_unary_spec,
                detail::VisitFloatingComplex, detail::kFloatingComplexDTypes, Sqrt, sqrt_vjp)
    SAMPAN_UNARY_CUDA("core::sqrt", Sqrt)
    .samples([] { return std::vector<Values>{{f64({2, 3})}, {c128({3})}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(rsqrt, "1 / sqrt(x).", detail::floating_unary_spec, detail::VisitFloatingComplex,
                detail::kFloatingComplexDTypes, Rsqrt, [](const VjpContext& c) -> Grads {
                  // d x^(-1/2) = -x^(-3/2) / 2 = -out^3 / 2
                  Tensor o = c.output(0);
                  return {mul(c.grad_output(0), conj(mul(mul(o, o), o) * -0.5))};
                })
    SAMPAN_UNARY_CUDA("core::rsqrt", Rsqrt)
    .amp(AmpCast::Float32)
    .samples([] { return std::vector<Values>{{f64({2, 3})}, {c128({3})}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(sin, "Sine (radians).", detail::floating_unary_spec, detail::VisitFloatingComplex,
                detail::kFloatingComplexDTypes, Sin,
                [](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), conj(cos(c.input(0))))}; })
    SAMPAN_UNARY_CUDA_ROUNDING("core::sin", Sin)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(cos, "Cosine (radians).", detail::floating_unary_spec, detail::VisitFloatingComplex,
                detail::kFloatingComplexDTypes, Cos,
                [](const VjpContext& c) -> Grads { return {neg(mul(c.grad_output(0), conj(sin(c.input(0)))))}; })
    SAMPAN_UNARY_CUDA_ROUNDING("core::cos", Cos)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(tan, "Tangent (radians).", detail::floating_unary_spec, detail::VisitFloatingComplex,
                detail::kFloatingComplexDTypes, Tan, [](const VjpContext& c) -> Grads {
                  Tensor o = c.output(0);  // d tan = 1 + tan^2
                  return {mul(c.grad_output(0), conj(o * o + 1.0))};
                })
    SAMPAN_UNARY_CUDA_ROUNDING("core::tan", Tan)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -0.6, 0.1)}, {c128({2})}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(tanh, "Hyperbolic tangent.", detail::floating_unary_spec, detail::VisitFloatingComplex,
                detail::kFloatingComplexDTypes, Tanh, [](const VjpContext& c) -> Grads {
                  Tensor o = c.output(0);  // d tanh = 1 - tanh^2
                  return {detail::mul_taking_grad(c.take_grad_output(0), conj(1.0 - o * o))};
                })
    SAMPAN_UNARY_CUDA_ROUNDING("core::tanh", Tanh)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({2})}}; })
    .saves_for_vjp({"out"});
SAMPAN_UNARY_OP(erf, "Gauss error function.", detail::real_floating_unary_spec, detail::VisitFloating,
                detail::kFloatingDTypes, Erf, [](const VjpContext& c) -> Grads {
                  Tensor x = c.input(0);  // d erf = 2/sqrt(pi) exp(-x^2)
                  return {mul(c.grad_output(0), exp(neg(x * x)) * kTwoOverSqrtPi)};
                })
    SAMPAN_UNARY_CUDA_ROUNDING("core::erf", Erf)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(square, "x * x (keeps integer dtypes).", detail::numeric_unary_spec, detail::VisitNumeric,
                detail::kNumericDTypes, Square,
                [](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), conj(c.input(0) * 2.0))}; })
    SAMPAN_UNARY_CUDA("core::square", Square)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_OP(reciprocal, "1 / x (integers give float32).", detail::floating_unary_spec,
                detail::VisitFloatingComplex, detail::kFloatingComplexDTypes, Reciprocal,
                [](const VjpContext& c) -> Grads {
                  Tensor o = c.output(0);  // d (1/x) = -1/x^2
                  return {neg(mul(c.grad_output(0), conj(o * o)))};
                })
    SAMPAN_UNARY_CUDA("core::reciprocal", Reciprocal)
    .amp(AmpCast::Float32)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"out"});
// Piecewise constant: the gradient is zero almost everywhere (as in PyTorch).
SAMPAN_UNARY_OP(floor, "Largest integer <= x (identity on integer dtypes).", detail::real_numeric_unary_spec,
                detail::VisitReal, detail::kRealDTypes, Floor,
                [](const VjpContext& c) -> Grads { return {zero_grad(c)}; })
    SAMPAN_UNARY_CUDA("core::floor", Floor)
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; })
    .saves_for_vjp({});
SAMPAN_UNARY_OP(ceil, "Smallest integer >= x (identity on integer dtypes).", detail::real_numeric_unary_spec,
                detail::VisitReal, detail::kRealDTypes, Ceil,
                [](const VjpContext& c) -> Grads { return {zero_grad(c)}; })
    SAMPAN_UNARY_CUDA("core::ceil", Ceil)
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; })
    .saves_for_vjp({});
SAMPAN_UNARY_OP(round, "Nearest integer, halves to even (identity on integer dtypes).",
                detail::real_numeric_unary_spec, detail::VisitReal, detail::kRealDTypes, Round,
                [](const VjpContext& c) -> Grads { return {zero_grad(c)}; })
    SAMPAN_UNARY_CUDA("core::round", Round)
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; })
    .saves_for_vjp({});
SAMPAN_UNARY_OP(sign, "-1, 0 or +1 (NaN stays NaN); z/|z| for complex z (0 at 0).", detail::numeric_unary_spec,
                detail::VisitNumeric, detail::kNumericDTypes, Sign, sign_vjp)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) { real_unary_on_cuda<kernels::SignElement>("core::sign", x, out); })
#endif
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"x", "out"});

SAMPAN_UNARY_INPLACE_OP(exp_, "e**x, elementwise.", detail::inplace_floating_unary_spec,
                        detail::VisitFloatingComplex, detail::kFloatingComplexDTypes, Exp, exp_vjp)
    SAMPAN_UNARY_CUDA_ROUNDING("core::exp_", Exp)
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; })
    .saves_for_vjp({"x"});
SAMPAN_UNARY_INPLACE_OP(sqrt_, "Square root.", detail::inplace_floating_unary_spec, detail::VisitFloatingComplex,
                        detail::kFloatingComplexDTypes, Sqrt, sqrt_vjp)
    SAMPAN_UNARY_CUDA("core::sqrt_", Sqrt)
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; })
    .saves_for_vjp({"x"});

// |x|: keeps real dtypes (integers stay integers); complex gives its real counterpart.
SAMPAN_OP(core, abs)
    .doc("Absolute value; the modulus (a real tensor) for complex x.")
    .args("x")
    .outputs("out")
    .shape([](const TensorSpec& x) { return real_spec(detail::numeric_unary_spec(x)); })
    .dtypes(detail::kNumericDTypes)
    .cpu([](const Tensor& x, Tensor& out) {
      if (detail::is_half(x.dtype())) {  // computed in float32, rounded once
        copy_(out, abs(cast(x, DType::Float32)));
        return;
      }
      visit_numeric(x.dtype(), "core::abs", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = decltype(std::abs(T{}));
        detail::unary_loop<T, R>(x, out, [](T v) {
          // Real values through the body the CUDA twin runs; complex ones through std::abs (a hypot).
          if constexpr (std::is_floating_point_v<T> || std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>)
            return static_cast<R>(kernels::AbsElement{}(v));
          else
            return static_cast<R>(std::abs(v));
        });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) { real_unary_on_cuda<kernels::AbsElement>("core::abs", x, out); })
#endif
    // d|x| = sign(x) (z/|z| for complex: PyTorch's abs_backward); the subgradient 0 at 0.
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), sign(c.input(0)))}; })
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}, {c128({3})}}; })
    .saves_for_vjp({"x"});

SAMPAN_OP(core, real)
    .doc("Real part (a copy; identity values for real tensors).")
    .args("x")
    .outputs("out")
    .shape(real_spec)
    .cpu([](const Tensor& x, Tensor& out) {
      visit_all(x.dtype(), "core::real", [&](auto tag) {
        using T = typename decltype(tag)::type;
        visit_all(out.dtype(), "core::real", [&](auto otag) {
          using O = typename decltype(otag)::type;
          detail::unary_loop<T, O>(x, out, [](T v) { return detail::convert_value<O>(v); });
        });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // a complex x's real parts are a strided real view of it: a copy on the GPU
    .cuda([](const Tensor& x, Tensor& out) { copy_(out, is_complex(x.dtype()) ? detail::complex_part(x, 0) : x); })
#endif
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0)}; })
    .samples([] { return std::vector<Values>{{c128({3})}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, conj)
    .doc("Complex conjugate (a copy; identity values for real tensors).")
    .args("x")
    .outputs("out")
    .shape(same_spec)
    .cpu([](const Tensor& x, Tensor& out) {
      visit_all(x.dtype(), "core::conj", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (is_complex_t<T>::value)
          detail::unary_loop<T, T>(x, out, [](T v) { return std::conj(v); });
        else
          detail::unary_loop<T, T>(x, out, [](T v) { return v; });
      });
    })
    SAMPAN_UNARY_CUDA("core::conj", kernels::ConjElement)
    .vjp([](const VjpContext& c) -> Grads { return {conj(c.grad_output(0))}; })
    .samples([] { return std::vector<Values>{{c128({3})}, {f64({3})}}; })
    .saves_for_vjp({});

SAMPAN_UNARY_API(neg)
SAMPAN_UNARY_API(exp)
SAMPAN_UNARY_API(log)
SAMPAN_UNARY_API(real)
SAMPAN_UNARY_API(abs)
SAMPAN_UNARY_API(log1p)
SAMPAN_UNARY_API(expm1)
SAMPAN_UNARY_API(sqrt)
SAMPAN_UNARY_API(rsqrt)
SAMPAN_UNARY_API(sin)
SAMPAN_UNARY_API(cos)
SAMPAN_UNARY_API(tan)
SAMPAN_UNARY_API(tanh)
SAMPAN_UNARY_API(erf)
SAMPAN_UNARY_API(sign)
SAMPAN_UNARY_API(floor)
SAMPAN_UNARY_API(ceil)
SAMPAN_UNARY_API(round)
SAMPAN_UNARY_API(square)
SAMPAN_UNARY_API(reciprocal)
SAMPAN_UNARY_API(exp_)
SAMPAN_UNARY_API(sqrt_)

Tensor conj(const Tensor& x) {
  if (!is_complex(x.dtype())) return x;  // no copy, no node: conj of a real tensor is itself
  static OpHandle op("core::conj");
  return op(x)[0];
}

}  // namespace sampan
