// The tabulated embedding net (model compression, tabulate_slot.h): plain functions over pointers
// and sizes. s [rows] (the embedding input s~ of each row), table [nint0 + nint1, M, 6].
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

/// dtable[k, m, c] = sum over the rows r in interval k of w[r, m] d^order/dt^order (t_r^c): the
/// transpose in the table (dtable [intervals, M, 6], overwritten; rows added in increasing r).
template <class T>
void tabulated_embedding_table_grad_cpu(const TableGrid& g, int64_t intervals, int64_t M, const T* s, const T* w,
                                        int64_t rows, int order, T* dtable);

}  // namespace sampan::deepmd::kernels
