// The per-row body of a tabulated embedding net (DeePMD-kit's model compression), shared by the CPU
// kernels (tabulate_kernels.cpp) and a CUDA twin where one is written.
//
// A table replaces an embedding net s -> G(s) [M] by one quintic polynomial per interval and output
// column: on [x_k, x_k + h) with t = s - x_k, G_m(s) = sum_c a[k, c, m] t^c (c = 0..5). Intervals of
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

/// The factors of d^order/dt^order t^c = f[c] t^(c - order): f[c] = c! / (c - order)!, 0 for c < order.
template <class T> SAMPAN_HOST_DEVICE inline void derivative_factors(int order, T* f) {
  for (int c = 0; c < 6; ++c) {
    T v = c < order ? T(0) : T(1);
    for (int j = 0; j < order && c >= order; ++j) v *= static_cast<T>(c - j);
    f[c] = v;
  }
}

/// d^order/dt^order of sum_c a[c * M] t^c at t, for the column whose coefficients start at a
/// (the table is [interval][c][m]: one column's six coefficients lie M apart, so a loop over m
/// reads six contiguous streams and vectorizes).
template <class T>
SAMPAN_HOST_DEVICE inline T quintic_at(const T* a, int64_t M, T t, int order, const T* f) {
  switch (order) {
    case 0: return a[0] + t * (a[M] + t * (a[2 * M] + t * (a[3 * M] + t * (a[4 * M] + t * a[5 * M]))));
    case 1: return a[M] + t * (f[2] * a[2 * M] + t * (f[3] * a[3 * M] + t * (f[4] * a[4 * M] + t * f[5] * a[5 * M])));
    case 2: return f[2] * a[2 * M] + t * (f[3] * a[3 * M] + t * (f[4] * a[4 * M] + t * f[5] * a[5 * M]));
    default: {
      T v = 0;
      for (int c = 5; c >= order; --c) v = v * t + f[c] * a[c * M];
      return v;
    }
  }
}

/// row[m] = d^order/dt^order of sum_c a[c * M + m] t^c for m < M (order <= 5; f from
/// derivative_factors): the order is chosen once, outside the loops, so each loop is straight-line
/// arithmetic over six contiguous coefficient streams (it vectorizes).
template <class T>
SAMPAN_HOST_DEVICE inline void quintic_row(const T* a, int64_t M, T t, int order, const T* f, T* row) {
  const T *a0 = a, *a1 = a + M, *a2 = a + 2 * M, *a3 = a + 3 * M, *a4 = a + 4 * M, *a5 = a + 5 * M;
  switch (order) {
    case 0:
      for (int64_t m = 0; m < M; ++m) row[m] = a0[m] + t * (a1[m] + t * (a2[m] + t * (a3[m] + t * (a4[m] + t * a5[m]))));
      return;
    case 1: {
      const T f2 = f[2], f3 = f[3], f4 = f[4], f5 = f[5];
      for (int64_t m = 0; m < M; ++m) row[m] = a1[m] + t * (f2 * a2[m] + t * (f3 * a3[m] + t * (f4 * a4[m] + t * f5 * a5[m])));
      return;
    }
    case 2: {
      const T f2 = f[2], f3 = f[3], f4 = f[4], f5 = f[5];
      for (int64_t m = 0; m < M; ++m) row[m] = f2 * a2[m] + t * (f3 * a3[m] + t * (f4 * a4[m] + t * f5 * a5[m]));
      return;
    }
    default:
      for (int64_t m = 0; m < M; ++m) row[m] = quintic_at(a + m, M, t, order, f);
  }
}

/// out[m] = d^order G_m / ds^order at s, for m < M; the table is [interval][6][M].
template <class T>
SAMPAN_HOST_DEVICE inline void tabulated_row(const TableGrid& g, const T* table, int64_t M, T s, int order, T* out) {
  const TablePoint p = locate(g, static_cast<double>(s));
  if ((p.held && order > 0) || order > 5) {
    for (int64_t m = 0; m < M; ++m) out[m] = T(0);
    return;
  }
  const T* a = table + p.interval * 6 * M;
  const T t = static_cast<T>(p.t);
  T f[6];
  derivative_factors(order, f);
  quintic_row(a, M, t, order, f, out);
}

/// sum_m w[m] * d^order G_m / ds^order at s: one row of the vjp (w: the cotangent row of G).
template <class T>
SAMPAN_HOST_DEVICE inline T tabulated_row_dot(const TableGrid& g, const T* table, int64_t M, T s, int order,
                                              const T* w) {
  const TablePoint p = locate(g, static_cast<double>(s));
  if ((p.held && order > 0) || order > 5) return T(0);
  const T* a = table + p.interval * 6 * M;
  const T t = static_cast<T>(p.t);
  T f[6];
  derivative_factors(order, f);
  T acc = 0;
  for (int64_t m = 0; m < M; ++m) acc += w[m] * quintic_at(a + m, M, t, order, f);
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
