// sampan: reductions over axes (core::sum, prod, amax, amin, argmax, argmin, var, std,
// logsumexp, norm), the scan core::cumsum, and the compositions built on them (mean, sum_to).
//
// Axis conventions follow NumPy: `axes` empty reduces everything, negative axes count from the
// end, `keepdim` keeps reduced dimensions with size 1. vjps are written with ops; where a vjp
// needs a selection (which element was the maximum, which input is zero) the selection is a
// constant 0/1 tensor computed from detached data, so the gradient stays differentiable in the
// output gradient and is exact almost everywhere.
#include <algorithm>
#include <cmath>
#include <limits>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/axis_loop.h"
#include "../kernels/reduce_loop.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "cuda_support.h"
#include "device_elements.h"
#include "../kernels/axis_kernels_cuda.h"
#include "../kernels/reduce_kernels_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

std::vector<bool> reduced_mask(const std::vector<int64_t>& axes, int64_t ndim) {
  std::vector<bool> m(ndim, axes.empty());
  for (auto a : axes) {
    int64_t d = normalize_axis(a, ndim);
    if (ndim == 0) continue;
    if (m[d]) SAMPAN_THROW(ValueError, "axis ", a, " appears twice in a reduction");
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

// Throws TypeError naming the argument, its dtype and what was expected, unless `ok`.
void require_dtype(bool ok, const char* arg, DType got, const char* expected) {
  SAMPAN_CHECK(ok, TypeError, "argument '", arg, "' has dtype ", dtype_name(got), ", expected ", expected);
}

// Number of input elements folded into each output element.
int64_t reduced_count(const Shape& s, const std::vector<bool>& m) {
  int64_t n = 1;
  for (size_t d = 0; d < s.size(); ++d)
    if (m[d]) n *= s[d];
  return n;
}

// Integers and bools sum in int64 (NumPy); floats keep their dtype.
DType sum_dtype(DType d) { return (d == DType::Bool || is_integral(d)) ? DType::Int64 : d; }

template <class T> struct accum { using type = T; };
template <> struct accum<float> { using type = double; };  // float32 sums accumulate in double
template <> struct accum<complex64> { using type = complex128; };
template <> struct accum<Half> { using type = float; };  // the 16-bit floats accumulate in float32
template <> struct accum<BFloat16> { using type = float; };

// The dtypes of sums, products and scans: the numeric ones and the 16-bit floats, which
// accumulate in float32 (accum) and round once.
const std::vector<DType> kAccumulatingDTypes{DType::Int32,   DType::Int64,   DType::Float16,   DType::BFloat16,
                                             DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};

/// visit_numeric, and float16 / bfloat16 as sampan::Half / BFloat16.
template <class F> void visit_accumulating(DType t, const char* op, F f) {
  if (t != DType::Float16 && t != DType::BFloat16) return visit_numeric(t, op, f);
  visit_all(t, op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) f(tag);
  });
}

struct SumStep {
  template <class A, class X> A operator()(A a, X x) const { return a + static_cast<A>(x); }
  template <class A> A combine(A a, A b) const { return a + b; }
};

// acc + map(x): sums of a function of the elements (|x|^2, |x| ...).
template <class Map> struct SumOfStep {
  Map map;
  template <class A, class X> A operator()(A a, X x) const { return a + static_cast<A>(map(x)); }
  template <class A> A combine(A a, A b) const { return a + b; }
};
template <class Map> SumOfStep<Map> sum_of(Map m) { return SumOfStep<Map>{m}; }

struct ProdStep {
  template <class A, class X> A operator()(A a, X x) const { return a * static_cast<A>(x); }
  template <class A> A combine(A a, A b) const { return a * b; }
};

// Runs kernels::reduce_strided over `x` (already of element type In) for the axes of `out`.
template <class In, class Out, class Acc, class Step, class Finish>
void reduce_axes(const Tensor& x, const std::vector<int64_t>& axes, const Tensor& out, Acc init,
                 Step step, Finish finish) {
  auto m = reduced_mask(axes, x.dim());
  std::unique_ptr<bool[]> mask(new bool[m.size() + 1]);
  for (size_t i = 0; i < m.size(); ++i) mask[i] = m[i];
  kernels::reduce_strided(x.dim(), x.shape().data(), static_cast<const In*>(x.raw_data()),
                          x.strides().data(), mask.get(), static_cast<Out*>(out.raw_data()), init, step,
                          finish);
}

// The output gradient reshaped to keep the reduced dimensions (size 1), ready to broadcast
// against the input.
Tensor with_kept_dims(const Tensor& t, const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
  if (keepdim) return t;
  return reshape(t, reduced_shape(x.shape(), reduced_mask(axes, x.dim()), true));
}

// A constant (graph-free) 0/1 tensor of `dtype`: pred(a, b) elementwise, a and b broadcast. Both
// are compared in a's dtype.
template <class Pred> Tensor constant_mask(const Tensor& a, const Tensor& b, DType dtype, Pred pred) {
  NoGradGuard no_grad;
  Tensor ad = a.detach(), bd = b.detach().to(a.dtype());
  Tensor m = Tensor::empty(broadcast_shapes(ad.shape(), bd.shape()), DType::Float64, a.device());
  visit_numeric(ad.dtype(), "mask", [&](auto tag) {
    using T = typename decltype(tag)::type;
    detail::binary_loop<T, double>(ad, bd, m, [&](T x, T y) { return pred(x, y) ? 1.0 : 0.0; });
  });
  return m.to(dtype);
}

// Whether any element of a 0/1 mask is set.
bool any_set(const Tensor& mask) { return sum(mask).item() != 0; }

