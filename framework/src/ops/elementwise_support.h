// sampan internal: helpers shared by the elementwise op families (conversion between element
// types, broadcast strides, typed unary/binary loops over tensors).
#pragma once

#include <type_traits>

#include "sampan/dispatch.h"
#include "sampan/op.h"
#include "../kernels/strided_loop.h"

namespace sampan::detail {

template <class T> struct is_complex_t : std::false_type {};
template <class T> struct is_complex_t<std::complex<T>> : std::true_type {};

/// Converts one element between sampan element types (complex to real keeps the real part).
template <class To, class From> inline To convert_value(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_t<From>::value) {
    if constexpr (is_complex_t<To>::value) return To(static_cast<typename To::value_type>(v.real()),
                                                     static_cast<typename To::value_type>(v.imag()));
    else return convert_value<To>(v.real());
  } else if constexpr (is_complex_t<To>::value) {
    return To(static_cast<typename To::value_type>(static_cast<double>(convert_value<double>(v))), 0);
  } else if constexpr (std::is_same_v<From, Half> || std::is_same_v<From, BFloat16>) {
    return convert_value<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BFloat16>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

/// float16 and bfloat16: storage types whose arithmetic runs in float32.
inline bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

/// Element strides of `t` viewed with the (broadcast) shape `out_shape`.
inline Shape broadcast_strides(const Tensor& t, const Shape& out_shape) {
  Shape st(out_shape.size(), 0);
  const size_t lead = out_shape.size() - t.shape().size();
  for (size_t d = 0; d < t.shape().size(); ++d)
    st[lead + d] = t.shape()[d] == 1 ? 0 : t.strides()[d];
  return st;
}

/// out = f(x) elementwise; x has element type In, out has element type Out.
template <class In, class Out, class F> void unary_loop(const Tensor& x, const Tensor& out, F f) {
  Shape sx = broadcast_strides(x, out.shape());
  kernels::map_strided(out.dim(), out.shape().data(),
                       kernels::Strided<Out>{static_cast<Out*>(out.raw_data()), out.strides().data()}, f,
                       kernels::Strided<const In>{static_cast<const In*>(x.raw_data()), sx.data()});
}

/// out = f(x, y) elementwise with broadcasting; x and y have element type In.
template <class In, class Out, class F>
void binary_loop(const Tensor& x, const Tensor& y, const Tensor& out, F f) {
  Shape sx = broadcast_strides(x, out.shape()), sy = broadcast_strides(y, out.shape());
  kernels::map_strided(out.dim(), out.shape().data(),
                       kernels::Strided<Out>{static_cast<Out*>(out.raw_data()), out.strides().data()}, f,
                       kernels::Strided<const In>{static_cast<const In*>(x.raw_data()), sx.data()},
                       kernels::Strided<const In>{static_cast<const In*>(y.raw_data()), sy.data()});
}

/// out = f(c, x, y) elementwise with 3-way broadcasting; c has element type C, x and y type In
/// (core::where).
template <class C, class In, class Out, class F>
void ternary_loop(const Tensor& c, const Tensor& x, const Tensor& y, const Tensor& out, F f) {
  Shape sc = broadcast_strides(c, out.shape()), sx = broadcast_strides(x, out.shape()),
        sy = broadcast_strides(y, out.shape());
  kernels::map_strided(out.dim(), out.shape().data(),
                       kernels::Strided<Out>{static_cast<Out*>(out.raw_data()), out.strides().data()}, f,
                       kernels::Strided<const C>{static_cast<const C*>(c.raw_data()), sc.data()},
                       kernels::Strided<const In>{static_cast<const In*>(x.raw_data()), sx.data()},
                       kernels::Strided<const In>{static_cast<const In*>(y.raw_data()), sy.data()});
}

/// g * y for a vjp that hands its output gradient over (VjpContext::take_grad_output): the
/// product may then be written over g's buffer (core::mul's .output_may_reuse).
inline Tensor mul_taking_grad(Tensor&& g, const Tensor& y) {
  static OpHandle op("core::mul");
  return std::move(op(std::move(g), y)[0]);
}

/// Throws TypeError naming argument `arg`, its dtype and what was `expected`, unless `ok`.
/// Shape functions call it so a bad dtype fails before anything is allocated.
inline void check_dtype(bool ok, const char* arg, DType got, const char* expected) {
  SAMPAN_CHECK(ok, TypeError, "argument '", arg, "' has dtype ", dtype_name(got), ", expected ",
               expected);
}

/// The shape function of a broadcasting binary op with promoted dtype.
inline TensorSpec broadcast_spec(const TensorSpec& x, const TensorSpec& y) {
  return TensorSpec{broadcast_shapes(x.shape, y.shape), promote_types(x.dtype, y.dtype), x.device};
}

}  // namespace sampan::detail
