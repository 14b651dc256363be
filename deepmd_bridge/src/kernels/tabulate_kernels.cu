// The CUDA twins of the tabulated embedding kernels: one grid-stride kernel per op, each thread one
// output element (or one table column) through tabulate_element.h.
#include "kernels/each_cuda.cuh"
#include "kernels/tabulate_element.h"
#include "kernels/tabulate_kernels_cuda.h"

namespace sampan::deepmd::kernels {

template <class T>
void tabulated_embedding_cuda(const TableGrid& g, const T* table, int64_t M, const T* s, int64_t rows, int order,
                              T* out) {
  each(rows * M, "tabulated_embedding_cuda",
       [=] __device__(int64_t k) { out[k] = tabulated_embedding_at(g, table, M, s, order, k); });
}

template <class T>
void tabulated_embedding_dot_cuda(const TableGrid& g, const T* table, int64_t M, const T* s, const T* w, int64_t rows,
                                  int order, T* out) {
  each(rows, "tabulated_embedding_dot_cuda",
       [=] __device__(int64_t r) { out[r] = tabulated_row_dot(g, table, M, s[r], order, w + r * M); });
}

template <class T>
void tabulated_embedding_table_grad_cuda(const TableGrid& g, int64_t intervals, int64_t M, const T* s, const T* w,
                                         int64_t rows, int order, T* dtable) {
  each(6 * M, "tabulated_embedding_table_grad_cuda", [=] __device__(int64_t col) {
    tabulated_table_grad_column(g, intervals, M, s, w, rows, order, col, dtable);
  });
}

template <class T>
void tabulated_contract_cuda(const TableGrid& g, const T* table, int64_t M, const T* X, const T* s, int64_t A,
                             int64_t J, int64_t C, int order, int64_t* pair_order, T* out) {
  each(A, "tabulated_contract_cuda (slot order)",
       [=] __device__(int64_t a) { pair_order_of_centre(g, s, J, a, pair_order + a * J); });
  each(A * C * M, "tabulated_contract_cuda", [=] __device__(int64_t i) {
    out[i] = tabulated_contract_at(g, table, M, X, s, pair_order, J, C, order, i);
  });
}

template <class T>
void tabulated_expand_cuda(const TableGrid& g, const T* table, int64_t M, const T* H, const T* s, int64_t A, int64_t J,
                           int64_t C, int order, T* out) {
  each(A * J * C, "tabulated_expand_cuda",
       [=] __device__(int64_t i) { out[i] = tabulated_expand_at(g, table, M, H, s, J, C, order, i); });
}

template <class T>
void tabulated_pair_cuda(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s, int64_t A,
                         int64_t J, int64_t C, int order, T* out) {
  each(A * J, "tabulated_pair_cuda",
       [=] __device__(int64_t p) { out[p] = tabulated_pair_at(g, table, M, H, X, s, J, C, order, p); });
}

#define SAMPAN_TABULATED_CUDA(T)                                                                                     \
  template void tabulated_embedding_cuda<T>(const TableGrid&, const T*, int64_t, const T*, int64_t, int, T*);       \
  template void tabulated_embedding_dot_cuda<T>(const TableGrid&, const T*, int64_t, const T*, const T*, int64_t,   \
                                                int, T*);                                                            \
  template void tabulated_embedding_table_grad_cuda<T>(const TableGrid&, int64_t, int64_t, const T*, const T*,      \
                                                       int64_t, int, T*);                                            \
  template void tabulated_contract_cuda<T>(const TableGrid&, const T*, int64_t, const T*, const T*, int64_t,        \
                                           int64_t, int64_t, int, int64_t*, T*);                                     \
  template void tabulated_expand_cuda<T>(const TableGrid&, const T*, int64_t, const T*, const T*, int64_t, int64_t, \
                                         int64_t, int, T*);                                                          \
  template void tabulated_pair_cuda<T>(const TableGrid&, const T*, int64_t, const T*, const T*, const T*, int64_t,  \
                                       int64_t, int64_t, int, T*);
SAMPAN_TABULATED_CUDA(float)
SAMPAN_TABULATED_CUDA(double)
#undef SAMPAN_TABULATED_CUDA

}  // namespace sampan::deepmd::kernels