// amax / amin: NaN propagates (NumPy's maximum.reduce); integers start from their extremes.
template <bool Max> struct ExtremeStep {
  template <class T> T operator()(T a, T v) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(a)) return a;
      if (std::isnan(v)) return v;
    }
    return Max ? (v > a ? v : a) : (v < a ? v : a);
  }
  template <class T> T combine(T a, T b) const { return (*this)(a, b); }
};

template <bool Max, class T> T extreme_init() {
  if constexpr (std::is_floating_point_v<T>)
    return Max ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  else
    return Max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
}

// Ordering reductions need a real dtype and at least one element per output.
TensorSpec extreme_spec(const char* name, const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
  require_dtype(!is_complex(x.dtype) && x.dtype != DType::Bool && x.dtype != DType::Float16 &&
                          x.dtype != DType::BFloat16,
                      "x", x.dtype, "int32, int64, float32 or float64 (complex numbers are not ordered)");
  auto m = reduced_mask(axes, x.dim());
  Shape out = reduced_shape(x.shape, m, keepdim);
  if (reduced_count(x.shape, m) == 0 && shape_numel(out) > 0)
    SAMPAN_THROW(ValueError, name, " of an empty selection of a tensor of shape ", shape_str(x.shape),
                 ": a maximum or minimum needs at least one element");
  return TensorSpec{out, x.dtype, x.device};
}

template <bool Max> void extreme_kernel(const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) {
  visit_real(x.dtype(), Max ? "core::amax" : "core::amin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    reduce_axes<T, T>(x, axes, out, extreme_init<Max, T>(), ExtremeStep<Max>{}, [](T a, int64_t) { return a; });
  });
}

// The gradient of amax/amin goes to the elements equal to the result, shared evenly on ties.
Grads extreme_vjp(const VjpContext& c) {
  Tensor x = c.input(0);
  const auto& axes = c.attr<std::vector<int64_t>>(1);
  bool keepdim = c.attr<bool>(2);
  Tensor g = with_kept_dims(c.grad_output(0), x, axes, keepdim);
  Tensor out = with_kept_dims(c.output(0).detach(), x, axes, keepdim);
  Tensor weight;
  {
    NoGradGuard no_grad;
    Tensor hit = x.device().is_cpu() ? constant_mask(x, out, x.dtype(), [](auto a, auto b) { return a == b; })
                                     : eq(x.detach(), out).to(x.dtype());  // the same 0/1 mask, on the GPU
    weight = div(hit, sum(hit, axes, true));
  }
  return {mul(g, weight)};
}

// argmax / argmin along one axis, or over the flattened tensor when `axis` is empty.
TensorSpec arg_extreme_spec(const char* name, const TensorSpec& x, const std::vector<int64_t>& axis, bool keepdim) {
  SAMPAN_CHECK(axis.size() <= 1, ValueError, name, " takes one axis (or none, for the flattened tensor), got ",
               axis.size());
  extreme_spec(name, x, axis, keepdim);
  Shape out;
  if (axis.empty()) out = keepdim ? Shape(x.shape.size(), 1) : Shape{};
  else out = reduced_shape(x.shape, reduced_mask(axis, x.dim()), keepdim);
  return TensorSpec{out, DType::Int64, x.device};
}

// A contiguous x as [outer, n, inner] around `axis` (one line of all elements when it is empty).
kernels::AxisSplit arg_split(const Tensor& xc, const std::vector<int64_t>& axis) {
  kernels::AxisSplit sp;
  sp.n = xc.numel();
  if (!axis.empty() && xc.dim() > 0)
    sp = kernels::split_at_axis(xc.shape().data(), xc.dim(), normalize_axis(axis[0], xc.dim()));
  return sp;
}

template <bool Max>
void arg_extreme_kernel(const Tensor& x, const std::vector<int64_t>& axis, bool, Tensor& out) {
  Tensor xc = x.contiguous();
  const kernels::AxisSplit sp = arg_split(xc, axis);
  if (sp.outer * sp.inner == 0) return;
  visit_real(xc.dtype(), Max ? "core::argmax" : "core::argmin", [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::arg_extreme_axis(sp.outer, sp.n, sp.inner, xc.data<T>(), out.data<int64_t>(), Max);
  });
}

// var / std: the mean is removed first (two passes), then |x - mean|^2 is summed in double.
DType moment_dtype(DType d) { return real_dtype(to_floating(d)); }

TensorSpec moment_spec(const TensorSpec& x, const std::vector<int64_t>& axes, double, bool keepdim) {
  require_dtype(x.dtype != DType::Float16 && x.dtype != DType::BFloat16, "x", x.dtype,
                      "bool, int32, int64, float32, float64, complex64 or complex128");
  return TensorSpec{reduced_shape(x.shape, reduced_mask(axes, x.dim()), keepdim), moment_dtype(x.dtype), x.device};
}

// x - mean(x) over the axes (in x's floating dtype), and N - ddof: var's and std's first pass.
std::pair<Tensor, double> centered_and_dof(const Tensor& x, const std::vector<int64_t>& axes, double ddof) {
  Tensor xf = x.to(to_floating(x.dtype()));
  return {sub(xf, mean(xf, axes, true)),
          static_cast<double>(reduced_count(x.shape(), reduced_mask(axes, x.dim()))) - ddof};
}

template <bool Sqrt>
void moment_kernel(const Tensor& x, const std::vector<int64_t>& axes, double ddof, bool, Tensor& out) {
  const auto [centered, dof] = centered_and_dof(x, axes, ddof);
  visit_floating_complex(centered.dtype(), Sqrt ? "core::std" : "core::var", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = decltype(std::abs(T()));
    // dof <= 0 gives inf or nan, as NumPy does (with a warning there).
    reduce_axes<T, R>(centered, axes, out, 0.0, sum_of([](T v) { return static_cast<double>(std::norm(v)); }),
                      [dof = dof](double a, int64_t) { return static_cast<R>(Sqrt ? std::sqrt(a / dof) : a / dof); });
  });
}

