// CUDA twins of the tabulated embedding kernels (tabulate_kernels.h), one thread per output element
// over the bodies of tabulate_element.h, so the CPU's bits (defined in tabulate_kernels.cu,
// compiled only where nvcc exists: SAMPAN_CUDA_KERNELS). Device pointers, the CPU kernels'
// arguments; errors leave as std::runtime_error. T: float or double. Deterministic: no atomics.
#pragma once

#include <cstdint>

#include "kernels/tabulate_slot.h"

namespace sampan::deepmd::kernels {

template <class T>
void tabulated_embedding_cuda(const TableGrid& g, const T* table, int64_t M, const T* s, int64_t rows, int order, T* out);
template <class T>
void tabulated_embedding_dot_cuda(const TableGrid& g, const T* table, int64_t M, const T* s, const T* w, int64_t rows,
                                  int order, T* out);
/// One thread per column (c, m) of the table, folding the rows in order.
template <class T>
void tabulated_embedding_table_grad_cuda(const TableGrid& g, int64_t intervals, int64_t M, const T* s, const T* w,
                                         int64_t rows, int order, T* dtable);
/// pair_order: device scratch of A * J int64 (each centre's slots in the CPU's visiting order).
template <class T>
void tabulated_contract_cuda(const TableGrid& g, const T* table, int64_t M, const T* X, const T* s, int64_t A,
                             int64_t J, int64_t C, int order, int64_t* pair_order, T* out);
template <class T>
void tabulated_expand_cuda(const TableGrid& g, const T* table, int64_t M, const T* H, const T* s, int64_t A, int64_t J,
                           int64_t C, int order, T* out);
template <class T>
void tabulated_pair_cuda(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s, int64_t A,
                         int64_t J, int64_t C, int order, T* out);

}  // namespace sampan::deepmd::kernels
