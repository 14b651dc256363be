// sampan: elementwise binary math (core::add, sub, mul, div and their in-place forms, pow,
// maximum, minimum, atan2, remainder, floor_divide) and the 3-way select core::where.
// Inputs are promoted to a common dtype (NumPy's rules) and broadcast; vjps are written with ops
// (differentiable again) and the dispatcher sums broadcast gradients back to each input's shape.
#include <atomic>
#include <cmath>
#include <type_traits>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "sample_support.h"
#include "../kernels/binary_element.h"
#include "../kernels/math_element.h"
#include "elementwise_cuda.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

// Element strides of `t` broadcast to `out_shape`, written to `st` (detail::broadcast_strides
// without the heap vector: these ops run in every small-tensor loop).
void broadcast_strides_into(const Tensor& t, const Shape& out_shape, int64_t* st) {
  const Shape& shape = t.shape();
  const Shape& strides = t.strides();
  const size_t lead = out_shape.size() - shape.size();
  for (size_t d = 0; d < lead; ++d) st[d] = 0;
  for (size_t d = 0; d < shape.size(); ++d) st[lead + d] = shape[d] == 1 ? 0 : strides[d];
}

// out = f(x, y) elementwise with broadcasting, all of element type T.
template <class T, class F> void same_type_binary_loop(const Tensor& x, const Tensor& y, const Tensor& out, F f) {
  constexpr size_t kStackDims = 8;
  const Shape& shape = out.shape();
  if (shape.size() > kStackDims) {
    detail::binary_loop<T, T>(x, y, out, f);
    return;
  }
  int64_t sx[kStackDims], sy[kStackDims];
  broadcast_strides_into(x, shape, sx);
  broadcast_strides_into(y, shape, sy);
  kernels::map_strided(static_cast<int64_t>(shape.size()), shape.data(),
                       kernels::Strided<T>{static_cast<T*>(out.raw_data()), out.strides().data()}, f,
                       kernels::Strided<const T>{static_cast<const T*>(x.raw_data()), sx},
                       kernels::Strided<const T>{static_cast<const T*>(y.raw_data()), sy});
}

// Runs out = f(x, y) after converting both inputs to out's dtype; `visit` picks the dtypes the
// kernel is instantiated for.
template <class F, class Visit>
void promoted_binary(const char* name, const Tensor& x, const Tensor& y, const Tensor& out, F f, Visit visit) {
  const DType dtype = out.dtype();
  if (detail::is_half(dtype)) {  // float16/bfloat16 compute in float32, stored rounded
    Tensor tmp = Tensor::empty(out.shape(), DType::Float32, out.device());
    promoted_binary(name, x, y, tmp, f, visit);
    copy_(out, tmp);
    return;
  }
  Tensor x_cast, y_cast;  // only when an input has another dtype
  const Tensor& xc = x.dtype() == dtype ? x : (x_cast = cast(x, dtype));
  const Tensor& yc = y.dtype() == dtype ? y : (y_cast = cast(y, dtype));
  visit(dtype, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    same_type_binary_loop<T>(xc, yc, out, [&](T a, T b) { return f(a, b); });
  });
}
template <class F> void promoted_binary(const char* name, const Tensor& x, const Tensor& y, const Tensor& out, F f) {
  promoted_binary(name, x, y, out, f, [](DType t, const char* n, auto&& g) { visit_numeric(t, n, g); });
}

TensorSpec inplace_spec(const TensorSpec& x, const TensorSpec& y) {
  Shape s = broadcast_shapes(x.shape, y.shape);
  SAMPAN_CHECK(s == x.shape, ValueError, "in-place result of shape ", shape_str(s), " does not fit the target of shape ",
               shape_str(x.shape));
  DType d = promote_types(x.dtype, y.dtype);
  SAMPAN_CHECK(d == x.dtype, TypeError, "in-place result of dtype ", dtype_name(d), " cannot be stored in a ",
               dtype_name(x.dtype), " tensor");
  return x;
}