// d var / d x = 2 (x - mean) / (N - ddof); the mean's own dependence on x cancels.
Tensor moment_direction(const VjpContext& c) {
  Tensor x = c.input(0);
  const auto& axes = c.attr<std::vector<int64_t>>(1);
  const double dof = static_cast<double>(reduced_count(x.shape(), reduced_mask(axes, x.dim()))) - c.attr<double>(2);
  Tensor xf = x.to(to_floating(x.dtype()));
  Tensor centered = sub(xf, mean(xf, axes, true));
  return div(centered, scalar_tensor(dof, real_dtype(centered.dtype())));
}

// core::mean's kernel on every device: the sum divided by the count.
void mean_kernel(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim, Tensor& out) {
  if (detail::is_half(out.dtype())) {  // the float32 mean rounded once, not a rounded sum divided
    copy_(out, mean(cast(x, DType::Float32), axes, keepdim));
    return;
  }
  const int64_t count = reduced_count(x.shape(), reduced_mask(axes, x.dim()));
  Tensor s = sum(x.dtype() == out.dtype() ? x : cast(x, out.dtype()), axes, keepdim);
  copy_(out, div(s, scalar_like(static_cast<double>(count), s)));
}

#if defined(SAMPAN_CUDA_KERNELS)
// The kept and reduced dimensions of x (any strides) for the GPU folds (kernels/reduce_fold.h).
kernels::ReduceLayout cuda_reduce_layout(const char* name, const Tensor& x, const std::vector<int64_t>& axes) {
  SAMPAN_CHECK(x.dim() <= kernels::kMaxStridedDims, NotImplementedError, name, ": on CUDA, at most ",
               kernels::kMaxStridedDims, " dimensions, got ", x.dim());
  const auto m = reduced_mask(axes, x.dim());
  bool mask[kernels::kMaxStridedDims] = {};
  for (size_t d = 0; d < m.size(); ++d) mask[d] = m[d];
  return kernels::reduce_layout(x.dim(), x.shape().data(), x.strides().data(), mask);
}

// A full reduction of more elements than the CPU folds on one thread is folded in kSumParts parts.
int64_t cuda_parts(const kernels::ReduceLayout& l) {
  return l.nout == 1 && l.nred > kernels::kParallelGrain ? kernels::kSumParts : 0;
}

// core::amax / amin on the GPU: every output folded by one thread as the CPU folds it; a full
// reduction above the CPU's serial size in kSumParts parts combined in order (exact either way).
template <bool Max> void extreme_on_cuda(const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) {
  const char* name = Max ? "core::amax" : "core::amin";
  const kernels::ReduceLayout layout = cuda_reduce_layout(name, x, axes);
  cuda_support::visit_cuda_dtype(x.dtype(), name, false, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const int64_t nparts = cuda_parts(layout);
    Tensor parts;
    if (nparts) parts = Tensor::empty({nparts}, x.dtype(), out.device());
    cuda_support::run_device([&] {
      kernels::extreme_cuda<T, Max>(layout, static_cast<const T*>(x.raw_data()), static_cast<T*>(out.raw_data()),
                                    extreme_init<Max, T>(), nparts ? static_cast<T*>(parts.raw_data()) : nullptr,
                                    nparts);
    });
  });
}
#endif

#if defined(SAMPAN_CUDA_KERNELS)
// The CPU's accumulator (accum above) of a device element type.
template <class T> struct cuda_accum { using type = T; };
template <> struct cuda_accum<float> { using type = double; };
template <> struct cuda_accum<kernels::ComplexElement<float>> { using type = kernels::ComplexElement<double>; };
template <> struct cuda_accum<Half> { using type = float; };
template <> struct cuda_accum<BFloat16> { using type = float; };

// core::sum (Prod false) and core::prod on the GPU: x converted to the output's dtype (as on the
// CPU), then every output folded in the CPU's order into its accumulator by one thread
// (kernels/reduce_fold.h); a full reduction of more elements than the CPU folds serially is folded
// in kSumParts parts combined in order.
template <bool Prod> void accumulate_on_cuda(const Tensor& x, const std::vector<int64_t>& axes, Tensor& out) {
  const char* name = Prod ? "core::prod" : "core::sum";
  const Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
  const kernels::ReduceLayout layout = cuda_reduce_layout(name, xc, axes);
  detail::visit_storage_element(out.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int32_t>) {
      SAMPAN_THROW(RuntimeError, name, ": internal error: its result's dtype is never ", dtype_name(out.dtype()));
    } else {
      using Acc = typename cuda_accum<T>::type;
      const int64_t nparts = cuda_parts(layout);
      Tensor parts;
      const int64_t words = (nparts * static_cast<int64_t>(sizeof(Acc)) + 7) / 8;  // Acc is 4, 8 or 16 bytes
      if (nparts) parts = Tensor::empty({words}, DType::Float64, out.device());
      Acc* p = nparts ? static_cast<Acc*>(parts.raw_data()) : nullptr;
      const T* px = static_cast<const T*>(xc.raw_data());
      T* po = static_cast<T*>(out.raw_data());
      cuda_support::run_device([&] {
        if constexpr (Prod) kernels::prod_cuda<T, Acc>(layout, px, po, p, nparts);
        else kernels::sum_cuda<T, Acc>(layout, px, po, p, nparts);
      });
    }
  });
}

