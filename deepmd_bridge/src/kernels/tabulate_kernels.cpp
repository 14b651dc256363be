// CPU loops of the tabulated embedding (tabulate_kernels.h); rows are independent.
#include "kernels/tabulate_kernels.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

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
    T* out = dtable + p.interval * 6 * M;
    for (int c = 0; c < 6; ++c)
      for (int64_t m = 0; m < M; ++m) out[c * M + m] += w[r * M + m] * mono[c];
  }
}

// The fused kernels visit the (a, j) pairs of a chunk of centres interval by interval, so that an
// interval's 6 x M coefficients are read from memory once per chunk and then from L1 for each of
// its pairs (a water table is ~6 MB per net, far beyond L2; in slot order every pair read its own
// 4.8 KB). Within an interval pairs go in (a, j) order, so every sum has one fixed order. The
// per-pair bodies are inlined into clones for AVX-512, AVX2 and the baseline (target_clones),
// chosen at load time: the polynomial loops over m vectorize.
namespace {

constexpr int64_t kChunkCentres = 64;

// sum_m x[m] y[m] in 8 interleaved partial sums added in a fixed order at the end: a reduction
// the compiler may vectorize without reassociating (the same order on every call).
template <class T> inline __attribute__((always_inline)) T dot_lanes(const T* x, const T* y, int64_t M) {
  constexpr int L = 8;
  T lane[L] = {};
  int64_t m = 0;
  for (; m + L <= M; m += L)
    for (int l = 0; l < L; ++l) lane[l] += x[m + l] * y[m + l];
  for (int l = 0; m < M; ++m, ++l) lane[l] += x[m] * y[m];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

struct PairOrder {
  std::vector<int64_t> start, pairs;  // pairs sorted by interval; interval k's are [start[k], start[k+1])
  std::vector<double> t;              // t of each pair (by pair index within the chunk)
  std::vector<unsigned char> held;
};

// Sorts the pairs (a, j), a in [a0, a1), by interval (counting sort: stable, so (a, j) order within one).
template <class T>
inline __attribute__((always_inline)) void sort_pairs(const TableGrid& g, const T* s, int64_t a0, int64_t a1, int64_t J,
                                                      PairOrder& o) {
  const int64_t n = (a1 - a0) * J, intervals = g.nint0 + g.nint1;
  std::vector<int64_t> interval(static_cast<std::size_t>(n));
  o.start.assign(static_cast<std::size_t>(intervals + 1), 0);
  o.t.resize(static_cast<std::size_t>(n));
  o.held.resize(static_cast<std::size_t>(n));
  o.pairs.resize(static_cast<std::size_t>(n));
  for (int64_t q = 0; q < n; ++q) {
    const TablePoint p = locate(g, static_cast<double>(s[a0 * J + q]));
    interval[q] = p.interval;
    o.t[q] = p.t;
    o.held[q] = p.held;
    ++o.start[p.interval + 1];
  }
  for (int64_t k = 0; k < intervals; ++k) o.start[k + 1] += o.start[k];
  std::vector<int64_t> next(o.start.begin(), o.start.end() - 1);
  for (int64_t q = 0; q < n; ++q) o.pairs[next[interval[q]]++] = q;
}

// Calls body(q, row) for every pair q of the chunk whose row D_order is not identically zero, with
// row[m] = D_order G_m at the pair's s, interval by interval.
template <class T, class Body>
inline __attribute__((always_inline)) void for_each_row(const TableGrid& g, const T* table, int64_t M, int order,
                                                        const PairOrder& o, T* row, Body&& body) {
  if (order > 5) return;
  T f[6];
  derivative_factors(order, f);
  const int64_t intervals = g.nint0 + g.nint1;
  for (int64_t k = 0; k < intervals; ++k) {
    const T* a = table + k * 6 * M;
    for (int64_t r = o.start[k]; r < o.start[k + 1]; ++r) {
      const int64_t q = o.pairs[r];
      if (o.held[q] && order > 0) continue;
      const T t = static_cast<T>(o.t[q]);
      quintic_row(a, M, t, order, f, row);
      body(q, row);
    }
  }
}

template <class T>
inline __attribute__((always_inline)) void contract_chunk(const TableGrid& g, const T* table, int64_t M, const T* X,
                                                          const T* s, int64_t a0, int64_t a1, int64_t J, int64_t C,
                                                          int order, T* out, PairOrder& o, T* row) {
  for (int64_t k = a0 * C * M; k < a1 * C * M; ++k) out[k] = T(0);
  sort_pairs(g, s, a0, a1, J, o);
  for_each_row(g, table, M, order, o, row, [&](int64_t q, const T* r) {
    const int64_t a = a0 + q / J;
    const T* x = X + (a0 * J + q) * C;
    T* oa = out + a * C * M;
    for (int64_t c = 0; c < C; ++c) {
      const T xc = x[c];
      T* oc = oa + c * M;
      for (int64_t m = 0; m < M; ++m) oc[m] += xc * r[m];
    }
  });
}

// E (expand: dE[a,j,c] = sum_m H[a,c,m] D_order) and/or P (pair with X and D_pair_order), in one pass
// over the pairs when both are asked (the vjp of contract needs both; each row costs one table read).
template <class T>
inline __attribute__((always_inline)) void expand_pair_chunk(const TableGrid& g, const T* table, int64_t M, const T* H,
                                                             const T* X, const T* s, int64_t a0, int64_t a1, int64_t J,
                                                             int64_t C, int expand_order, int pair_order, T* expand_out,
                                                             T* pair_out, PairOrder& o, T* row, T* row2) {
  if (expand_out)
    for (int64_t k = a0 * J * C; k < a1 * J * C; ++k) expand_out[k] = T(0);
  if (pair_out)
    for (int64_t k = a0 * J; k < a1 * J; ++k) pair_out[k] = T(0);
  sort_pairs(g, s, a0, a1, J, o);
  T fe[6], fp[6];
  derivative_factors(expand_order, fe);
  derivative_factors(pair_order, fp);
  const int64_t intervals = g.nint0 + g.nint1;
  for (int64_t k = 0; k < intervals; ++k) {
    const T* a = table + k * 6 * M;
    for (int64_t r = o.start[k]; r < o.start[k + 1]; ++r) {
      const int64_t q = o.pairs[r], pair = a0 * J + q, centre = a0 + q / J;
      const T t = static_cast<T>(o.t[q]);
      const T* h = H + centre * C * M;
      if (expand_out && expand_order <= 5 && !(o.held[q] && expand_order > 0)) {
        quintic_row(a, M, t, expand_order, fe, row);
        for (int64_t c = 0; c < C; ++c) expand_out[pair * C + c] = dot_lanes(h + c * M, row, M);
      }
      if (pair_out && pair_order <= 5 && !(o.held[q] && pair_order > 0)) {
        quintic_row(a, M, t, pair_order, fp, row2);
        const T* x = X + pair * C;
        T acc = 0;
        for (int64_t c = 0; c < C; ++c) acc += x[c] * dot_lanes(h + c * M, row2, M);
        pair_out[pair] = acc;
      }
    }
  }
}

// The chunk loops, one clone per instruction set for float64 (the model's precision).
#define SAMPAN_TABLE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

SAMPAN_TABLE_CLONES void contract_f64(const TableGrid& g, const double* table, int64_t M, const double* X,
                                      const double* s, int64_t a0, int64_t a1, int64_t J, int64_t C, int order,
                                      double* out, PairOrder& o, double* row) {
  contract_chunk(g, table, M, X, s, a0, a1, J, C, order, out, o, row);
}
SAMPAN_TABLE_CLONES void expand_pair_f64(const TableGrid& g, const double* table, int64_t M, const double* H,
                                         const double* X, const double* s, int64_t a0, int64_t a1, int64_t J,
                                         int64_t C, int eo, int po, double* eout, double* pout, PairOrder& o,
                                         double* row, double* row2) {
  expand_pair_chunk(g, table, M, H, X, s, a0, a1, J, C, eo, po, eout, pout, o, row, row2);
}

template <class T>
void contract_dispatch(const TableGrid& g, const T* table, int64_t M, const T* X, const T* s, int64_t a0, int64_t a1,
                       int64_t J, int64_t C, int order, T* out, PairOrder& o, T* row) {
  if constexpr (std::is_same_v<T, double>) contract_f64(g, table, M, X, s, a0, a1, J, C, order, out, o, row);
  else contract_chunk(g, table, M, X, s, a0, a1, J, C, order, out, o, row);
}
template <class T>
void expand_pair_dispatch(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s, int64_t a0,
                          int64_t a1, int64_t J, int64_t C, int eo, int po, T* eout, T* pout, PairOrder& o, T* row,
                          T* row2) {
  if constexpr (std::is_same_v<T, double>)
    expand_pair_f64(g, table, M, H, X, s, a0, a1, J, C, eo, po, eout, pout, o, row, row2);
  else expand_pair_chunk(g, table, M, H, X, s, a0, a1, J, C, eo, po, eout, pout, o, row, row2);
}

}  // namespace

template <class T>
void tabulated_contract_cpu(const TableGrid& g, const T* table, int64_t M, const T* X, const T* s, int64_t A, int64_t J,
                            int64_t C, int order, T* out) {
  const int64_t chunks = (A + kChunkCentres - 1) / kChunkCentres;
#pragma omp parallel if (chunks > 1 && A * J * M > 32768)
  {
    PairOrder o;
    std::vector<T> row(static_cast<std::size_t>(M));
#pragma omp for schedule(static)
    for (int64_t ch = 0; ch < chunks; ++ch)
      contract_dispatch(g, table, M, X, s, ch * kChunkCentres, std::min(A, (ch + 1) * kChunkCentres), J, C, order, out,
                        o, row.data());
  }
}

template <class T>
void tabulated_expand_pair_cpu(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s,
                               int64_t A, int64_t J, int64_t C, int expand_order, int pair_order, T* expand_out,
                               T* pair_out) {
  const int64_t chunks = (A + kChunkCentres - 1) / kChunkCentres;
#pragma omp parallel if (chunks > 1 && A * J * M > 32768)
  {
    PairOrder o;
    std::vector<T> row(static_cast<std::size_t>(M)), row2(static_cast<std::size_t>(M));
#pragma omp for schedule(static)
    for (int64_t ch = 0; ch < chunks; ++ch)
      expand_pair_dispatch(g, table, M, H, X, s, ch * kChunkCentres, std::min(A, (ch + 1) * kChunkCentres), J, C,
                           expand_order, pair_order, expand_out, pair_out, o, row.data(), row2.data());
  }
}

template <class T>
void tabulated_expand_cpu(const TableGrid& g, const T* table, int64_t M, const T* H, const T* s, int64_t A, int64_t J,
                          int64_t C, int order, T* out) {
  tabulated_expand_pair_cpu<T>(g, table, M, H, nullptr, s, A, J, C, order, 0, out, nullptr);
}

template <class T>
void tabulated_pair_cpu(const TableGrid& g, const T* table, int64_t M, const T* H, const T* X, const T* s, int64_t A,
                        int64_t J, int64_t C, int order, T* out) {
  tabulated_expand_pair_cpu<T>(g, table, M, H, X, s, A, J, C, 0, order, nullptr, out);
}

#define SAMPAN_TABULATED_FUSION(T)                                                                                    \
  template void tabulated_contract_cpu<T>(const TableGrid&, const T*, int64_t, const T*, const T*, int64_t, int64_t, \
                                          int64_t, int, T*);                                                          \
  template void tabulated_expand_cpu<T>(const TableGrid&, const T*, int64_t, const T*, const T*, int64_t, int64_t,   \
                                        int64_t, int, T*);                                                            \
  template void tabulated_pair_cpu<T>(const TableGrid&, const T*, int64_t, const T*, const T*, const T*, int64_t,    \
                                      int64_t, int64_t, int, T*);                                                     \
  template void tabulated_expand_pair_cpu<T>(const TableGrid&, const T*, int64_t, const T*, const T*, const T*,      \
                                             int64_t, int64_t, int64_t, int, int, T*, T*);
SAMPAN_TABULATED_FUSION(float)
SAMPAN_TABULATED_FUSION(double)
#undef SAMPAN_TABULATED_FUSION

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
