// sampan: comparisons and logical ops (core::eq, ne, lt, le, gt, ge, logical_and, logical_or,
// logical_xor, logical_not, isnan, isfinite). All give bool tensors and carry no gradient.
// Comparisons promote both inputs to a common dtype (NumPy's rules) and broadcast; the logical
// ops take any dtype and read it as truth values (nonzero is true).
#include <cmath>
#include <type_traits>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "elementwise_cuda.h"
#include "sample_support.h"
#include "../kernels/binary_element.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

using detail::is_complex_t;

template <class T> constexpr bool is_half_t = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Half and bfloat16 compare as float (they store bits; float is exact for them).
template <class T> auto comparable(T v) {
  if constexpr (is_half_t<T>) return static_cast<float>(v); else return v;
}
// Nonzero is true; a complex number is true when either part is nonzero.
template <class T> bool truth(T v) {
  if constexpr (is_complex_t<T>::value) return v.real() != 0 || v.imag() != 0;
  else return comparable(v) != decltype(comparable(v))(0);
}

// The per-element bodies the CUDA twins run (kernels/binary_element.h), over comparable values.
template <class E> struct Comparison {
  using Element = E;
  template <class T> bool operator()(T a, T b) const { return E{}(comparable(a), comparable(b)); }
};
// Orderings exist only for real types; the shape function rejects complex before the kernel runs.
template <class E> struct Ordering {
  using Element = E;
  template <class T> bool operator()(T a, T b) const {
    if constexpr (is_complex_t<T>::value) return false;
    else return E{}(comparable(a), comparable(b));
  }
};
using Eq = Comparison<kernels::EqElement>;
using Ne = Comparison<kernels::NeElement>;
using Lt = Ordering<kernels::LtElement>;
using Le = Ordering<kernels::LeElement>;
using Gt = Ordering<kernels::GtElement>;
using Ge = Ordering<kernels::GeElement>;

TensorSpec equality_spec(const TensorSpec& x, const TensorSpec& y) {
  return TensorSpec{broadcast_shapes(x.shape, y.shape), DType::Bool, x.device};
}

TensorSpec ordering_spec(const TensorSpec& x, const TensorSpec& y) {
  const char* expected = "a real dtype (complex numbers are not ordered)";
  detail::check_dtype(!is_complex(x.dtype), "x", x.dtype, expected);
  detail::check_dtype(!is_complex(y.dtype), "y", y.dtype, expected);
  return equality_spec(x, y);
}

// out = f(x, y) in the promoted dtype of x and y.
template <class F> void compare_kernel(const char* name, const Tensor& x, const Tensor& y, Tensor& out, F f) {
  DType common = promote_types(x.dtype(), y.dtype());
  Tensor xc = x.dtype() == common ? x : cast(x, common);
  Tensor yc = y.dtype() == common ? y : cast(y, common);
  visit_all(common, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::binary_loop<T, bool>(xc, yc, out, [&](T a, T b) { return f(a, b); });
  });
}

// x read as truth values: itself when bool, else a bool tensor (nonzero is true).
Tensor truth_values(const Tensor& x) {
  if (x.dtype() == DType::Bool) return x;
  Tensor b = Tensor::empty(x.shape(), DType::Bool, x.device());
  visit_all(x.dtype(), "truth value", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::unary_loop<T, bool>(x, b, [](T v) { return truth(v); });
  });
  return b;
}

template <class F> void logical_kernel(const Tensor& x, const Tensor& y, Tensor& out, F f) {
  detail::binary_loop<bool, bool>(truth_values(x), truth_values(y), out, f);
}

