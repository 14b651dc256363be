// CPU loops of the tabulated embedding (tabulate_kernels.h); rows are independent.
#include "kernels/tabulate_kernels.h"

namespace sampan::deepmd::kernels {

template <class T>
void tabulated_embedding_cpu(const TableGrid& g, const T* table, int64_t M, const T* s, int64_t rows, int order, T* out) {
#pragma omp parallel for schedule(static) if (rows * M > 32768)
  for (int64_t r = 0; r < rows; ++r) tabulated_row(g, table, M, s[r], order, out + r * M);
}

template <class T>
void tabulated_embedding_dot_cpu(const TableGrid& g, const T* table, int64_t M, const T* s, const T* w, int64_t rows,
                                 int order, T* out) {
#pragma omp parallel for schedule(static) if (rows * M > 32768)
  for (int64_t r = 0; r < rows; ++r) out[r] = tabulated_row_dot(g, table, M, s[r], order, w + r * M);
}

template <class T>
void tabulated_embedding_table_grad_cpu(const TableGrid& g, int64_t intervals, int64_t M, const T* s, const T* w,
                                        int64_t rows, int order, T* dtable) {
  for (int64_t j = 0; j < intervals * M * 6; ++j) dtable[j] = T(0);
  for (int64_t r = 0; r < rows; ++r) {
    const TablePoint p = locate(g, static_cast<double>(s[r]));
    if (p.held && order > 0) continue;
    T mono[6];
    monomial_derivatives(static_cast<T>(p.t), order, mono);
    T* out = dtable + p.interval * M * 6;
    for (int64_t m = 0; m < M; ++m)
      for (int c = 0; c < 6; ++c) out[m * 6 + c] += w[r * M + m] * mono[c];
  }
}

template void tabulated_embedding_table_grad_cpu<float>(const TableGrid&, int64_t, int64_t, const float*, const float*,
                                                        int64_t, int, float*);
template void tabulated_embedding_table_grad_cpu<double>(const TableGrid&, int64_t, int64_t, const double*,
                                                         const double*, int64_t, int, double*);
template void tabulated_embedding_cpu<float>(const TableGrid&, const float*, int64_t, const float*, int64_t, int, float*);
template void tabulated_embedding_cpu<double>(const TableGrid&, const double*, int64_t, const double*, int64_t, int,
                                              double*);
template void tabulated_embedding_dot_cpu<float>(const TableGrid&, const float*, int64_t, const float*, const float*,
                                                 int64_t, int, float*);
template void tabulated_embedding_dot_cpu<double>(const TableGrid&, const double*, int64_t, const double*,
                                                  const double*, int64_t, int, double*);

}  // namespace sampan::deepmd::kernels