// The float64 sums of Step(x) over the axes on the GPU, one per element of `shape` (the sums of
// var, std and the norms, folded in the CPU's order into its float64 accumulator). RealOnly: no
// complex x (|z| is a hypot, which CUDA's library rounds its own way).
template <class Step, bool RealOnly>
Tensor fold_to_double_on_cuda(const char* name, const Tensor& x, const std::vector<int64_t>& axes, const Shape& shape) {
  const kernels::ReduceLayout layout = cuda_reduce_layout(name, x, axes);
  Tensor acc = Tensor::empty(shape, DType::Float64, x.device());
  detail::visit_device_element(x.dtype(), name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!(std::is_floating_point_v<T> || (!RealOnly && !std::is_arithmetic_v<T>))) {
      SAMPAN_THROW(NotImplementedError, name, ": no CUDA kernel for dtype ", dtype_name(x.dtype()), " here");
    } else {
      const int64_t nparts = cuda_parts(layout);
      Tensor parts;
      if (nparts) parts = Tensor::empty({nparts}, DType::Float64, x.device());
      cuda_support::run_device([&] {
        kernels::fold_to_double_cuda<T, Step>(layout, static_cast<const T*>(x.raw_data()), acc.data<double>(),
                                              nparts ? parts.data<double>() : nullptr, nparts);
      });
    }
  });
  return acc;
}

// core::var / std on the GPU: the CPU's passes (the same centering ops, then the sum of |x|^2 in
// float64 in the CPU's order, then / (N - ddof) and the square root in float64): the CPU's bits.
template <bool Sqrt>
void moment_on_cuda(const Tensor& x, const std::vector<int64_t>& axes, double ddof, bool, Tensor& out) {
  const auto [centered, dof] = centered_and_dof(x, axes, ddof);
  Tensor r = fold_to_double_on_cuda<kernels::SquaredModulusFoldStep, false>(Sqrt ? "core::std" : "core::var",
                                                                            centered, axes, out.shape());
  r = div(r, scalar_like(dof, r));
  copy_(out, Sqrt ? sqrt(r) : r);
}

// core::argmax / argmin on the GPU: one thread per line (kernels/axis_line.h's body).
template <bool Max>
void arg_extreme_on_cuda(const Tensor& x, const std::vector<int64_t>& axis, bool, Tensor& out) {
  const char* name = Max ? "core::argmax" : "core::argmin";
  Tensor xc = x.contiguous();
  const kernels::AxisSplit sp = arg_split(xc, axis);
  cuda_support::visit_cuda_dtype(xc.dtype(), name, false, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_support::run_device([&] {
      kernels::arg_extreme_cuda<T>(sp.outer, sp.n, sp.inner, static_cast<const T*>(xc.raw_data()),
                                   out.data<int64_t>(), Max);
    });
  });
}
#endif

}  // namespace

SAMPAN_OP(core, sum)
    .amp(AmpCast::Float32)
    .doc("Sum over `axes` (all when empty); integer inputs sum in int64.")
    .args("x", "axes", "keepdim")
    .defaults({{"axes", IntList{}}, {"keepdim", false}})  // empty axes: all of them
    .outputs("out")
    .dtypes(kAccumulatingDTypes)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      return TensorSpec{reduced_shape(x.shape, reduced_mask(axes, x.dim()), keepdim), sum_dtype(x.dtype), x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) {
      auto m = reduced_mask(axes, x.dim());
      std::unique_ptr<bool[]> mask(new bool[m.size() + 1]);
      for (size_t i = 0; i < m.size(); ++i) mask[i] = m[i];
      Tensor xc = x.dtype() == out.dtype() ? x : cast(x, out.dtype());
      visit_accumulating(out.dtype(), "core::sum", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = typename accum<T>::type;
        kernels::reduce_strided(xc.dim(), xc.shape().data(), static_cast<const T*>(xc.raw_data()),
                                xc.strides().data(), mask.get(), out.data<T>(), A(0), SumStep{},
                                [](A a, int64_t) { return static_cast<T>(a); });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) { accumulate_on_cuda<false>(x, axes, out); })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0);
      const auto& axes = c.attr<std::vector<int64_t>>(1);
      bool keepdim = c.attr<bool>(2);
      Tensor g = c.grad_output(0);
      if (!keepdim) g = reshape(g, reduced_shape(x.shape(), reduced_mask(axes, x.dim()), true));
      return {broadcast_to(g, x.shape())};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3, 2}), IntList{0, 2}, false}, {f64({3}), IntList{}, true}}; })
    .saves_for_vjp({});

Tensor sum(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
  static OpHandle op("core::sum");
  return op(x, axes, keepdim)[0];
}

// An op, not a composition of sum and a division: the count is read from the input at each call,
// so a traced graph (sampan/jit.h) stays right when a dimension of the input changes.
SAMPAN_OP(core, mean)
    .amp(AmpCast::Float32)
    .doc("Mean over `axes` (all when empty); integer and bool inputs give float32.")
    .args("x", "axes", "keepdim")
    .defaults({{"axes", IntList{}}, {"keepdim", false}})
    .outputs("out")
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      const DType d = is_differentiable(x.dtype) ? x.dtype : DType::Float32;
      return TensorSpec{reduced_shape(x.shape, reduced_mask(axes, x.dim()), keepdim), d, x.device};
    })
    .cpu(mean_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(mean_kernel)  // the same composition: sum, div and copy_ have CUDA twins
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0);
      const auto& axes = c.attr<std::vector<int64_t>>(1);
      const auto mask = reduced_mask(axes, x.dim());
      Tensor g = c.grad_output(0);
      if (!c.attr<bool>(2)) g = reshape(g, reduced_shape(x.shape(), mask, true));
      return {div(broadcast_to(g, x.shape()), scalar_like(static_cast<double>(reduced_count(x.shape(), mask)), g))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3, 2}), IntList{0, 2}, false}, {f64({3}), IntList{}, true}, {c128({2})}}; })
    .saves_for_vjp({});