#if defined(SAMPAN_CUDA_KERNELS)
// x read as truth values on the GPU: x != 0 (a complex number is true when either part is nonzero,
// as `truth`).
Tensor truth_values_on_cuda(const Tensor& x) { return x.dtype() == DType::Bool ? x : ne(x, scalar_like(0.0, x)); }
template <class F> void compare_twin(const char* name, const Tensor& x, const Tensor& y, Tensor& out) {
  detail::compare_on_cuda<typename F::Element>(name, x, y, promote_types(x.dtype(), y.dtype()), out);
}
template <class E> void logical_twin(const char* name, const Tensor& x, const Tensor& y, Tensor& out) {
  detail::compare_on_cuda<E>(name, truth_values_on_cuda(x), truth_values_on_cuda(y), DType::Bool, out);
}
#define SAMPAN_COMPARE_CUDA(NAME, FN) \
  .cuda([](const Tensor& x, const Tensor& y, Tensor& out) { compare_twin<FN>("core::" #NAME, x, y, out); })
#define SAMPAN_LOGICAL_CUDA(NAME, E) \
  .cuda([](const Tensor& x, const Tensor& y, Tensor& out) { logical_twin<kernels::E>("core::" #NAME, x, y, out); })
#else
#define SAMPAN_COMPARE_CUDA(NAME, FN)
#define SAMPAN_LOGICAL_CUDA(NAME, E)
#endif

TensorSpec bool_like(const TensorSpec& x) { return TensorSpec{x.shape, DType::Bool, x.device}; }

}  // namespace

#define SAMPAN_COMPARE_OP(NAME, FN, SPEC, DOC)                                                     \
  SAMPAN_OP(core, NAME)                                                                            \
      .doc(DOC)                                                                                    \
      .args("x", "y")                                                                              \
      .outputs("out")                                                                              \
      .shape(SPEC)                                                                                 \
      .nondifferentiable()                                                                         \
      .cpu([](const Tensor& x, const Tensor& y, Tensor& out) { compare_kernel("core::" #NAME, x, y, out, FN{}); }) \
      SAMPAN_COMPARE_CUDA(NAME, FN)
SAMPAN_COMPARE_OP(eq, Eq, equality_spec, "x == y elementwise (bool), with broadcasting and promotion.")
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; });
SAMPAN_COMPARE_OP(ne, Ne, equality_spec, "x != y elementwise (bool); true where either is NaN.")
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3})}}; });
SAMPAN_COMPARE_OP(lt, Lt, ordering_spec, "x < y elementwise (bool); real dtypes only.")
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; });
SAMPAN_COMPARE_OP(le, Le, ordering_spec, "x <= y elementwise (bool); real dtypes only.")
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; });
SAMPAN_COMPARE_OP(gt, Gt, ordering_spec, "x > y elementwise (bool); real dtypes only.")
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; });
SAMPAN_COMPARE_OP(ge, Ge, ordering_spec, "x >= y elementwise (bool); real dtypes only.")
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3}, 0.9)}}; });
#undef SAMPAN_COMPARE_OP

#define SAMPAN_LOGICAL_OP(NAME, ELEMENT, DOC)                                                         \
  SAMPAN_OP(core, NAME)                                                                            \
      .doc(DOC " Any dtypes: nonzero is true.")                                                   \
      .args("x", "y")                                                                              \
      .outputs("out")                                                                              \
      .shape(equality_spec)                                                                        \
      .nondifferentiable()                                                                         \
      .cpu([](const Tensor& x, const Tensor& y, Tensor& out) {                                    \
        logical_kernel(x, y, out, kernels::ELEMENT{});                                              \
      })                                                                                           \
      SAMPAN_LOGICAL_CUDA(NAME, ELEMENT)
SAMPAN_LOGICAL_OP(logical_and, LogicalAndElement, "x and y, elementwise with broadcasting.")
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), from_vector({1, 0, 1}, {3}, DType::Bool)}}; });
SAMPAN_LOGICAL_OP(logical_or, LogicalOrElement, "x or y, elementwise with broadcasting.")
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), from_vector({1, 0, 1}, {3}, DType::Bool)}}; });
SAMPAN_LOGICAL_OP(logical_xor, LogicalXorElement, "x xor y, elementwise with broadcasting.")
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), from_vector({1, 0, 1}, {3}, DType::Bool)}}; });
#undef SAMPAN_LOGICAL_OP
#undef SAMPAN_COMPARE_CUDA
#undef SAMPAN_LOGICAL_CUDA