TensorSpec div_spec(const TensorSpec& x, const TensorSpec& y) {
  TensorSpec s = detail::broadcast_spec(x, y);
  s.dtype = to_floating(s.dtype);
  return s;
}

using Add = kernels::AddElement;  // the per-element bodies the CUDA twins share
using Sub = kernels::SubElement;
using Mul = kernels::MulElement;
using Div = kernels::DivElement;


}  // namespace

// Gradients of complex ops follow PyTorch: grad_x = grad_out * conj(d out / d x).
#define SAMPAN_UNPAREN(...) __VA_ARGS__
// SAVES: what the vjp reads, as a parenthesized list of names: (), ("x", "y").
#define SAMPAN_BINARY_OP(NAME, FN, DOC, SPEC, VJP, SAVES, SAMPLES, INPLACE_SAMPLES)                              \
  SAMPAN_OP(core, NAME)                                                                       \
      .doc(DOC)                                                                               \
      .args("x", "y")                                                                         \
      .outputs("out")                                                                         \
      .shape(SPEC)                                                                            \
      .cpu([](const Tensor& x, const Tensor& y, Tensor& out) { promoted_binary("core::" #NAME, x, y, out, FN{}); }) \
      SAMPAN_BINARY_CUDA("core::" #NAME, FN)                                                  \
      .output_may_reuse({"x", "y"})                                                           \
      .vjp(VJP)                                                                               \
      .saves_for_vjp({SAMPAN_UNPAREN SAVES})                                                  \
      .samples(SAMPLES);                                                                      \
  SAMPAN_OP(core, NAME##_)                                                                    \
      .doc(DOC " In place: the result is written into x.")                                   \
      .args("x", "y")                                                                         \
      .outputs("x")                                                                           \
      .inplace(0, 0)                                                                          \
      .shape(inplace_spec)                                                                    \
      .cpu([](const Tensor& x, const Tensor& y, Tensor& out) { promoted_binary("core::" #NAME "_", x, y, out, FN{}); }) \
      SAMPAN_BINARY_CUDA("core::" #NAME "_", FN)                                              \
      .vjp(VJP)                                                                               \
      .saves_for_vjp({SAMPAN_UNPAREN SAVES})                                                  \
      .samples(INPLACE_SAMPLES);

Grads add_vjp(const VjpContext& c) { return {c.grad_output(0), c.grad_output(0)}; }
Grads sub_vjp(const VjpContext& c) { return {c.grad_output(0), neg(c.grad_output(0))}; }
Grads mul_vjp(const VjpContext& c) {
  if (c.needs_grad(0) != c.needs_grad(1)) {  // one gradient (a dropout mask, a constant factor):
    const size_t other = c.needs_grad(0) ? 1 : 0;  // written over the output gradient's buffer
    Tensor g = detail::mul_taking_grad(c.take_grad_output(0), conj(c.input(other)));
    return c.needs_grad(0) ? Grads{g, Tensor()} : Grads{Tensor(), g};
  }
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

SAMPAN_BINARY_OP(add, Add, "x + y with broadcasting.", detail::broadcast_spec, add_vjp, (),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3})}, {c128({3}), c128({3}, -0.5)}}; }),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }))
SAMPAN_BINARY_OP(sub, Sub, "x - y with broadcasting.", detail::broadcast_spec, sub_vjp, (),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({2, 1})}}; }),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }))
SAMPAN_BINARY_OP(mul, Mul, "x * y with broadcasting.", detail::broadcast_spec, mul_vjp, ("x", "y"),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3})}, {c128({3}), c128({3}, 0.9)}}; }),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; }))
SAMPAN_BINARY_OP(div, Div, "x / y with broadcasting (true division).", div_spec, div_vjp, ("x", "y"),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 1.0)}}; }),
                 ([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 1.0)}}; }))
#undef SAMPAN_BINARY_OP
#undef SAMPAN_UNPAREN

