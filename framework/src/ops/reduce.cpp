// sampan: reductions (core::sum) and the compositions built on it (mean, sum_to).
#include <algorithm>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/reduce_loop.h"

namespace sampan {

namespace {

std::vector<bool> reduced_mask(const std::vector<int64_t>& axes, int64_t ndim) {
  std::vector<bool> m(ndim, axes.empty());
  for (auto a : axes) {
    int64_t d = normalize_axis(a, ndim);
    if (ndim == 0) continue;
    if (m[d]) throw ValueError("axis " + std::to_string(a) + " appears twice in a reduction");
    m[d] = true;
  }
  return m;
}

Shape reduced_shape(const Shape& s, const std::vector<bool>& m, bool keepdim) {
  Shape r;
  for (size_t d = 0; d < s.size(); ++d) {
    if (!m[d]) r.push_back(s[d]);
    else if (keepdim) r.push_back(1);
  }
  return r;
}

// Integers and bools sum in int64 (NumPy); floats keep their dtype.
DType sum_dtype(DType d) { return (d == DType::Bool || is_integral(d)) ? DType::Int64 : d; }

template <class T> struct accum { using type = T; };
template <> struct accum<float> { using type = double; };  // float32 sums accumulate in double
template <> struct accum<complex64> { using type = complex128; };

struct SumStep {
  template <class A, class X> A operator()(A a, X x) const { return a + static_cast<A>(x); }
  template <class A> A combine(A a, A b) const { return a + b; }
};

}  // namespace

SAMPAN_OP(core, sum)
    .doc("Sum over `axes` (all when empty); integer inputs sum in int64.")
    .args("x", "axes", "keepdim")
    .outputs("out")
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      return TensorSpec{reduced_shape(x.shape, reduced_mask(axes, x.dim()), keepdim), sum_dtype(x.dtype), x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) {
      auto m = reduced_mask(axes, x.dim());
      std::unique_ptr<bool[]> mask(new bool[m.size() + 1]);
      for (size_t i = 0; i < m.size(); ++i) mask[i] = m[i];
      Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
      visit_numeric(out.dtype(), "core::sum", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = typename accum<T>::type;
        kernels::reduce_strided(xc.dim(), xc.shape().data(), static_cast<const T*>(xc.raw_data()),
                                xc.strides().data(), mask.get(), out.data<T>(), A(0), SumStep{},
                                [](A a, int64_t) { return static_cast<T>(a); });
      });
    })
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0);
      const auto& axes = c.attr<std::vector<int64_t>>(1);
      bool keepdim = c.attr<bool>(2);
      Tensor g = c.grad_output(0);
      if (!keepdim) g = reshape(g, reduced_shape(x.shape(), reduced_mask(axes, x.dim()), true));
      return {broadcast_to(g, x.shape())};
    });

Tensor sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
  static OpHandle op("core::sum");
  return op(x, axes, keepdim)[0];
}

Tensor mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
  auto m = reduced_mask(axes, x.dim());
  int64_t count = 1;
  for (size_t d = 0; d < m.size(); ++d)
    if (m[d]) count *= x.shape()[d];
  Tensor s = sum(is_differentiable(x.dtype()) ? x : cast(x, DType::Float32), axes, keepdim);
  return div(s, scalar_like(static_cast<double>(count), s));
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  const int64_t lead = x.dim() - static_cast<int64_t>(shape.size());
  if (lead < 0) throw ValueError("sum_to: cannot reduce shape " + shape_str(x.shape()) + " to " + shape_str(shape));
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < lead) axes.push_back(d);
    else if (shape[d - lead] == 1 && x.shape()[d] != 1) axes.push_back(d);
    else if (shape[d - lead] != x.shape()[d])
      throw ValueError("sum_to: shape " + shape_str(x.shape()) + " is not a broadcast of " + shape_str(shape));
  }
  if (axes.empty()) return reshape(x, shape);
  return reshape(sum(x, axes, true), shape);
}

}  // namespace sampan