Tensor mean(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) {
  static OpHandle op("core::mean");
  return op(x, axes, keepdim)[0];
}

Tensor sum_to(const Tensor& x, const Shape& shape) {
  if (x.shape() == shape) return x;
  const int64_t lead = x.dim() - static_cast<int64_t>(shape.size());
  SAMPAN_CHECK(lead >= 0, ValueError, "sum_to: cannot reduce shape ", shape_str(x.shape()), " to ", shape_str(shape));
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d < lead) axes.push_back(d);
    else if (shape[d - lead] == 1 && x.shape()[d] != 1) axes.push_back(d);
    else if (shape[d - lead] != x.shape()[d])
      SAMPAN_THROW(ValueError, "sum_to: shape ", shape_str(x.shape()), " is not a broadcast of ", shape_str(shape));
  }
  if (axes.empty()) return reshape(x, shape);
  return reshape(sum(x, axes, true), shape);
}

// ------------------------------------------------------------------------------------------
// prod
// ------------------------------------------------------------------------------------------

namespace {

// d prod / d x_i is the product of the other elements. Without zeros that is prod / x_i. With
// zeros, x_safe replaces them by a constant 1: for a group with exactly one zero the gradient at
// the zero is prod(x_safe) and 0 elsewhere; with two or more zeros it is 0 everywhere. First
// derivatives are exact; second derivatives are exact for groups with at most one zero.
Grads prod_vjp(const VjpContext& c) {
  Tensor x = c.input(0);
  const auto& axes = c.attr<std::vector<int64_t>>(1);
  bool keepdim = c.attr<bool>(2);
  Tensor g = with_kept_dims(c.grad_output(0), x, axes, keepdim);
  Tensor p = with_kept_dims(c.output(0), x, axes, keepdim);
  const DType rd = real_dtype(x.dtype());
  auto eq = [](auto a, auto b) { return a == b; };
  Tensor zero = constant_mask(x, scalar_tensor(0, x.dtype()), rd, eq);
  if (!any_set(zero)) return {mul(g, conj(div(p, x)))};
  Tensor nonzero, single;
  {
    NoGradGuard no_grad;
    nonzero = sub(ones_like(zero), zero);
    single = mul(zero, constant_mask(sum(zero, axes, true), scalar_tensor(1, rd), rd, eq));
  }
  Tensor x_safe = add(mul(x, nonzero), zero);
  Tensor coef = add(mul(div(p, x_safe), nonzero), mul(prod(x_safe, axes, true), single));
  return {mul(g, conj(coef))};
}

}  // namespace

SAMPAN_OP(core, prod)
    .amp(AmpCast::Float32)
    .doc("Product over `axes` (all when empty); integer inputs multiply in int64.")
    .args("x", "axes", "keepdim")
    .defaults({{"axes", IntList{}}, {"keepdim", false}})
    .outputs("out")
    .dtypes(kAccumulatingDTypes)
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      return TensorSpec{reduced_shape(x.shape, reduced_mask(axes, x.dim()), keepdim), sum_dtype(x.dtype), x.device};
    })
    .cpu([](const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) {
      Tensor xc = x.to(out.dtype());
      visit_accumulating(out.dtype(), "core::prod", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using A = typename accum<T>::type;
        reduce_axes<T, T>(xc, axes, out, A(1), ProdStep{}, [](A a, int64_t) { return static_cast<T>(a); });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) { accumulate_on_cuda<true>(x, axes, out); })
#endif
    .vjp(prod_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}, {c128({3}), IntList{}, true}}; });

// ------------------------------------------------------------------------------------------
// amax, amin, argmax, argmin
// ------------------------------------------------------------------------------------------

SAMPAN_OP(core, amax)
    .doc("Maximum over `axes` (all when empty); NaN propagates. The gradient is shared evenly "
         "among tied maxima.")
    .args("x", "axes", "keepdim")
    .defaults({{"axes", IntList{}}, {"keepdim", false}})
    .outputs("out")
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      return extreme_spec("amax", x, axes, keepdim);
    })
    .cpu(extreme_kernel<true>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(extreme_on_cuda<true>)
#endif
    .vjp(extreme_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}}; });

SAMPAN_OP(core, amin)
    .doc("Minimum over `axes` (all when empty); NaN propagates. The gradient is shared evenly "
         "among tied minima.")
    .args("x", "axes", "keepdim")
    .defaults({{"axes", IntList{}}, {"keepdim", false}})
    .outputs("out")
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64})
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      return extreme_spec("amin", x, axes, keepdim);
    })
    .cpu(extreme_kernel<false>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(extreme_on_cuda<false>)
#endif
    .vjp(extreme_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3, 2}), IntList{0, 2}, true}}; });

SAMPAN_OP(core, argmax)
    .doc("Index (int64) of the maximum along `axis`, or in the flattened tensor when `axis` is "
         "empty; the first one on ties, the first NaN if any.")
    .args("x", "axis", "keepdim")
    .defaults({{"axis", IntList{}}, {"keepdim", false}})  // empty: over the flattened tensor
    .outputs("indices")
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axis, bool keepdim) {
      return arg_extreme_spec("argmax", x, axis, keepdim);
    })
    .cpu(arg_extreme_kernel<true>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(arg_extreme_on_cuda<true>)
#endif
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}}; });

