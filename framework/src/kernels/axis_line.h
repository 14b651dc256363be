// Per-line bodies of the scans and arg-reductions along one axis of a contiguous array viewed as
// [outer, n, inner] (the axis has n elements with stride `inner`), shared by the CPU loops of
// axis_loop.h and the CUDA twins of axis_kernels.cu (one thread per line), so the CPU tests run
// the arithmetic a GPU runs: core::cumsum, core::argmax / argmin, and the order of core::sort /
// topk.
#pragma once

#include <cstdint>

#include "reduce_fold.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

/// Offset of line l (of outer * inner) in the [outer, n, inner] array.
SAMPAN_HOST_DEVICE inline int64_t line_start(int64_t l, int64_t n, int64_t inner) {
  return (l / inner) * n * inner + l % inner;
}

/// out = the running sum of x along the line from `base` (from its end when `reverse`),
/// accumulated in Acc (float32 in float64, complex64 in complex128) and rounded per element.
template <class T, class Acc>
SAMPAN_HOST_DEVICE inline void cumsum_line(const T* x, T* out, int64_t base, int64_t n, int64_t inner, bool reverse) {
  Acc acc{};
  for (int64_t s = 0; s < n; ++s) {
    const int64_t i = base + (reverse ? n - 1 - s : s) * inner;
    acc = acc + widen<Acc>(x[i]);
    out[i] = narrow<T>(acc);
  }
}

/// Index of the largest (want_max) or smallest element of the line p[0], p[inner], ...: the first
/// one on ties, and the first NaN when there is one (NumPy's rule: NaN wins). v != v is the NaN
/// test (false for integers).
template <class T>
SAMPAN_HOST_DEVICE inline int64_t arg_extreme_line(const T* p, int64_t n, int64_t inner, bool want_max) {
  int64_t best = 0;
  T bv = p[0];
  if (bv != bv) return 0;
  for (int64_t s = 1; s < n; ++s) {
    const T v = p[s * inner];
    if (v != v) return s;
    if (want_max ? v > bv : v < bv) {
      bv = v;
      best = s;
    }
  }
  return best;
}

/// a < b with NaN above everything (a strict weak order: NaNs are equivalent to each other), the
/// order of core::sort and topk; v != v is the NaN test.
template <class T> SAMPAN_HOST_DEVICE inline bool less_nan_last(T a, T b) {
  if (a != a) return false;
  if (b != b) return true;
  return a < b;
}

}  // namespace sampan::kernels
