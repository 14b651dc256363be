// sampan: complex-number ops (core::imag, angle, polar, complex). real, conj and the modulus
// (abs) are in unary.cpp.
//
// Gradients follow PyTorch's convention for real-valued losses: the gradient of a complex input
// z = a + ib is dL/da + i dL/db, and a real input p of a complex output w receives
// Re(conj(dw/dp) * grad_w). Every vjp is written with ops, so it is differentiable again.
#include <cmath>

#include "complex_parts.h"
#include "sampan/ops.h"
#include "elementwise_support.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

constexpr double kPi = 3.14159265358979323846;

// polar and complex: two real inputs (promoted; integers to float32), broadcast, complex result.
TensorSpec from_parts_spec(const char* a_name, const TensorSpec& a, const char* b_name, const TensorSpec& b) {
  const char* expected = "a real dtype (bool, int32, int64, float32, float64)";
  detail::check_dtype(!is_complex(a.dtype), a_name, a.dtype, expected);
  detail::check_dtype(!is_complex(b.dtype), b_name, b.dtype, expected);
  DType d = complex_dtype(to_floating(promote_types(a.dtype, b.dtype)));
  return TensorSpec{broadcast_shapes(a.shape, b.shape), d, a.device};
}

// out = f(a, b) with a and b converted to out's real counterpart.
template <class F> void from_parts_kernel(const char* name, const Tensor& a, const Tensor& b, Tensor& out, F f) {
  DType rd = real_dtype(out.dtype());
  Tensor ac = a.dtype() == rd ? a : cast(a, rd);
  Tensor bc = b.dtype() == rd ? b : cast(b, rd);
  visit_floating(rd, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::binary_loop<T, std::complex<T>>(ac, bc, out, [&](T u, T v) { return f(u, v); });
  });
}

// i * w for a complex tensor w, with ops: i (a + ib) = -b + ia.
Tensor times_i(const Tensor& w) { return complex(neg(imag(w)), real(w)); }

}  // namespace

SAMPAN_OP(core, imag)
    .doc("Imaginary part, a real tensor (complex64 -> float32); zeros of x's dtype for real x.")
    .args("x")
    .outputs("out")
    .shape([](const TensorSpec& x) { return TensorSpec{x.shape, real_dtype(x.dtype), x.device}; })
    .dtypes({DType::Complex64, DType::Complex128})
    .cpu([](const Tensor& x, Tensor& out) {
      visit_all(x.dtype(), "core::imag", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (detail::is_complex_t<T>::value) {
          using R = typename T::value_type;
          detail::unary_loop<T, R>(x, out, [](T v) { return v.imag(); });
        } else {
          detail::unary_loop<T, T>(x, out, [](T) { return T(0); });
        }
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) {
      if (is_complex(x.dtype())) copy_(out, detail::complex_part(x, 1));
      else copy_(out, scalar_tensor(0, out.dtype(), out.device()));
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // imag(a + ib) = b: the gradient is i * grad (and none reaches a real input's value).
      Tensor g = c.grad_output(0);
      if (!is_complex(c.input(0).dtype())) return {zeros_like(g)};
      return {complex(zeros_like(g), g)};
    })
    .samples([] { return std::vector<Values>{{c128({3})}}; });

SAMPAN_OP(core, angle)
    .doc("Argument in (-pi, pi]: atan2(imag, real) for complex x; for real x 0 where x >= 0, pi "
         "where x < 0, NaN for NaN. Integers give float32.")
    .args("x")
    .outputs("out")
    .shape([](const TensorSpec& x) {
      return TensorSpec{x.shape, is_complex(x.dtype) ? real_dtype(x.dtype) : to_floating(x.dtype), x.device};
    })
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .cpu([](const Tensor& x, Tensor& out) {
      if (is_complex(x.dtype())) {
        visit_floating_complex(x.dtype(), "core::angle", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (detail::is_complex_t<T>::value) {
            using R = typename T::value_type;
            detail::unary_loop<T, R>(x, out, [](T v) { return std::arg(v); });
          }
        });
        return;
      }
      Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
      visit_floating(out.dtype(), "core::angle", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::unary_loop<T, T>(xc, out, [](T v) { return v < T(0) ? T(kPi) : (v != v ? v : T(0)); });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) {
      if (is_complex(x.dtype())) {  // std::arg is atan2(imag, real); CUDA's atan2 rounds its own way
        copy_(out, atan2(detail::complex_part(x, 1), detail::complex_part(x, 0)));
        return;
      }
      const Tensor xf = x.to(out.dtype());  // pi below zero, NaN kept, else 0: a selection, exact
      copy_(out, where(lt(xf, zeros_like(xf)), scalar_tensor(kPi, out.dtype(), out.device()),
                       where(ne(xf, xf), xf, zeros_like(xf))));
    })
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // d angle = (a db - b da) / |z|^2, so the gradient is g (-b + ia) / |z|^2 = i g z / |z|^2;
      // 0 at z = 0 (PyTorch's angle_backward). Piecewise constant for real x.
      Tensor x = c.input(0), g = c.grad_output(0);
      if (!is_complex(x.dtype())) return {zeros_like(g)};
      Tensor a = abs(x);
      Tensor w = times_i(div(mul(g, x), mul(a, a)));
      return {where(eq(x, scalar_like(0.0, x)), scalar_like(0.0, w), w)};
    })
    .samples([] { return std::vector<Values>{{c128({3})}, {f64({2, 3}, -1.0, 0.31)}}; });