SAMPAN_OP(core, argmin)
    .doc("Index (int64) of the minimum along `axis`, or in the flattened tensor when `axis` is "
         "empty; the first one on ties, the first NaN if any.")
    .args("x", "axis", "keepdim")
    .defaults({{"axis", IntList{}}, {"keepdim", false}})  // empty: over the flattened tensor
    .outputs("indices")
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axis, bool keepdim) {
      return arg_extreme_spec("argmin", x, axis, keepdim);
    })
    .cpu(arg_extreme_kernel<false>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(arg_extreme_on_cuda<false>)
#endif
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{}, false}}; });

// ------------------------------------------------------------------------------------------
// var, std
// ------------------------------------------------------------------------------------------

SAMPAN_OP(core, var)
    .amp(AmpCast::Float32)
    .doc("Variance over `axes` (all when empty): sum |x - mean|^2 / (N - ddof). ddof = 0 is "
         "NumPy's default, ddof = 1 the unbiased estimate (PyTorch's correction = 1). Real result.")
    .args("x", "axes", "ddof", "keepdim")
    .defaults({{"axes", IntList{}}, {"ddof", 0.0}, {"keepdim", false}})  // NumPy's ddof (not PyTorch's 1)
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape(moment_spec)
    .cpu(moment_kernel<false>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(moment_on_cuda<false>)
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = with_kept_dims(c.grad_output(0), c.input(0), c.attr<std::vector<int64_t>>(1), c.attr<bool>(3));
      return {mul(g, moment_direction(c) * 2.0)};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{1}, 1.0, false}, {c128({3}), IntList{}, 0.0, false}}; });

SAMPAN_OP(core, std)
    .amp(AmpCast::Float32)
    .doc("Standard deviation over `axes` (all when empty): sqrt(var(x, axes, ddof)). Where it is 0 "
         "the gradient is taken as 0.")
    .args("x", "axes", "ddof", "keepdim")
    .defaults({{"axes", IntList{}}, {"ddof", 0.0}, {"keepdim", false}})  // NumPy's ddof (not PyTorch's 1)
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape(moment_spec)
    .cpu(moment_kernel<true>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(moment_on_cuda<true>)
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0);
      const auto& axes = c.attr<std::vector<int64_t>>(1);
      bool keepdim = c.attr<bool>(3);
      Tensor g = with_kept_dims(c.grad_output(0), x, axes, keepdim);
      Tensor s = with_kept_dims(c.output(0), x, axes, keepdim);
      Tensor zero = constant_mask(s, scalar_tensor(0, s.dtype()), s.dtype(), [](auto a, auto b) { return a == b; });
      return {mul(g, div(moment_direction(c), add(s, zero)))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{0}, 0.0, true}}; });

// ------------------------------------------------------------------------------------------
// logsumexp
// ------------------------------------------------------------------------------------------

namespace {

// core::logsumexp on every device: max + log(sum(exp(x - max))), composed of ops with kernels on
// both. A non-finite maximum (a group of -inf, or a +inf) would make x - max NaN: those groups
// shift by 0 (m - m is 0 exactly where m is finite).
void logsumexp_kernel(const Tensor& x, const std::vector<int64_t>& axes, bool, Tensor& out) {
  const Tensor xf = x.to(out.dtype());
  if (reduced_count(x.shape(), reduced_mask(axes, x.dim())) == 0) {
    copy_(out, scalar_tensor(-std::numeric_limits<double>::infinity(), out.dtype(), out.device()));
    return;
  }
  Tensor shift = amax(xf, axes, true);
  shift = where(eq(sub(shift, shift), scalar_like(0.0, shift)), shift, zeros_like(shift));
  Tensor r = add(log(sum(exp(sub(xf, shift)), axes, true)), shift);
  copy_(out, reshape(r, out.shape()));
}

}  // namespace

SAMPAN_OP(core, logsumexp)
    .amp(AmpCast::Float32)
    .doc("log(sum(exp(x))) over `axes` (all when empty), computed as max + log(sum(exp(x - max))) "
         "so it neither overflows nor underflows; -inf for an empty selection.")
    .args("x", "axes", "keepdim")
    .defaults({{"axes", IntList{}}, {"keepdim", false}})
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64})
    .shape([](const TensorSpec& x, const std::vector<int64_t>& axes, bool keepdim) {
      require_dtype(!is_complex(x.dtype) && x.dtype != DType::Float16 && x.dtype != DType::BFloat16, "x",
                          x.dtype, "bool, int32, int64, float32 or float64");
      return TensorSpec{reduced_shape(x.shape, reduced_mask(axes, x.dim()), keepdim), to_floating(x.dtype), x.device};
    })
    .cpu(logsumexp_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(logsumexp_kernel)  // the same ops on the GPU; exp and log there round their own way
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0);
      const auto& axes = c.attr<std::vector<int64_t>>(1);
      bool keepdim = c.attr<bool>(2);
      Tensor g = with_kept_dims(c.grad_output(0), x, axes, keepdim);
      Tensor y = with_kept_dims(c.output(0), x, axes, keepdim);
      return {mul(g, exp(sub(x, y)))};  // the softmax of x over the axes
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{1}, false}}; });

// ------------------------------------------------------------------------------------------
// norm
// ------------------------------------------------------------------------------------------

