// sampan: ordering along an axis (core::sort, core::topk). Both return values and int64
// indices; their gradient sends each output's gradient back to the element it came from
// (scatter_add through the indices), written with ops so it is differentiable again.
//
// NaN sorts as the largest value (last ascending, first descending), as NumPy and PyTorch do.
// Both are stable: equal values keep their original order, so results are deterministic.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <type_traits>
#include <utility>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/axis_loop.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "cuda_support.h"
#include "../kernels/sort_kernels_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

using kernels::less_nan_last;  // kernels/axis_line.h: the order the CUDA twin sorts by too

using Lines = kernels::AxisSplit;
Lines lines_of(const Shape& s, int64_t d) {
  return kernels::split_at_axis(s.data(), static_cast<int64_t>(s.size()), d);
}

int64_t sort_axis(const char* op, int64_t axis, int64_t ndim) {
  SAMPAN_CHECK(ndim != 0, IndexError, op, ": a 0-d tensor has no axis to sort along");
  return normalize_axis(axis, ndim);
}

// For every line along the axis of contiguous x ([outer, n, inner]), orders the positions by
// `before(a, b)` (ties by position) and writes the first k to out/idx ([outer, k, inner]).
template <class T>
void order_lines(const T* x, const Lines& L, int64_t k, bool descending, bool full_sort, T* out, int64_t* idx) {
  const int64_t lines = L.outer * L.inner;
#pragma omp parallel if (lines * L.n > kernels::kParallelGrain)
  {
    std::vector<int64_t> pos(static_cast<size_t>(L.n));
#pragma omp for schedule(static)
    for (int64_t l = 0; l < lines; ++l) {
      const int64_t o = l / L.inner, i = l % L.inner;
      const T* line = x + o * L.n * L.inner + i;
      std::iota(pos.begin(), pos.end(), int64_t(0));
      auto by_value = [&](int64_t a, int64_t b) {
        const T va = line[a * L.inner], vb = line[b * L.inner];
        return descending ? less_nan_last(vb, va) : less_nan_last(va, vb);
      };
      if (full_sort) {
        std::stable_sort(pos.begin(), pos.end(), by_value);
      } else {
        // partial_sort is not stable; breaking ties by position makes it so.
        auto by_value_then_pos = [&](int64_t a, int64_t b) {
          if (by_value(a, b)) return true;
          if (by_value(b, a)) return false;
          return a < b;
        };
        std::partial_sort(pos.begin(), pos.begin() + k, pos.end(), by_value_then_pos);
      }
      T* ov = out + o * k * L.inner + i;
      int64_t* oi = idx + o * k * L.inner + i;
      for (int64_t j = 0; j < k; ++j) {
        ov[j * L.inner] = line[pos[j] * L.inner];
        oi[j * L.inner] = pos[j];
      }
    }
  }
}

void order_kernel(const char* op, const Tensor& x, int64_t axis, int64_t k, bool descending, bool full_sort,
                  Tensor& values, Tensor& indices) {
  const int64_t d = sort_axis(op, axis, x.dim());
  Lines L = lines_of(x.shape(), d);
  Tensor xc = x.contiguous();
  visit_real(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    order_lines(xc.data<T>(), L, k, descending, full_sort, values.data<T>(), indices.data<int64_t>());
  });
}

#if defined(SAMPAN_CUDA_KERNELS)
// On the GPU: every line stably sorted by CUB's merge sort under the CPU's order (ties by position:
// a total order, so the CPU's permutation exactly), its first k written out.
void order_on_cuda(const char* op, const Tensor& x, int64_t axis, int64_t k, bool descending, Tensor& values,
                   Tensor& indices) {
  const int64_t d = sort_axis(op, axis, x.dim());
  const Lines L = lines_of(x.shape(), d);
  const Tensor xc = x.contiguous();
  cuda_support::visit_cuda_dtype(x.dtype(), op, false, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_support::run_device([&] {
      kernels::order_lines_cuda<T>(static_cast<const T*>(xc.raw_data()), L.outer, L.n, L.inner, k, descending,
                                   static_cast<T*>(values.raw_data()), indices.data<int64_t>());
    });
  });
}
#endif

// Each output's gradient back to the element it came from (on the gradient's device).
Grads order_vjp(const VjpContext& c, int64_t axis) {
  Tensor x = c.input(0), g = c.grad_output(0);
  return {scatter_add(zeros(x.shape(), g.dtype(), g.device()), axis, c.output(1), g)};
}

}  // namespace

SAMPAN_OP(core, sort)
    .doc("x sorted along `axis` (ascending, or descending), stable, NaN counted largest; also "
         "returns the int64 positions the values came from.")
    .args("x", "axis", "descending")
    .defaults({{"axis", -1}, {"descending", false}})
    .outputs("values", "indices")
    .shape([](const TensorSpec& x, int64_t axis, bool) {
      sort_axis("sort", axis, x.dim());
      return std::vector<TensorSpec>{x, TensorSpec{x.shape, DType::Int64, x.device}};
    })
    .cpu([](const Tensor& x, int64_t axis, bool descending, Tensor& values, Tensor& indices) {
      order_kernel("core::sort", x, axis, x.dim() ? x.shape()[normalize_axis(axis, x.dim())] : 0, descending, true,
                   values, indices);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, int64_t axis, bool descending, Tensor& values, Tensor& indices) {
      order_on_cuda("core::sort", x, axis, x.dim() ? x.shape()[normalize_axis(axis, x.dim())] : 0, descending, values,
                    indices);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads { return order_vjp(c, c.attr<int64_t>(1)); })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(0), true}}; });

SAMPAN_OP(core, topk)
    .doc("The k largest (or, with largest=false, smallest) elements along `axis`, in order, with "
         "their int64 positions; ties keep the earlier position first.")
    .args("x", "k", "axis", "largest")
    .defaults({{"axis", -1}, {"largest", true}})
    .outputs("values", "indices")
    .shape([](const TensorSpec& x, int64_t k, int64_t axis, bool) {
      const int64_t d = sort_axis("topk", axis, x.dim());
      if (k < 0 || k > x.shape[d])
        SAMPAN_THROW(ValueError, "topk: k = ", k, " is out of range for axis ", axis,
                     " of size ", x.shape[d]);
      Shape s = x.shape;
      s[d] = k;
      return std::vector<TensorSpec>{TensorSpec{s, x.dtype, x.device}, TensorSpec{s, DType::Int64, x.device}};
    })
    .cpu([](const Tensor& x, int64_t k, int64_t axis, bool largest, Tensor& values, Tensor& indices) {
      order_kernel("core::topk", x, axis, k, largest, false, values, indices);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, int64_t k, int64_t axis, bool largest, Tensor& values, Tensor& indices) {
      order_on_cuda("core::topk", x, axis, k, largest, values, indices);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads { return order_vjp(c, c.attr<int64_t>(2)); })
    .samples([] { return std::vector<Values>{{f64({3, 4}), int64_t(2), int64_t(1), false}}; });

std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t axis, bool descending) {
  static OpHandle op("core::sort");
  auto r = op(x, axis, descending);
  return {r[0], r[1]};
}
Tensor argsort(const Tensor& x, int64_t axis, bool descending) { return sort(x, axis, descending).second; }
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t axis, bool largest) {
  static OpHandle op("core::topk");
  auto r = op(x, k, axis, largest);
  return {r[0], r[1]};
}

}  // namespace sampan
