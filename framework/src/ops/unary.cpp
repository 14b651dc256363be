// sampan: elementwise unary math (core::neg, exp, log, real, conj).
#include <cmath>

#include "sampan/ops.h"
#include "elementwise_support.h"

namespace sampan {

namespace {

TensorSpec same_spec(const TensorSpec& x) { return x; }
TensorSpec floating_spec(const TensorSpec& x) { return TensorSpec{x.shape, to_floating(x.dtype), x.device}; }
TensorSpec real_spec(const TensorSpec& x) { return TensorSpec{x.shape, real_dtype(x.dtype), x.device}; }

// out = f(x) with x converted to out's dtype first (integers to float for exp/log ...).
template <class Visit, class F>
void same_type_unary(const char* name, Visit visit, const Tensor& x, const Tensor& out, F f) {
  Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
  visit(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::unary_loop<T, T>(xc, out, [&](T v) { return f(v); });
  });
}


}  // namespace

SAMPAN_OP(core, neg)
    .doc("-x.")
    .args("x")
    .outputs("out")
    .shape(same_spec)
    .cpu([](const Tensor& x, Tensor& out) {
      same_type_unary("core::neg", [](DType t, const char* n, auto&& g) { return visit_numeric(t, n, g); },
                      x, out, [](auto v) { return -v; });
    })
    .vjp([](const VjpContext& c) -> Grads { return {neg(c.grad_output(0))}; });

SAMPAN_OP(core, exp)
    .doc("e**x, elementwise.")
    .args("x")
    .outputs("out")
    .shape(floating_spec)
    .cpu([](const Tensor& x, Tensor& out) {
      same_type_unary("core::exp", [](DType t, const char* n, auto&& g) { return visit_floating_complex(t, n, g); },
                      x, out, [](auto v) { return std::exp(v); });
    })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), conj(c.output(0)))}; });

SAMPAN_OP(core, log)
    .doc("Natural logarithm, elementwise.")
    .args("x")
    .outputs("out")
    .shape(floating_spec)
    .cpu([](const Tensor& x, Tensor& out) {
      same_type_unary("core::log", [](DType t, const char* n, auto&& g) { return visit_floating_complex(t, n, g); },
                      x, out, [](auto v) { return std::log(v); });
    })
    .vjp([](const VjpContext& c) -> Grads { return {div(c.grad_output(0), conj(c.input(0)))}; });

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
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0)}; });

SAMPAN_OP(core, conj)
    .doc("Complex conjugate (a copy; identity values for real tensors).")
    .args("x")
    .outputs("out")
    .shape(same_spec)
    .cpu([](const Tensor& x, Tensor& out) {
      visit_all(x.dtype(), "core::conj", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (detail::is_complex_t<T>::value)
          detail::unary_loop<T, T>(x, out, [](T v) { return std::conj(v); });
        else
          detail::unary_loop<T, T>(x, out, [](T v) { return v; });
      });
    })
    .vjp([](const VjpContext& c) -> Grads { return {conj(c.grad_output(0))}; });

#define SAMPAN_UNARY_API(NAME)                \
  Tensor NAME(const Tensor& x) {              \
    static OpHandle op("core::" #NAME);       \
    return op(x)[0];                          \
  }
SAMPAN_UNARY_API(neg)
SAMPAN_UNARY_API(exp)
SAMPAN_UNARY_API(log)
SAMPAN_UNARY_API(real)
#undef SAMPAN_UNARY_API

Tensor conj(const Tensor& x) {
  if (!is_complex(x.dtype())) return x;  // no copy, no node: conj of a real tensor is itself
  static OpHandle op("core::conj");
  return op(x)[0];
}

}  // namespace sampan
