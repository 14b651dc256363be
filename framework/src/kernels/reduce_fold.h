// The folds of core::sum's and core::amax / amin's CUDA twins, per output, in the CPU's order: each output folds its reduced
// elements one after another in row-major order of the reduced dimensions, as
// kernels::reduce_strided (reduce_loop.h) does, into the CPU's accumulator type (float32 in
// float64). Written once for host and device, so a CPU test (tests/cpp/framework/reduce_fold_test.cpp)
// walks sliced, permuted and broadcast inputs through it and requires core::sum's bits.
#pragma once

#include <cstdint>

#include "sampan/complex_element.h"
#include "sampan/host_device.h"
#include "strided_index.h"

namespace sampan::kernels {

/// A full sum of more elements than the CPU folds on one thread (kParallelGrain) is folded in
/// kSumParts contiguous parts, each by one GPU thread, and the parts are added in order: what the
/// CPU gives with kSumParts threads. Every other sum folds each output in one thread.
constexpr int64_t kSumParts = 4096;

/// The kept and the reduced dimensions of a strided input, each with its element strides.
struct ReduceLayout {
  int nkept = 0, nreduced = 0;
  int64_t kept_shape[kMaxStridedDims] = {}, kept_strides[kMaxStridedDims] = {};
  int64_t reduced_shape[kMaxStridedDims] = {}, reduced_strides[kMaxStridedDims] = {};
  int64_t nout = 1, nred = 1;
};

/// The layout of an input of `ndim` <= kMaxStridedDims dimensions reduced where `reduced[d]`.
inline ReduceLayout reduce_layout(int64_t ndim, const int64_t* shape, const int64_t* strides, const bool* reduced) {
  ReduceLayout l;
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduced[d]) {
      l.reduced_shape[l.nreduced] = shape[d];
      l.reduced_strides[l.nreduced++] = strides[d];
      l.nred *= shape[d];
    } else {
      l.kept_shape[l.nkept] = shape[d];
      l.kept_strides[l.nkept++] = strides[d];
      l.nout *= shape[d];
    }
  }
  return l;
}

/// The accumulator's value of an element: float32 into float64, complex64 into complex128.
template <class Acc, class T> SAMPAN_HOST_DEVICE inline Acc widen(T v) { return static_cast<Acc>(v); }
template <class Acc, class T> SAMPAN_HOST_DEVICE inline Acc widen(ComplexElement<T> v) {
  return Acc{static_cast<decltype(Acc{}.re)>(v.re), static_cast<decltype(Acc{}.re)>(v.im)};
}
/// The output's value of an accumulator.
template <class T, class Acc> SAMPAN_HOST_DEVICE inline T narrow(Acc a) { return static_cast<T>(a); }
template <class T, class A> SAMPAN_HOST_DEVICE inline T narrow(ComplexElement<A> a) {
  return T{static_cast<decltype(T{}.re)>(a.re), static_cast<decltype(T{}.re)>(a.im)};
}

/// a + v in the accumulator: core::sum's step.
struct SumFoldStep {
  template <class Acc, class T> SAMPAN_HOST_DEVICE Acc operator()(Acc a, T v) const { return a + widen<Acc>(v); }
};
/// a * v in the accumulator: core::prod's step.
struct ProdFoldStep {
  template <class Acc, class T> SAMPAN_HOST_DEVICE Acc operator()(Acc a, T v) const { return a * widen<Acc>(v); }
};
/// core::amax / amin's step (the CPU's ExtremeStep): a NaN, once met, stays; then the larger
/// (smaller) of the two. x != x is the NaN test for floating elements and false for integers.
template <bool Max> struct ExtremeFoldStep {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T v) const {
    if (a != a) return a;
    if (v != v) return v;
    return Max ? (v > a ? v : a) : (v < a ? v : a);
  }
};

/// a + |v|^2, |v|^2 in the element's precision as std::norm computes it (v * v, re * re + im * im):
/// the sums of core::var, core::std and the 2-norm (into a float64 accumulator).
struct SquaredModulusFoldStep {
  template <class Acc, class T> SAMPAN_HOST_DEVICE Acc operator()(Acc a, T v) const { return a + static_cast<Acc>(v * v); }
  template <class Acc, class T> SAMPAN_HOST_DEVICE Acc operator()(Acc a, ComplexElement<T> v) const {
    return a + static_cast<Acc>(v.re * v.re + v.im * v.im);
  }
};
/// a + |v| for a real v (std::abs's value; zero's sign cleared): the 1-norm's sum.
struct AbsFoldStep {
  template <class Acc, class T> SAMPAN_HOST_DEVICE Acc operator()(Acc a, T v) const {
    return a + static_cast<Acc>(v < T(0) ? -v : v + T(0));
  }
};

/// step(...step(step(init, x_r0), x_r0+1)..., x_r1-1) over the reduced elements r0 <= r < r1 of
/// output o (kept dimensions row-major), in order: reduce_strided's walk.
template <class Acc, class T, class Step>
SAMPAN_HOST_DEVICE inline Acc fold(const ReduceLayout& l, const T* x, int64_t o, int64_t r0, int64_t r1, Acc init,
                                   Step step) {
  Acc a = init;
  if (r0 >= r1) return a;
  int64_t base = 0;
  for (int d = l.nkept - 1; d >= 0; --d) {
    base += (o % l.kept_shape[d]) * l.kept_strides[d];
    o /= l.kept_shape[d];
  }
  int64_t idx[kMaxStridedDims] = {};
  int64_t rem = r0, off = 0;
  for (int d = l.nreduced - 1; d >= 0; --d) {
    idx[d] = rem % l.reduced_shape[d];
    rem /= l.reduced_shape[d];
    off += idx[d] * l.reduced_strides[d];
  }
  for (int64_t r = r0; r < r1; ++r) {
    a = step(a, x[base + off]);
    for (int d = l.nreduced - 1; d >= 0; --d) {
      off += l.reduced_strides[d];
      if (++idx[d] < l.reduced_shape[d]) break;
      off -= l.reduced_shape[d] * l.reduced_strides[d];
      idx[d] = 0;
    }
  }
  return a;
}

/// init + the reduced elements r0 <= r < r1 of output o, in order (core::sum's fold).
template <class Acc, class T>
SAMPAN_HOST_DEVICE inline Acc sum_fold(const ReduceLayout& l, const T* x, int64_t o, int64_t r0, int64_t r1, Acc init) {
  return fold(l, x, o, r0, r1, init, SumFoldStep{});
}

/// Part p of nparts of a full sum: its elements nred*p/nparts <= r < nred*(p+1)/nparts.
template <class Acc, class T>
SAMPAN_HOST_DEVICE inline Acc sum_part(const ReduceLayout& l, const T* x, int64_t p, int64_t nparts) {
  return sum_fold<Acc>(l, x, 0, l.nred * p / nparts, l.nred * (p + 1) / nparts, Acc{});
}

}  // namespace sampan::kernels
