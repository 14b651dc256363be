// sampan: elementwise binary arithmetic (core::add, sub, mul, div and their in-place forms).
// Inputs are promoted to a common dtype; vjps are written with ops (differentiable again) and
// the dispatcher sums broadcast gradients back to each input's shape.
#include "sampan/ops.h"
#include "elementwise_support.h"

namespace sampan {

namespace {

// Runs out = f(x, y) after converting both inputs to out's dtype.
template <class F> void promoted_binary(const char* name, const Tensor& x, const Tensor& y, const Tensor& out, F f) {
  Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
  Tensor yc = y.dtype() == out.dtype() ? y : cast(y, out.dtype());
  visit_numeric(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::binary_loop<T, T>(xc, yc, out, [&](T a, T b) { return f(a, b); });
  });
}

TensorSpec inplace_spec(const TensorSpec& x, const TensorSpec& y) {
  Shape s = broadcast_shapes(x.shape, y.shape);
  if (s != x.shape)
    throw ValueError("in-place result of shape " + shape_str(s) + " does not fit the target of shape " +
                     shape_str(x.shape));
  DType d = promote_types(x.dtype, y.dtype);
  if (d != x.dtype)
    throw TypeError(std::string("in-place result of dtype ") + dtype_name(d) + " cannot be stored in a " +
                    dtype_name(x.dtype) + " tensor");
  return x;
}

TensorSpec div_spec(const TensorSpec& x, const TensorSpec& y) {
  TensorSpec s = detail::broadcast_spec(x, y);
  s.dtype = to_floating(s.dtype);
  return s;
}

struct Add { template <class T> T operator()(T a, T b) const { return a + b; } };
struct Sub { template <class T> T operator()(T a, T b) const { return a - b; } };
struct Mul { template <class T> T operator()(T a, T b) const { return a * b; } };
struct Div { template <class T> T operator()(T a, T b) const { return a / b; } };

}  // namespace

// Gradients of complex ops follow PyTorch: grad_x = grad_out * conj(d out / d x).
#define SAMPAN_BINARY_OP(NAME, FN, DOC, SPEC, VJP)                                            \
  SAMPAN_OP(core, NAME)                                                                       \
      .doc(DOC)                                                                               \
      .args("x", "y")                                                                         \
      .outputs("out")                                                                         \
      .shape(SPEC)                                                                            \
      .cpu([](const Tensor& x, const Tensor& y, Tensor& out) { promoted_binary("core::" #NAME, x, y, out, FN{}); }) \
      .vjp(VJP);                                                                              \
  SAMPAN_OP(core, NAME##_)                                                                    \
      .doc(DOC " In place: the result is written into x.")                                   \
      .args("x", "y")                                                                         \
      .outputs("x")                                                                           \
      .inplace(0, 0)                                                                          \
      .shape(inplace_spec)                                                                    \
      .cpu([](const Tensor& x, const Tensor& y, Tensor& out) { promoted_binary("core::" #NAME "_", x, y, out, FN{}); }) \
      .vjp(VJP);

Grads add_vjp(const VjpContext& c) { return {c.grad_output(0), c.grad_output(0)}; }
Grads sub_vjp(const VjpContext& c) { return {c.grad_output(0), neg(c.grad_output(0))}; }
Grads mul_vjp(const VjpContext& c) {
  Tensor g = c.grad_output(0);
  return {c.needs_grad(0) ? mul(g, conj(c.input(1))) : Tensor(),
          c.needs_grad(1) ? mul(g, conj(c.input(0))) : Tensor()};
}
Grads div_vjp(const VjpContext& c) {
  Tensor g = c.grad_output(0), y = c.input(1);
  Tensor gx = div(g, conj(y));
  // d(x/y)/dy = -x/y^2, so grad_y = -(g / conj(y)) * conj(x / y)
  return {c.needs_grad(0) ? gx : Tensor(), c.needs_grad(1) ? neg(mul(gx, conj(div(c.input(0), y)))) : Tensor()};
}

SAMPAN_BINARY_OP(add, Add, "x + y with broadcasting.", detail::broadcast_spec, add_vjp)
SAMPAN_BINARY_OP(sub, Sub, "x - y with broadcasting.", detail::broadcast_spec, sub_vjp)
SAMPAN_BINARY_OP(mul, Mul, "x * y with broadcasting.", detail::broadcast_spec, mul_vjp)
SAMPAN_BINARY_OP(div, Div, "x / y with broadcasting (true division).", div_spec, div_vjp)
#undef SAMPAN_BINARY_OP

#define SAMPAN_BINARY_API(NAME)                            \
  Tensor NAME(const Tensor& x, const Tensor& y) {          \
    static OpHandle op("core::" #NAME);                    \
    return op(x, y)[0];                                    \
  }
SAMPAN_BINARY_API(add)
SAMPAN_BINARY_API(sub)
SAMPAN_BINARY_API(mul)
SAMPAN_BINARY_API(div)
SAMPAN_BINARY_API(add_)
SAMPAN_BINARY_API(sub_)
SAMPAN_BINARY_API(mul_)
SAMPAN_BINARY_API(div_)
#undef SAMPAN_BINARY_API

Tensor scalar_like(double value, const Tensor& like) {
  DType d = like.dtype();
  bool integral_value = value == static_cast<double>(static_cast<int64_t>(value));
  if (d == DType::Bool) d = integral_value ? DType::Int64 : DType::Float32;
  else if (is_integral(d) && !integral_value) d = DType::Float32;
  return scalar_tensor(value, d, like.device());
}

}  // namespace sampan