#define SAMPAN_BINARY_API(NAME)                            \
  Tensor NAME(const Tensor& x, const Tensor& y) {          \
    static OpHandle op("core::" #NAME);                    \
    return std::move(op(x, y)[0]);                         \
  }
SAMPAN_BINARY_API(add)
SAMPAN_BINARY_API(sub)
SAMPAN_BINARY_API(mul)
SAMPAN_BINARY_API(div)
SAMPAN_BINARY_API(add_)
SAMPAN_BINARY_API(sub_)
SAMPAN_BINARY_API(mul_)
SAMPAN_BINARY_API(div_)

// ------------------------------------------------------------------------------------------
// pow, maximum, minimum, atan2, remainder, floor_divide
// ------------------------------------------------------------------------------------------

namespace {

struct VisitReal {
  template <class G> void operator()(DType t, const char* n, G&& g) const { visit_real(t, n, g); }
};
struct VisitFloating {
  template <class G> void operator()(DType t, const char* n, G&& g) const { visit_floating(t, n, g); }
};

// x ** y. Integers: exact by repeated squaring, wrapping on overflow as NumPy and PyTorch do;
// a negative integer exponent is an error (it has no integer result), flagged from inside the
// loop (kernels must not throw from an OpenMP region) and raised after it.
struct Pow {
  std::atomic<bool>* negative_exponent;
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b < 0) {
        negative_exponent->store(true, std::memory_order_relaxed);
        return 0;
      }
      return kernels::PowIntElement{}(a, b);  // the body of the CUDA twin
    } else if constexpr (detail::is_complex_t<T>::value) {
      // libstdc++ gives 0 ** 0 = 0 for complex; the convention (NumPy, PyTorch) is 1.
      return a == T(0) && b == T(0) ? T(1) : std::pow(a, b);
    } else {
      return kernels::PowElement{}(a, b);  // the body of the CUDA twin
    }
  }
};

// NaN wins, as NumPy's maximum/minimum and PyTorch's.
using Maximum = kernels::MaximumElement;  // the bodies the CUDA twins run
using Minimum = kernels::MinimumElement;
using Atan2 = kernels::Atan2Element;

// Python's % : the result has the sign of the divisor (NumPy's mod, PyTorch's remainder).
// Integer division by zero is flagged (and raised after the loop); b = -1 is special-cased
// because lowest % -1 overflows.
struct Remainder {
  std::atomic<bool>* zero_division;
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) {
        zero_division->store(true, std::memory_order_relaxed);
        return 0;
      }
    }
    return kernels::RemainderElement{}(a, b);  // the body of the CUDA twin
  }
};

// Python's // : floor(a / b). For floats, NumPy's npy_divmod: from fmod, so that a == b * q + r
// holds with r = remainder(a, b) even where a / b rounds across an integer.
struct FloorDivide {
  std::atomic<bool>* zero_division;
  template <class T> T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) {
        zero_division->store(true, std::memory_order_relaxed);
        return 0;
      }
    }
    return kernels::FloorDivideElement{}(a, b);  // the body of the CUDA twin
  }
};

// ---- dtype rules ----

TensorSpec pow_spec(const TensorSpec& x, const TensorSpec& y) {
  TensorSpec s = detail::broadcast_spec(x, y);
  if (s.dtype == DType::Bool)
    SAMPAN_THROW(TypeError, "pow of two bool tensors is not defined: give 'x' or 'y' a numeric dtype");
  return s;
}

// Ordered arithmetic (maximum, remainder ...): complex rejected, and not both bool.
TensorSpec real_binary_spec(const TensorSpec& x, const TensorSpec& y) {
  const char* expected = "a real dtype (bool, int32, int64, float32, float64)";
  detail::check_dtype(!is_complex(x.dtype), "x", x.dtype, expected);
  detail::check_dtype(!is_complex(y.dtype), "y", y.dtype, expected);
  TensorSpec s = detail::broadcast_spec(x, y);
  if (s.dtype == DType::Bool)
    SAMPAN_THROW(TypeError, "both arguments are bool: give 'x' or 'y' a numeric dtype");
  return s;
}

