// sampan kernels: loops along one axis of a contiguous array viewed as [outer, n, inner] (the
// axis has n elements with stride `inner`): scans, arg-reductions and softmax. Plain functions
// over pointers and sizes; OpenMP over the outer x inner lines above kParallelGrain. The scan's and
// the arg-reductions' per-line bodies are axis_line.h's, which their CUDA twins run too.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "axis_line.h"
#include "strided_loop.h"

namespace sampan::kernels {

/// A row-major shape viewed as [outer, n, inner] around dimension `d` (n = shape[d]).
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
inline AxisSplit split_at_axis(const int64_t* shape, int64_t ndim, int64_t d) {
  AxisSplit r;
  for (int64_t i = 0; i < ndim; ++i) {
    if (i < d) r.outer *= shape[i];
    else if (i == d) r.n = shape[i];
    else r.inner *= shape[i];
  }
  return r;
}

/// Runs f(line_start_offset) for every line along the axis.
template <class F> void for_each_line(int64_t outer, int64_t n, int64_t inner, F f) {
  const int64_t lines = outer * inner;
#pragma omp parallel for if (lines * n > kParallelGrain) schedule(static)
  for (int64_t l = 0; l < lines; ++l) f(line_start(l, n, inner));
}

/// out = cumulative sum of x along the axis (from the end when `reverse`), accumulated in Acc.
template <class T, class Acc>
void cumsum_axis(int64_t outer, int64_t n, int64_t inner, const T* x, T* out, bool reverse) {
  for_each_line(outer, n, inner, [&](int64_t base) { cumsum_line<T, Acc>(x, out, base, n, inner, reverse); });
}

/// out[line] = index of the largest (`want_max`) or smallest element along the axis (arg_extreme_line).
template <class T>
void arg_extreme_axis(int64_t outer, int64_t n, int64_t inner, const T* x, int64_t* out, bool want_max) {
  const int64_t lines = outer * inner;
#pragma omp parallel for if (lines * n > kParallelGrain) schedule(static)
  for (int64_t l = 0; l < lines; ++l) out[l] = arg_extreme_line(x + line_start(l, n, inner), n, inner, want_max);
}

/// out = softmax (or log_softmax when `log`) of x along the axis. The row maximum is subtracted
/// before exp so large inputs do not overflow; a row that is all -inf gives NaN (0/0), like NumPy.
template <class T>
void softmax_axis(int64_t outer, int64_t n, int64_t inner, const T* x, T* out, bool log) {
  for_each_line(outer, n, inner, [&](int64_t base) {
    T m = -std::numeric_limits<T>::infinity();
    for (int64_t s = 0; s < n; ++s) m = std::fmax(m, x[base + s * inner]);
    // An infinite maximum (a row of -inf, or a +inf entry) would make x - m NaN: shift by 0.
    if (!std::isfinite(m)) m = T(0);
    double total = 0;  // accumulate in double: float32 rows of thousands keep full precision
    for (int64_t s = 0; s < n; ++s) total += std::exp(static_cast<double>(x[base + s * inner] - m));
    if (log) {
      // (x - m) - log(total): subtracting m first keeps the digits of entries near the maximum.
      const T log_total = static_cast<T>(std::log(total));
      for (int64_t s = 0; s < n; ++s) out[base + s * inner] = (x[base + s * inner] - m) - log_total;
    } else {
      const double inv = 1.0 / total;
      for (int64_t s = 0; s < n; ++s)
        out[base + s * inner] = static_cast<T>(std::exp(static_cast<double>(x[base + s * inner] - m)) * inv);
    }
  });
}

}  // namespace sampan::kernels