SAMPAN_OP(core, polar)
    .doc("abs * (cos(angle) + i sin(angle)), with broadcasting: complex from modulus and argument.")
    .args("abs", "angle")
    .outputs("out")
    .shape([](const TensorSpec& r, const TensorSpec& t) { return from_parts_spec("abs", r, "angle", t); })
    .dtypes({DType::Float32, DType::Float64})
    .cpu([](const Tensor& r, const Tensor& t, Tensor& out) {
      // Written out rather than std::polar, which requires abs >= 0.
      from_parts_kernel("core::polar", r, t, out, [](auto m, auto a) {
        using T = decltype(m);
        return std::complex<T>(m * std::cos(a), m * std::sin(a));
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& r, const Tensor& t, Tensor& out) {  // the same products; CUDA's cos and sin
      const DType part = real_dtype(out.dtype());
      const Tensor m = r.to(part), a = t.to(part);
      copy_(detail::complex_part(out, 0), mul(m, cos(a)));
      copy_(detail::complex_part(out, 1), mul(m, sin(a)));
    })
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // w = r u with u = e^{i angle}: dw/dr = u, dw/d angle = i w. Real inputs receive
      // Re(conj(dw/dp) g): Re(conj(u) g) and Re(-i conj(w) g) = Im(conj(w) g).
      Tensor r = c.input(0), t = c.input(1), g = c.grad_output(0);
      Tensor gr, gt;
      if (c.needs_grad(0)) gr = real(mul(g, conj(complex(cos(t), sin(t)))));
      if (c.needs_grad(1)) gt = imag(mul(g, conj(c.output(0))));
      return {gr, gt};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, -1.0, 0.9)}}; });

SAMPAN_OP(core, complex)
    .doc("real + i imag, with broadcasting: a complex tensor from its parts.")
    .args("real", "imag")
    .outputs("out")
    .shape([](const TensorSpec& re, const TensorSpec& im) { return from_parts_spec("real", re, "imag", im); })
    .dtypes({DType::Float32, DType::Float64})
    .cpu([](const Tensor& re, const Tensor& im, Tensor& out) {
      from_parts_kernel("core::complex", re, im, out, [](auto a, auto b) {
        using T = decltype(a);
        return std::complex<T>(a, b);
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& re, const Tensor& im, Tensor& out) {  // each part copied into its view
      copy_(detail::complex_part(out, 0), re);
      copy_(detail::complex_part(out, 1), im);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      return {c.needs_grad(0) ? real(g) : Tensor(), c.needs_grad(1) ? imag(g) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, -1.0, 0.9)}}; });

Tensor imag(const Tensor& x) {
  static OpHandle op("core::imag");
  return op(x)[0];
}
Tensor angle(const Tensor& x) {
  static OpHandle op("core::angle");
  return op(x)[0];
}
Tensor polar(const Tensor& abs, const Tensor& angle) {
  static OpHandle op("core::polar");
  return op(abs, angle)[0];
}
Tensor complex(const Tensor& real, const Tensor& imag) {
  static OpHandle op("core::complex");
  return op(real, imag)[0];
}

}  // namespace sampan