namespace {

void check_norm_ord(double ord) {
  SAMPAN_CHECK(ord == 1 || ord == 2 || std::isinf(ord), ValueError, "norm: ord must be 1, 2, inf or -inf, got ", std::to_string(ord));
}

// max / min of |x|, for the inf norms.
template <bool Max> struct AbsExtremeStep {
  template <class A, class T> A operator()(A a, T v) const { return ExtremeStep<Max>{}(a, static_cast<A>(std::abs(v))); }
  template <class A> A combine(A a, A b) const { return ExtremeStep<Max>{}(a, b); }
};

// |x| elementwise as the 2-norm over an appended size-1 axis: differentiable through norm's own
// vjp, so the inf-norm gradient below stays differentiable for complex inputs.
Tensor modulus(const Tensor& x) {
  Shape s = x.shape();
  s.push_back(1);
  return norm(reshape(x, s), 2, {-1});
}

// sign(x): a constant -1/0/+1 mask for real x; x / |x| (0 at 0) for complex x.
Tensor sign_of(const Tensor& x) {
  if (!is_complex(x.dtype())) {
    // (x > 0) - (x < 0); the complex branch of the comparison is never instantiated at run time.
    auto greater = [](auto a, auto b) {
      if constexpr (detail::is_complex_t<decltype(a)>::value) return false;
      else return a > b;
    };
    Tensor zero = scalar_tensor(0, x.dtype());
    return sub(constant_mask(x, zero, x.dtype(), greater), constant_mask(zero, x, x.dtype(), greater));
  }
  Tensor r = modulus(x);
  return div(x, add(r, constant_mask(r, scalar_tensor(0, r.dtype()), r.dtype(), [](auto a, auto b) { return a == b; })));
}

Grads norm_vjp(const VjpContext& c) {
  Tensor x = c.input(0);
  const double ord = c.attr<double>(1);
  const auto& axes = c.attr<std::vector<int64_t>>(2);
  bool keepdim = c.attr<bool>(3);
  Tensor g = with_kept_dims(c.grad_output(0), x, axes, keepdim);
  Tensor y = with_kept_dims(c.output(0), x, axes, keepdim);
  auto eq = [](auto a, auto b) { return a == b; };
  if (ord == 2) {
    // d||x|| = x / ||x||; a zero norm means x = 0 there, and the gradient is taken as 0.
    Tensor zero = constant_mask(y, scalar_tensor(0, y.dtype()), y.dtype(), eq);
    return {mul(g, div(x, add(y, zero)))};
  }
  if (ord == 1) return {mul(g, sign_of(x))};
  // inf norms: like amax/amin of |x|, shared evenly among ties.
  Tensor weight;
  {
    NoGradGuard no_grad;
    // |x| as the reduction computed it (std::abs per element), so the maxima match exactly.
    Tensor hit = constant_mask(x, y, y.dtype(), [](auto a, auto b) { return std::abs(a) == std::abs(b); });
    weight = div(hit, sum(hit, axes, true));
  }
  return {mul(mul(g, weight), sign_of(x))};
}

#if defined(SAMPAN_CUDA_KERNELS)
// core::norm on the GPU: the CPU's float64 sums (of |x|^2, then the square root in float64; of
// |x| for real x) and the inf norms as amax / amin of |x|: the CPU's bits. Complex x takes the
// 2-norm only (its |z| for the others is a hypot, CUDA's library rounds it its own way).
void norm_on_cuda(const Tensor& x, double ord, const std::vector<int64_t>& axes, bool keepdim, Tensor& out) {
  const Tensor xf = x.to(to_floating(x.dtype()));
  if (ord == 2) {
    copy_(out, sqrt(fold_to_double_on_cuda<kernels::SquaredModulusFoldStep, false>("core::norm", xf, axes, out.shape())));
    return;
  }
  SAMPAN_CHECK(!is_complex(xf.dtype()), NotImplementedError, "core::norm: ord ", ord, " of a ", dtype_name(xf.dtype()),
               " tensor has no CUDA kernel (ord 2 has)");
  if (ord == 1) copy_(out, fold_to_double_on_cuda<kernels::AbsFoldStep, true>("core::norm", xf, axes, out.shape()));
  else copy_(out, ord > 0 ? amax(abs(xf), axes, keepdim) : amin(abs(xf), axes, keepdim));
}
#endif

}  // namespace

SAMPAN_OP(core, norm)
    .amp(AmpCast::Float32)
    .doc("Vector norm over `axes` (all when empty; over two matrix axes ord 2 is the Frobenius "
         "norm): ord 2 = sqrt(sum |x|^2), 1 = sum |x|, inf = max |x|, -inf = min |x|. Real result.")
    .args("x", "ord", "axes", "keepdim")
    .defaults({{"ord", 2.0}, {"axes", IntList{}}, {"keepdim", false}})
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& x, double ord, const std::vector<int64_t>& axes, bool keepdim) {
      check_norm_ord(ord);
      TensorSpec s = moment_spec(x, axes, 0, keepdim);
      if (std::isinf(ord)) {
        auto m = reduced_mask(axes, x.dim());
        if (reduced_count(x.shape, m) == 0 && shape_numel(s.shape) > 0)
          SAMPAN_THROW(ValueError, "norm with ord inf of an empty selection of a tensor of shape ", shape_str(x.shape));
      }
      return s;
    })
    .cpu([](const Tensor& x, double ord, const std::vector<int64_t>& axes, bool, Tensor& out) {
      Tensor xf = x.to(to_floating(x.dtype()));
      visit_floating_complex(xf.dtype(), "core::norm", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using R = decltype(std::abs(T()));
        if (ord == 2)  // accumulated in double: float32 inputs do not lose digits or overflow
          reduce_axes<T, R>(xf, axes, out, 0.0, sum_of([](T v) { return static_cast<double>(std::norm(v)); }),
                            [](double a, int64_t) { return static_cast<R>(std::sqrt(a)); });
        else if (ord == 1)
          reduce_axes<T, R>(xf, axes, out, 0.0, sum_of([](T v) { return static_cast<double>(std::abs(v)); }),
                            [](double a, int64_t) { return static_cast<R>(a); });
        else if (ord > 0)
          reduce_axes<T, R>(xf, axes, out, R(0), AbsExtremeStep<true>{}, [](R a, int64_t) { return a; });
        else
          reduce_axes<T, R>(xf, axes, out, std::numeric_limits<R>::infinity(), AbsExtremeStep<false>{},
                            [](R a, int64_t) { return a; });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(norm_on_cuda)
#endif
    .vjp(norm_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}, -1.0, 0.31), 2.0, IntList{}, false}, {c128({3}), 1.0, IntList{0}, true}, {f64({2, 3}, -1.0, 0.31), HUGE_VAL, IntList{1}, false}}; });

