// sampan internal: what the unary op files (unary.cpp, activation.cpp) share: dtype visitors as
// types, the dtype rules as shape functions, and the macro that declares a plain unary op.
#pragma once

#include "sampan/ops.h"
#include "elementwise_support.h"

namespace sampan::detail {

// The dtype visitors of dispatch.h as types, so a macro can take one as a parameter.
struct VisitFloating {
  template <class F> void operator()(DType t, const char* op, F&& f) const { visit_floating(t, op, f); }
};
struct VisitFloatingComplex {
  template <class F> void operator()(DType t, const char* op, F&& f) const { visit_floating_complex(t, op, f); }
};
struct VisitReal {
  template <class F> void operator()(DType t, const char* op, F&& f) const { visit_real(t, op, f); }
};
struct VisitNumeric {
  template <class F> void operator()(DType t, const char* op, F&& f) const { visit_numeric(t, op, f); }
};

// The dtypes each visitor accepts (what check_op sweeps).
inline const std::vector<DType> kFloatingDTypes{DType::Float32, DType::Float64};
inline const std::vector<DType> kFloatingComplexDTypes{DType::Float32, DType::Float64, DType::Complex64,
                                                       DType::Complex128};
inline const std::vector<DType> kRealDTypes{DType::Int32, DType::Int64, DType::Float32, DType::Float64};
inline const std::vector<DType> kNumericDTypes{DType::Int32,   DType::Int64,     DType::Float32,
                                               DType::Float64, DType::Complex64, DType::Complex128};

/// out = f(x) with x converted to out's dtype first (integers become float32 for sqrt, sin ...).
template <class Visit, class F> void map_unary(const char* name, const Tensor& x, const Tensor& out, F f) {
  if (is_half(out.dtype())) {  // float16/bfloat16 compute in float32, stored rounded
    Tensor tmp = Tensor::empty(out.shape(), DType::Float32, out.device());
    map_unary<Visit>(name, x, tmp, f);
    copy_(out, tmp);
    return;
  }
  Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
  Visit{}(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    unary_loop<T, T>(xc, out, [&](T v) { return f(v); });
  });
}

// ---- dtype rules, as shape functions ----

/// Floating functions (sqrt, sin ...): integer and bool inputs compute in float32, PyTorch's
/// default dtype; floating and complex dtypes are kept.
inline TensorSpec floating_unary_spec(const TensorSpec& x) {
  return TensorSpec{x.shape, to_floating(x.dtype), x.device};
}
/// Real-only floating functions (erf, log1p, gelu ...): as above, complex rejected.
inline TensorSpec real_floating_unary_spec(const TensorSpec& x) {
  check_dtype(!is_complex(x.dtype), "x", x.dtype, "a real dtype (bool, int32, int64, float32, float64)");
  return floating_unary_spec(x);
}
/// Arithmetic that keeps the dtype (square, sign ...): bool rejected.
inline TensorSpec numeric_unary_spec(const TensorSpec& x) {
  check_dtype(x.dtype != DType::Bool, "x", x.dtype,
              "a numeric dtype (int32, int64, float32, float64, complex64, complex128)");
  return x;
}
/// Ordered arithmetic that keeps the dtype (floor, relu, clamp ...): bool and complex rejected.
inline TensorSpec real_numeric_unary_spec(const TensorSpec& x) {
  check_dtype(x.dtype != DType::Bool && !is_complex(x.dtype), "x", x.dtype,
              "a real numeric dtype (int32, int64, float32, float64)");
  return x;
}
/// In-place floating functions: the result must fit x's own dtype.
inline TensorSpec inplace_floating_unary_spec(const TensorSpec& x) {
  DType d = to_floating(x.dtype);
  SAMPAN_CHECK(d == x.dtype, TypeError, "in-place result of dtype ", dtype_name(d), " cannot be stored in the ",
               dtype_name(x.dtype), " tensor 'x'; use the out-of-place op");
  return x;
}

}  // namespace sampan::detail

/// Declares op core::NAME computing out = FN{}(x) elementwise: SPEC is its dtype rule, VISIT the
/// dtypes its kernel accepts, VJP its vjp (written with ops). INPLACE ops write into x.
#define SAMPAN_UNARY_OP(NAME, DOC, SPEC, VISIT, DTYPES, FN, VJP)                                      \
  SAMPAN_OP(core, NAME)                                                                               \
      .doc(DOC)                                                                                       \
      .args("x")                                                                                      \
      .outputs("out")                                                                                 \
      .shape(SPEC)                                                                                    \
      .dtypes(DTYPES)                                                                                 \
      .cpu([](const Tensor& x, Tensor& out) { ::sampan::detail::map_unary<VISIT>("core::" #NAME, x, out, FN{}); }) \
      .output_may_reuse({"x"}) /* map_unary is the in-place twin's kernel too */                     \
      .vjp(VJP)
#define SAMPAN_UNARY_INPLACE_OP(NAME, DOC, SPEC, VISIT, DTYPES, FN, VJP)                              \
  SAMPAN_OP(core, NAME)                                                                               \
      .doc(DOC " In place: the result is written into x.")                                           \
      .args("x")                                                                                      \
      .outputs("x")                                                                                   \
      .inplace(0, 0)                                                                                  \
      .shape(SPEC)                                                                                    \
      .dtypes(DTYPES)                                                                                 \
      .cpu([](const Tensor& x, Tensor& out) { ::sampan::detail::map_unary<VISIT>("core::" #NAME, x, out, FN{}); }) \
      .vjp(VJP)
/// (The two macros above end without a semicolon: the use chains .samples(...); after them.)
/// The C++ API function of a one-tensor op.
#define SAMPAN_UNARY_API(NAME)          \
  Tensor NAME(const Tensor& x) {        \
    static OpHandle op("core::" #NAME); \
    return op(x)[0];                    \
  }