TensorSpec atan2_spec(const TensorSpec& y, const TensorSpec& x) {
  const char* expected = "a real dtype (bool, int32, int64, float32, float64)";
  detail::check_dtype(!is_complex(y.dtype), "y", y.dtype, expected);
  detail::check_dtype(!is_complex(x.dtype), "x", x.dtype, expected);
  TensorSpec s = detail::broadcast_spec(y, x);
  s.dtype = to_floating(s.dtype);
  return s;
}

// Runs a flagging kernel (Pow, Remainder, FloorDivide) and raises when it flagged.
template <class F, class Visit>
void flagged_binary(const char* name, const Tensor& x, const Tensor& y, Tensor& out, Visit visit,
                    const char* message) {
  std::atomic<bool> flag{false};
  promoted_binary(name, x, y, out, F{&flag}, visit);
  if (flag.load()) throw ValueError(message);
}

Tensor zero_of(const Tensor& like) { return scalar_like(0.0, like); }

constexpr const char* kIntegerZeroDivision = "integer division by zero: 'y' has a zero";
constexpr const char* kNegativeIntegerPower =
    "integers to negative integer powers are not allowed: 'y' has a negative element (convert 'x' to a floating dtype)";

#if defined(SAMPAN_CUDA_KERNELS)
// The GPU twins of remainder, floor_divide and pow: for an integer result, y is first checked on
// the device (one reduction read back: any zero, or any negative for pow), raising what the CPU's
// loop flags; then the element kernel, the CPU's bodies.
template <class F>
void checked_integer_on_cuda(const char* name, const Tensor& x, const Tensor& y, Tensor& out, bool negative,
                             const char* message) {
  if (is_integral(out.dtype())) {
    const Tensor yc = y.to(out.dtype()), zero = zeros({}, out.dtype(), y.device());
    if (sum(negative ? lt(yc, zero) : eq(yc, zero)).item() != 0) throw ValueError(message);
  }
  detail::binary_on_cuda<F>(name, x, y, out);
}
#endif

// d x^y / dx = y x^(y-1), taken as 0 where y == 0 (so 0^0 gives 0, not 0 * inf).
// d x^y / dy = x^y log(x), taken as 0 where x == 0 and real(y) >= 0 (PyTorch's convention:
// the one-sided limit from x > 0).
Grads pow_vjp(const VjpContext& c) {
  Tensor x = c.input(0), y = c.input(1), g = c.grad_output(0);
  Tensor gx, gy;
  if (c.needs_grad(0)) {
    Tensor d = mul(y, pow(x, sub(y, scalar_like(1.0, y))));
    gx = where(eq(y, zero_of(y)), zero_of(g), mul(g, conj(d)));
  }
  if (c.needs_grad(1)) {
    Tensor yr = is_complex(y.dtype()) ? real(y) : y;
    Tensor at_zero = logical_and(eq(x, zero_of(x)), ge(yr, zero_of(yr)));
    gy = where(at_zero, zero_of(g), mul(g, conj(mul(c.output(0), log(x)))));
  }
  return {gx, gy};
}

// The gradient goes to the larger (smaller) input; on ties it is split equally (PyTorch).
Grads extremum_vjp(const VjpContext& c, bool is_max) {
  Tensor x = c.input(0), y = c.input(1), g = c.grad_output(0);
  Tensor half = mul(g, scalar_like(0.5, g)), zero = zero_of(g), tie = eq(x, y);
  auto grad_for = [&](const Tensor& wins) { return where(wins, g, where(tie, half, zero)); };
  return {c.needs_grad(0) ? grad_for(is_max ? gt(x, y) : lt(x, y)) : Tensor(),
          c.needs_grad(1) ? grad_for(is_max ? lt(x, y) : gt(x, y)) : Tensor()};
}