// ------------------------------------------------------------------------------------------
// cumsum
// ------------------------------------------------------------------------------------------

namespace {
// A contiguous x as [outer, n, inner] around `axis`; a 0-d tensor is one line of one element.
kernels::AxisSplit scan_split(const Tensor& xc, int64_t axis) {
  kernels::AxisSplit sp;
  if (xc.dim() > 0) sp = kernels::split_at_axis(xc.shape().data(), xc.dim(), normalize_axis(axis, xc.dim()));
  return sp;
}
}  // namespace

SAMPAN_OP(core, cumsum)
    .amp(AmpCast::Float32)
    .doc("Cumulative sum along `axis` (from the last element backwards when `reverse`); integer "
         "inputs accumulate in int64.")
    .args("x", "axis", "reverse")
    .defaults({{"reverse", false}})
    .outputs("out")
    .dtypes(kAccumulatingDTypes)
    .shape([](const TensorSpec& x, int64_t axis, bool) {
      normalize_axis(axis, x.dim());
      return TensorSpec{x.shape, sum_dtype(x.dtype), x.device};
    })
    .cpu([](const Tensor& x, int64_t axis, bool reverse, Tensor& out) {
      Tensor xc = x.to(out.dtype()).contiguous();
      const kernels::AxisSplit sp = scan_split(xc, axis);
      visit_accumulating(out.dtype(), "core::cumsum", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::cumsum_axis<T, typename accum<T>::type>(sp.outer, sp.n, sp.inner, xc.data<T>(), out.data<T>(), reverse);
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, int64_t axis, bool reverse, Tensor& out) {
      Tensor xc = x.to(out.dtype()).contiguous();
      const kernels::AxisSplit sp = scan_split(xc, axis);
      detail::visit_storage_element(out.dtype(), "core::cumsum", [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int32_t>) {
          SAMPAN_THROW(RuntimeError, "core::cumsum: internal error: a scan's dtype is never ", dtype_name(out.dtype()));
        } else {
          cuda_support::run_device([&] {
            kernels::cumsum_cuda<T, typename cuda_accum<T>::type>(sp.outer, sp.n, sp.inner,
                                                                   static_cast<const T*>(xc.raw_data()),
                                                                   static_cast<T*>(out.raw_data()), reverse);
          });
        }
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // out_j = sum_{i <= j} x_i, so grad_i = sum_{j >= i} g_j: the scan in the other direction.
      return {cumsum(c.grad_output(0), c.attr<int64_t>(1), !c.attr<bool>(2))};
    })
    .samples([] { return std::vector<Values>{{f64({2, 3}), int64_t(1), false}, {c128({3}), int64_t(0), true}}; })
    .saves_for_vjp({});

// ------------------------------------------------------------------------------------------
// C++ API
// ------------------------------------------------------------------------------------------

#define SAMPAN_AXES_API(NAME)                                                    \
  Tensor NAME(const Tensor& x, const std::vector<int64_t>& axes, bool keepdim) { \
    static OpHandle op("core::" #NAME);                                          \
    return op(x, axes, keepdim)[0];                                              \
  }
SAMPAN_AXES_API(prod)
SAMPAN_AXES_API(amax)
SAMPAN_AXES_API(amin)
SAMPAN_AXES_API(logsumexp)
#undef SAMPAN_AXES_API

Tensor max(const Tensor& x) { return amax(x); }
Tensor max(const Tensor& x, int64_t axis, bool keepdim) { return amax(x, {axis}, keepdim); }
Tensor min(const Tensor& x) { return amin(x); }
Tensor min(const Tensor& x, int64_t axis, bool keepdim) { return amin(x, {axis}, keepdim); }

Tensor argmax(const Tensor& x) {
  static OpHandle op("core::argmax");
  return op(x, std::vector<int64_t>{}, false)[0];
}
Tensor argmax(const Tensor& x, int64_t axis, bool keepdim) {
  static OpHandle op("core::argmax");
  return op(x, std::vector<int64_t>{axis}, keepdim)[0];
}
Tensor argmin(const Tensor& x) {
  static OpHandle op("core::argmin");
  return op(x, std::vector<int64_t>{}, false)[0];
}
Tensor argmin(const Tensor& x, int64_t axis, bool keepdim) {
  static OpHandle op("core::argmin");
  return op(x, std::vector<int64_t>{axis}, keepdim)[0];
}

Tensor var(const Tensor& x, const std::vector<int64_t>& axes, double ddof, bool keepdim) {
  static OpHandle op("core::var");
  return op(x, axes, ddof, keepdim)[0];
}
Tensor std(const Tensor& x, const std::vector<int64_t>& axes, double ddof, bool keepdim) {
  static OpHandle op("core::std");
  return op(x, axes, ddof, keepdim)[0];
}

Tensor norm(const Tensor& x, double ord, const std::vector<int64_t>& axes, bool keepdim) {
  static OpHandle op("core::norm");
  return op(x, ord, axes, keepdim)[0];
}

Tensor cumsum(const Tensor& x, int64_t axis, bool reverse) {
  static OpHandle op("core::cumsum");
  return op(x, axis, reverse)[0];
}

}  // namespace sampan
