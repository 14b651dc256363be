// The per-row body of a tabulated embedding net (DeePMD-kit's model compression), shared by the CPU
// kernels (tabulate_kernels.cpp) and a CUDA twin where one is written.
//
// A table replaces an embedding net s -> G(s) [M] by one quintic polynomial per interval and output
// column: on [x_k, x_k + h) with t = s - x_k, G_m(s) = sum_c a[k, m, c] t^c (c = 0..5). Intervals of
// width stride0 cover [lower, upper) (the range the training data reaches) and of width stride1
// cover [upper, extrapolated) (beyond it, coarser). Outside [lower, extrapolated) the value is held
// at the nearest end, so every derivative there is 0: energies and forces stay consistent.
#pragma once

#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::deepmd::kernels {

/// Where s falls: the interval index and t = s - its left end (clamped rows: held = true).
struct TablePoint {
  int64_t interval;
  double t;
  bool held;
};

/// The table's grid: nint0 intervals of stride0 from lower, then nint1 of stride1 from upper.
struct TableGrid {
  double lower, upper, stride0, stride1;
  int64_t nint0, nint1;
};

SAMPAN_HOST_DEVICE inline TablePoint locate(const TableGrid& g, double s) {
  const int64_t n = g.nint0 + g.nint1;
  if (!(s >= g.lower)) return {0, 0.0, true};  // also NaN: held at the lower end
  if (s < g.upper) {
    int64_t k = static_cast<int64_t>((s - g.lower) / g.stride0);
    if (k >= g.nint0) k = g.nint0 - 1;  // rounding at the seam
    return {k, s - (g.lower + static_cast<double>(k) * g.stride0), false};
  }
  int64_t k = static_cast<int64_t>((s - g.upper) / g.stride1);
  if (k >= g.nint1) {
    const double h = g.nint1 > 0 ? g.stride1 : g.stride0;
    return {n - 1, h, true};  // held at the far end of the last interval
  }
  return {g.nint0 + k, s - (g.upper + static_cast<double>(k) * g.stride1), false};
}

/// d^order/dt^order of sum_c a[c] t^c at t (order 0..5; 0 beyond).
template <class T> SAMPAN_HOST_DEVICE inline T quintic_derivative(const T* a, T t, int order) {
  switch (order) {
    case 0: return a[0] + t * (a[1] + t * (a[2] + t * (a[3] + t * (a[4] + t * a[5]))));
    case 1: return a[1] + t * (2 * a[2] + t * (3 * a[3] + t * (4 * a[4] + t * 5 * a[5])));
    case 2: return 2 * a[2] + t * (6 * a[3] + t * (12 * a[4] + t * 20 * a[5]));
    case 3: return 6 * a[3] + t * (24 * a[4] + t * 60 * a[5]);
    case 4: return 24 * a[4] + t * 120 * a[5];
    case 5: return 120 * a[5];
    default: return T(0);
  }
}

/// out[m] = d^order G_m / ds^order at s, for m < M; table rows are [interval][m][6].
template <class T>
SAMPAN_HOST_DEVICE inline void tabulated_row(const TableGrid& g, const T* table, int64_t M, T s, int order, T* out) {
  const TablePoint p = locate(g, static_cast<double>(s));
  const T* a = table + p.interval * M * 6;
  if (p.held && order > 0) {
    for (int64_t m = 0; m < M; ++m) out[m] = T(0);
    return;
  }
  const T t = static_cast<T>(p.t);
  for (int64_t m = 0; m < M; ++m) out[m] = quintic_derivative(a + m * 6, t, order);
}

/// sum_m w[m] * d^order G_m / ds^order at s: one row of the vjp (w: the cotangent row of G).
template <class T>
SAMPAN_HOST_DEVICE inline T tabulated_row_dot(const TableGrid& g, const T* table, int64_t M, T s, int order,
                                              const T* w) {
  const TablePoint p = locate(g, static_cast<double>(s));
  if (p.held && order > 0) return T(0);
  const T* a = table + p.interval * M * 6;
  const T t = static_cast<T>(p.t);
  T acc = 0;
  for (int64_t m = 0; m < M; ++m) acc += w[m] * quintic_derivative(a + m * 6, t, order);
  return acc;
}

/// d^order/dt^order of t^c at t, for c = 0..5 (the derivative of a table entry's term).
template <class T> SAMPAN_HOST_DEVICE inline void monomial_derivatives(T t, int order, T* p) {
  for (int c = 0; c < 6; ++c) {
    if (c < order) {
      p[c] = T(0);
      continue;
    }
    T v = 1;
    for (int j = 0; j < order; ++j) v *= static_cast<T>(c - j);  // c! / (c - order)!
    for (int j = 0; j < c - order; ++j) v *= t;
    p[c] = v;
  }
}

}  // namespace sampan::deepmd::kernels