SAMPAN_OP(core, logical_not)
    .doc("not x, elementwise (bool). Any dtype: nonzero is true.")
    .args("x")
    .outputs("out")
    .shape(bool_like)
    .nondifferentiable()
    .cpu([](const Tensor& x, Tensor& out) {
      detail::unary_loop<bool, bool>(truth_values(x), out, [](bool v) { return !v; });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) {  // not x: x == 0 (x == false for bool)
      copy_(out, eq(x, x.dtype() == DType::Bool ? scalar_tensor(0.0, DType::Bool, x.device()) : scalar_like(0.0, x)));
    })
#endif
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31)}}; });

// Integers and bools are never NaN and always finite; complex: NaN when either part is,
// finite when both parts are.
SAMPAN_OP(core, isnan)
    .doc("Whether each element is NaN (bool); false for integer dtypes.")
    .args("x")
    .outputs("out")
    .shape(bool_like)
    .nondifferentiable()
    .cpu([](const Tensor& x, Tensor& out) {
      visit_all(x.dtype(), "core::isnan", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::unary_loop<T, bool>(x, out, [](T v) {
          if constexpr (is_complex_t<T>::value) return std::isnan(v.real()) || std::isnan(v.imag());
          else if constexpr (std::is_integral_v<T>) return false;
          else return std::isnan(comparable(v));
        });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, Tensor& out) { copy_(out, ne(x, x)); })  // NaN alone differs from itself
#endif
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; });

SAMPAN_OP(core, isfinite)
    .doc("Whether each element is finite, neither inf nor NaN (bool); true for integer dtypes.")
    .args("x")
    .outputs("out")
    .shape(bool_like)
    .nondifferentiable()
    .cpu([](const Tensor& x, Tensor& out) {
      visit_all(x.dtype(), "core::isfinite", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::unary_loop<T, bool>(x, out, [](T v) {
          if constexpr (is_complex_t<T>::value) return std::isfinite(v.real()) && std::isfinite(v.imag());
          else if constexpr (std::is_integral_v<T>) return true;
          else return std::isfinite(comparable(v));
        });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // x - x is 0 exactly where x is finite (inf - inf and NaN - NaN are NaN), both parts of a
    // complex x; integers and bools are finite.
    .cuda([](const Tensor& x, Tensor& out) {
      if (x.dtype() == DType::Bool || is_integral(x.dtype())) copy_(out, scalar_tensor(1, DType::Bool, out.device()));
      else copy_(out, eq(sub(x, x), zeros_like(x)));
    })
#endif
    .samples([] { return std::vector<Values>{{f64({2, 3})}}; });

#define SAMPAN_COMPARE_API(NAME)                   \
  Tensor NAME(const Tensor& x, const Tensor& y) {  \
    static OpHandle op("core::" #NAME);            \
    return op(x, y)[0];                            \
  }
SAMPAN_COMPARE_API(eq)
SAMPAN_COMPARE_API(ne)
SAMPAN_COMPARE_API(lt)
SAMPAN_COMPARE_API(le)
SAMPAN_COMPARE_API(gt)
SAMPAN_COMPARE_API(ge)
SAMPAN_COMPARE_API(logical_and)
SAMPAN_COMPARE_API(logical_or)
SAMPAN_COMPARE_API(logical_xor)
#undef SAMPAN_COMPARE_API

Tensor logical_not(const Tensor& x) {
  static OpHandle op("core::logical_not");
  return op(x)[0];
}
Tensor isnan(const Tensor& x) {
  static OpHandle op("core::isnan");
  return op(x)[0];
}
Tensor isfinite(const Tensor& x) {
  static OpHandle op("core::isfinite");
  return op(x)[0];
}

}  // namespace sampan
