// The tabulated embedding net (model compression, tabulate_slot.h): plain functions over pointers
// and sizes. s [rows] (the embedding input s~ of each row), table [nint0 + nint1, 6, M].
#pragma once

#include <cstdint>

#include "kernels/tabulate_slot.h"

namespace sampan::deepmd::kernels {

/// out[r, m] = d^order G_m / ds^order at s[r] (out [rows, M], row-major).
template <class T>
void tabulated_embedding_cpu(const TableGrid& g, const T* table, int64_t M, const T* s, int64_t rows, int order, T* out);

/// out[r] = sum_m w[r, m] d^order G_m / ds^order at s[r] (w [rows, M]): a row of the vjp.
template <class T>
void tabulated_embedding_dot_cpu(const TableGrid& g, const T* table, int64_t M, const T* s, const T* w, int64_t rows,
                                 int order, T* out);

/// dtable[k, c, m] = sum over the rows r in interval k of w[r, m] d^order/dt^order (t_r^c): the
/// transpose in the table (dtable [intervals, 6, M], overwritten; rows added in increasing r).
template <class T>
void tabulated_embedding_table_grad_cpu(const TableGrid& g, int64_t intervals, int64_t M, const T* s, const T* w,
                                        int64_t rows, int order, T* dtable);

// The fused se_e2_a contraction with the table (DeePMD-kit's TabulateFusionSeA and its Grad and
// GradGrad, as three ops closed under differentiation: ops/tabulate_ops.cpp). For centres a < A,
// slots j < J and components c < C, with s [A, J] the embedding inputs and D = d^order G / ds^order
// of the table (never stored: each (a, j) evaluates its row of M values once, in a buffer):

/// out[a, c, m] = sum_j X[a, j, c] D_m(s[a, j])      (X [A, J, C], out [A, C, M]; j in order)
template <class T>
void tabulated_contract_cpu(const TableGrid& g, const T* table, int64_t M, const T* X, const T* s, int64_t A, int64_t J,
                            int64_t C, int order, T* out);

/// out[a, j, c] = sum_m H[a, c, m] D_m(s[a, j])      (H [A, C, M], out [A, J, C])
template <class T>
void tabulated_expand_cpu(const TableGrid& g, const T* table, int64_t M, const T* H, const T* s, int64_t A, int64_t J,
                          int64_t C, int order, T* out);

/// out[a, j] = sum_c sum_m H[a, c, m] X[a, j, c] D_m(s[a, j])   (out [A, J])
template <class T>
void tabulated_pair_cpu(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s, int64_t A,
                        int64_t J, int64_t C, int order, T* out);

/// Both of the above in one pass over the pairs (each row's coefficients read once): expand_out
/// (order expand_order) and pair_out (order pair_order, with X), either may be null.
template <class T>
void tabulated_expand_pair_cpu(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s,
                               int64_t A, int64_t J, int64_t C, int expand_order, int pair_order, T* expand_out,
                               T* pair_out);

}  // namespace sampan::deepmd::kernels