// d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
Grads atan2_vjp(const VjpContext& c) {
  Tensor y = c.input(0), x = c.input(1), g = c.grad_output(0);
  Tensor scale = div(g, add(mul(x, x), mul(y, y)));
  return {c.needs_grad(0) ? mul(scale, x) : Tensor(), c.needs_grad(1) ? neg(mul(scale, y)) : Tensor()};
}

}  // namespace

SAMPAN_OP(core, pow)
    .amp(AmpCast::Float32)
    .doc("x ** y with broadcasting. Integer powers are exact (a negative integer exponent is an "
         "error); 0 ** 0 = 1.")
    .args("x", "y")
    .outputs("out")
    .shape(pow_spec)
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .cpu([](const Tensor& x, const Tensor& y, Tensor& out) {
      flagged_binary<Pow>("core::pow", x, y, out,
                          [](DType t, const char* n, auto&& g) { visit_numeric(t, n, g); }, kNegativeIntegerPower);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& y, Tensor& out) {  // real dtypes; complex stays on the CPU
      checked_integer_on_cuda<kernels::PowRealElement>("core::pow", x, y, out, true, kNegativeIntegerPower);
    })
    .cuda_rounds_differently()  // CUDA's pow against glibc's
#endif
    .vjp(pow_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, -1.0, 0.31)}, {c128({3}), c128({3}, 0.5)}}; })
    .saves_for_vjp({"x", "y", "out"});

SAMPAN_OP(core, maximum)
    .doc("Elementwise larger of x and y (NaN wins). The gradient goes to the larger input and is "
         "split equally on ties.")
    .args("x", "y")
    .outputs("out")
    .shape(real_binary_spec)
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    .cpu([](const Tensor& x, const Tensor& y, Tensor& out) {
      promoted_binary("core::maximum", x, y, out, Maximum{}, VisitReal{});
    })
    SAMPAN_BINARY_CUDA("core::maximum", kernels::MaximumElement)
    .vjp([](const VjpContext& c) { return extremum_vjp(c, true); })
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; })
    .saves_for_vjp({"x", "y"});

SAMPAN_OP(core, minimum)
    .doc("Elementwise smaller of x and y (NaN wins). The gradient goes to the smaller input and is "
         "split equally on ties.")
    .args("x", "y")
    .outputs("out")
    .shape(real_binary_spec)
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    .cpu([](const Tensor& x, const Tensor& y, Tensor& out) {
      promoted_binary("core::minimum", x, y, out, Minimum{}, VisitReal{});
    })
    SAMPAN_BINARY_CUDA("core::minimum", kernels::MinimumElement)
    .vjp([](const VjpContext& c) { return extremum_vjp(c, false); })
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; })
    .saves_for_vjp({"x", "y"});

SAMPAN_OP(core, atan2)
    .doc("The angle of the point (x, y) in (-pi, pi], i.e. atan(y / x) in the right quadrant.")
    .args("y", "x")
    .outputs("out")
    .shape(atan2_spec)
    .dtypes({DType::Float32, DType::Float64})
    .cpu([](const Tensor& y, const Tensor& x, Tensor& out) {
      promoted_binary("core::atan2", y, x, out, Atan2{}, VisitFloating{});
    })
    SAMPAN_BINARY_CUDA("core::atan2", kernels::Atan2Element)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda_rounds_differently()  // CUDA's atan2 against glibc's
#endif
    .vjp(atan2_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), f64({3}, -0.5, 0.4)}}; });

SAMPAN_OP(core, remainder)
    .doc("x - y * floor(x / y): the remainder with the sign of y (Python's %). Integer division "
         "by zero is an error.")
    .args("x", "y")
    .outputs("out")
    .shape(real_binary_spec)
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    .cpu([](const Tensor& x, const Tensor& y, Tensor& out) {
      flagged_binary<Remainder>("core::remainder", x, y, out, VisitReal{}, kIntegerZeroDivision);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& y, Tensor& out) {  // exact: the CPU's bits
      checked_integer_on_cuda<kernels::RemainderElement>("core::remainder", x, y, out, false, kIntegerZeroDivision);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // d/dx = 1, d/dy = -floor(x / y) (away from the jumps)
      Tensor g = c.grad_output(0);
      return {g, c.needs_grad(1) ? neg(mul(g, floor_divide(c.input(0), c.input(1)))) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{from_vector({5.3, -5.3, 2.2, -0.7, 7.9, 3.3}, {2, 3}), from_vector({2.0, -1.5, 0.9}, {3})}}; });

