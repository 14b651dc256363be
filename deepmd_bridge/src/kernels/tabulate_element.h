// Per-element bodies of the CUDA twins of the tabulated embedding ops (tabulate_ops.cpp): one
// output element each, computed as the CPU kernels (tabulate_kernels.cpp) compute it, with the
// same expressions (quintic_at is quintic_row's column) and every sum in the CPU's order: the
// fused contraction visits a centre's slots interval by interval (the CPU's sort of a chunk's
// pairs, restricted to one centre: pair_order_of_centre), and the sums over m go in dot_lanes's
// eight lanes. So each element has the CPU op's bits, which a CPU test
// (tests/cpp/deepmd_bridge/tabulate_element_test.cpp) requires of every element, but for the
// float64 fused ops on an AVX-512 CPU: their clone for it (tabulate_kernels.cpp) contracts
// products into fused multiply-adds, the GPU (--fmad=false) does not, so those agree to rounding.
// Host and device; arrays row-major and contiguous; grid and table layout as in tabulate_slot.h.
#pragma once

#include <cstdint>

#include "kernels/tabulate_slot.h"
#include "sampan/host_device.h"

namespace sampan::deepmd::kernels {

/// Where the row of D = d^order G / ds^order at s is not identically zero (inside the table, or
/// held with order 0; order <= 5): its interval's coefficients `a` and t. False otherwise.
template <class T>
SAMPAN_HOST_DEVICE inline bool table_row_at(const TableGrid& g, const T* table, int64_t M, T s, int order, const T*& a,
                                            T& t) {
  const TablePoint p = locate(g, static_cast<double>(s));
  if ((p.held && order > 0) || order > 5) return false;
  a = table + p.interval * 6 * M;
  t = static_cast<T>(p.t);
  return true;
}

/// sum over m < M of term(m) in dot_lanes's order (tabulate_kernels.cpp): eight partial sums,
/// m in lane m % 8, combined as ((0 + 1) + (2 + 3)) + ((4 + 5) + (6 + 7)).
template <class T, class Term> SAMPAN_HOST_DEVICE inline T sum_in_lanes(int64_t M, Term term) {
  T lane[8] = {T(0), T(0), T(0), T(0), T(0), T(0), T(0), T(0)};
  int64_t m = 0;
  for (; m + 8 <= M; m += 8)
    for (int l = 0; l < 8; ++l) lane[l] += term(m + l);
  for (int l = 0; m < M; ++m, ++l) lane[l] += term(m);
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

/// tabulated_embedding: G[r, m] at k = r * M + m.
template <class T>
SAMPAN_HOST_DEVICE inline T tabulated_embedding_at(const TableGrid& g, const T* table, int64_t M, const T* s, int order,
                                                   int64_t k) {
  const T* a;
  T t;
  if (!table_row_at(g, table, M, s[k / M], order, a, t)) return T(0);
  T f[6];
  derivative_factors(order, f);
  return quintic_at(a + k % M, M, t, order, f);
}

/// tabulated_embedding_table_grad for one column (c, m) of every interval (col = c * M + m):
/// dtable[k, c, m] = sum over the rows r in interval k, in increasing r, of w[r, m] (t_r^c)^(order).
template <class T>
SAMPAN_HOST_DEVICE inline void tabulated_table_grad_column(const TableGrid& g, int64_t intervals, int64_t M, const T* s,
                                                           const T* w, int64_t rows, int order, int64_t col, T* dtable) {
  const int c = static_cast<int>(col / M);
  const int64_t m = col % M;
  for (int64_t k = 0; k < intervals; ++k) dtable[k * 6 * M + col] = T(0);
  for (int64_t r = 0; r < rows; ++r) {
    const TablePoint p = locate(g, static_cast<double>(s[r]));
    if (p.held && order > 0) continue;
    T mono[6];
    monomial_derivatives(static_cast<T>(p.t), order, mono);
    dtable[p.interval * 6 * M + col] += w[r * M + m] * mono[c];
  }
}

/// The slots j < J of centre a in the order the CPU's fused kernels visit them: by interval, then
/// by j (a stable insertion sort of the interval indices). order_out [J].
template <class T>
SAMPAN_HOST_DEVICE inline void pair_order_of_centre(const TableGrid& g, const T* s, int64_t J, int64_t a,
                                                    int64_t* order_out) {
  for (int64_t j = 0; j < J; ++j) {
    const int64_t key = locate(g, static_cast<double>(s[a * J + j])).interval;
    int64_t i = j;
    while (i > 0 && locate(g, static_cast<double>(s[a * J + order_out[i - 1]])).interval > key) {
      order_out[i] = order_out[i - 1];
      --i;
    }
    order_out[i] = j;
  }
}

/// tabulated_contract: O[a, c, m] = sum_j X[a, j, c] D_m(s[a, j]) at i = (a * C + c) * M + m, the
/// slots in `pair_order` ([A, J], pair_order_of_centre of each centre).
template <class T>
SAMPAN_HOST_DEVICE inline T tabulated_contract_at(const TableGrid& g, const T* table, int64_t M, const T* X, const T* s,
                                                  const int64_t* pair_order, int64_t J, int64_t C, int order,
                                                  int64_t i) {
  const int64_t m = i % M, c = (i / M) % C, centre = i / (C * M);
  T f[6];
  derivative_factors(order, f);
  T acc = T(0);
  for (int64_t r = 0; r < J; ++r) {
    const int64_t pair = centre * J + pair_order[centre * J + r];
    const T* a;
    T t;
    if (!table_row_at(g, table, M, s[pair], order, a, t)) continue;
    acc += X[pair * C + c] * quintic_at(a + m, M, t, order, f);
  }
  return acc;
}

/// tabulated_expand: E[a, j, c] = sum_m H[a, c, m] D_m(s[a, j]) at i = (a * J + j) * C + c.
template <class T>
SAMPAN_HOST_DEVICE inline T tabulated_expand_at(const TableGrid& g, const T* table, int64_t M, const T* H, const T* s,
                                                int64_t J, int64_t C, int order, int64_t i) {
  const int64_t c = i % C, pair = i / C, centre = pair / J;
  const T* a;
  T t;
  if (!table_row_at(g, table, M, s[pair], order, a, t)) return T(0);
  T f[6];
  derivative_factors(order, f);
  const T* h = H + (centre * C + c) * M;
  return sum_in_lanes<T>(M, [&](int64_t m) { return h[m] * quintic_at(a + m, M, t, order, f); });
}

/// tabulated_pair: p[a, j] = sum_c X[a, j, c] sum_m H[a, c, m] D_m(s[a, j]) at pair = a * J + j.
template <class T>
SAMPAN_HOST_DEVICE inline T tabulated_pair_at(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X,
                                              const T* s, int64_t J, int64_t C, int order, int64_t pair) {
  const T* a;
  T t;
  if (!table_row_at(g, table, M, s[pair], order, a, t)) return T(0);
  T f[6];
  derivative_factors(order, f);
  const T* h = H + (pair / J) * C * M;
  T acc = T(0);
  for (int64_t c = 0; c < C; ++c)
    acc += X[pair * C + c] *
           sum_in_lanes<T>(M, [&](int64_t m) { return h[c * M + m] * quintic_at(a + m, M, t, order, f); });
  return acc;
}

}  // namespace sampan::deepmd::kernels