SAMPAN_OP(core, floor_divide)
    .doc("floor(x / y) (Python's //); integers stay integers. Integer division by zero is an "
         "error. Piecewise constant: zero gradient.")
    .args("x", "y")
    .outputs("out")
    .shape(real_binary_spec)
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    .cpu([](const Tensor& x, const Tensor& y, Tensor& out) {
      flagged_binary<FloorDivide>("core::floor_divide", x, y, out, VisitReal{}, kIntegerZeroDivision);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& y, Tensor& out) {  // exact: the CPU's bits
      checked_integer_on_cuda<kernels::FloorDivideElement>("core::floor_divide", x, y, out, false, kIntegerZeroDivision);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor z = zeros_like(c.grad_output(0));
      return {z, z};
    })
    .samples([] { return std::vector<Values>{{from_vector({5.3, -5.3, 2.2, -0.7, 7.9, 3.3}, {2, 3}), from_vector({2.0, -1.5, 0.9}, {3})}}; });

// ------------------------------------------------------------------------------------------
// where
// ------------------------------------------------------------------------------------------

SAMPAN_OP(core, where)
    .doc("x where cond is true, else y; cond, x and y broadcast together and x, y are promoted "
         "to a common dtype.")
    .args("cond", "x", "y")
    .outputs("out")
    .shape([](const TensorSpec& cond, const TensorSpec& x, const TensorSpec& y) {
      detail::check_dtype(cond.dtype == DType::Bool, "cond", cond.dtype, "bool (make one with eq, gt ...)");
      return TensorSpec{broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape),
                        promote_types(x.dtype, y.dtype), x.device};
    })
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .cpu([](const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) {
      Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
      Tensor yc = y.dtype() == out.dtype() ? y : cast(y, out.dtype());
      visit_all(out.dtype(), "core::where", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::ternary_loop<bool, T, T>(cond, xc, yc, out, [](bool c, T a, T b) { return c ? a : b; });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& cond, const Tensor& x, const Tensor& y, Tensor& out) { detail::where_on_cuda(cond, x, y, out); })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor cond = c.input(0), g = c.grad_output(0), zero = zero_of(g);
      return {Tensor(), c.needs_grad(1) ? where(cond, g, zero) : Tensor(),
              c.needs_grad(2) ? where(cond, zero, g) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{from_vector({1, 0}, {2, 1}, DType::Bool), f64({2, 3}), f64({3}, 0.9)}}; })
    .saves_for_vjp({"cond"});

SAMPAN_BINARY_API(pow)
SAMPAN_BINARY_API(maximum)
SAMPAN_BINARY_API(minimum)
SAMPAN_BINARY_API(remainder)
SAMPAN_BINARY_API(floor_divide)

Tensor atan2(const Tensor& y, const Tensor& x) {
  static OpHandle op("core::atan2");
  return op(y, x)[0];
}
Tensor pow(const Tensor& x, double y) { return pow(x, scalar_like(y, x)); }
Tensor where(const Tensor& cond, const Tensor& x, const Tensor& y) {
  static OpHandle op("core::where");
  return op(cond, x, y)[0];
}

Tensor scalar_like(double value, const Tensor& like) {
  DType d = like.dtype();
  bool integral_value = value == static_cast<double>(static_cast<int64_t>(value));
  if (d == DType::Bool) d = integral_value ? DType::Int64 : DType::Float32;
  else if (is_integral(d) && !integral_value) d = DType::Float32;
  return scalar_tensor(value, d, like.device());
}

#undef SAMPAN_BINARY_API

}  // namespace sampan
