// The gathered contraction kernels (see gather_contract_kernels.h).
#include "kernels/gather_contract_kernels.h"

#include <cstddef>
#include <vector>

namespace sampan::deepmd::kernels {

namespace {
// Below this many multiply-adds a parallel region costs more than it saves.
constexpr int64_t kParallelWork = int64_t{1} << 18;

// acc[c*M + m] += sum over c of e[c] * row[m]: one embedding row into an atom's [C, M] block.
// The water model has C = 4 (s, x, y, z of the env matrix): a compile-time C keeps the four
// accumulator streams in registers while the row is read once.
template <class T, int C> void add_outer_fixed(const T* e, const T* row, int64_t M, T* acc) {
#pragma omp simd
  for (int64_t m = 0; m < M; ++m) {
    const T v = row[m];
    for (int c = 0; c < C; ++c) acc[c * M + m] += e[c] * v;
  }
}
template <class T> void add_outer(const T* e, const T* row, int64_t C, int64_t M, T* acc) {
  if (C == 4) return add_outer_fixed<T, 4>(e, row, M, acc);
  for (int64_t c = 0; c < C; ++c)
#pragma omp simd
    for (int64_t m = 0; m < M; ++m) acc[c * M + m] += e[c] * row[m];
}

// out[m] += sum_c e[c] * d[c*M + m] (the sum over c first, then one add per m: the same order
// whatever C is).
template <class T, int C> void add_weighted_rows_fixed(const T* e, const T* d, int64_t M, T* out) {
#pragma omp simd
  for (int64_t m = 0; m < M; ++m) {
    T s = e[0] * d[m];
    for (int c = 1; c < C; ++c) s += e[c] * d[c * M + m];
    out[m] += s;
  }
}
template <class T> void add_weighted_rows(const T* e, const T* d, int64_t C, int64_t M, T* out) {
  if (C == 4) return add_weighted_rows_fixed<T, 4>(e, d, M, out);
  for (int64_t m = 0; m < M; ++m) {
    T s = e[0] * d[m];
    for (int64_t c = 1; c < C; ++c) s += e[c] * d[c * M + m];
    out[m] += s;
  }
}
}  // namespace

template <class T>
void gather_contract_cpu(const T* em, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C, int64_t M,
                         T* out) {
#pragma omp parallel for if (A * K * C * M > kParallelWork) schedule(static)
  for (int64_t a = 0; a < A; ++a) {
    T* acc = out + a * C * M;
    for (int64_t j = 0; j < C * M; ++j) acc[j] = T(0);
    for (int64_t k = 0; k < K; ++k) add_outer(em + (a * K + k) * C, g + rows[a * K + k] * M, C, M, acc);
  }
}

template <class T>
void gather_contract_em_grad_cpu(const T* dout, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C,
                                 int64_t M, T* dem) {
#pragma omp parallel for if (A * K * C * M > kParallelWork) schedule(static)
  for (int64_t a = 0; a < A; ++a) {
    const T* d = dout + a * C * M;
    for (int64_t k = 0; k < K; ++k) {
      const T* row = g + rows[a * K + k] * M;
      T* out = dem + (a * K + k) * C;
      for (int64_t c = 0; c < C; ++c) {
        const T* dc = d + c * M;
        T s = T(0);
#pragma omp simd reduction(+ : s)
        for (int64_t m = 0; m < M; ++m) s += dc[m] * row[m];
        out[c] = s;
      }
    }
  }
}

template <class T>
void gather_contract_g_grad_cpu(const T* em, const T* dout, const int64_t* rows, int64_t A, int64_t K, int64_t C,
                                int64_t M, int64_t R, T* dg) {
  const int64_t n = A * K;
  std::vector<int64_t> start(static_cast<std::size_t>(R + 1)), entries(static_cast<std::size_t>(n));
  row_entries(rows, n, R, start.data(), entries.data());
#pragma omp parallel for if (n * C * M > kParallelWork) schedule(static)
  for (int64_t r = 0; r < R; ++r) {
    T* out = dg + r * M;
    for (int64_t m = 0; m < M; ++m) out[m] = T(0);
    for (int64_t e = start[r]; e < start[r + 1]; ++e) {
      const int64_t j = entries[e];
      add_weighted_rows(em + j * C, dout + (j / K) * C * M, C, M, out);
    }
  }
}

void row_entries(const int64_t* rows, int64_t n, int64_t R, int64_t* start, int64_t* entries) {
  for (int64_t r = 0; r <= R; ++r) start[r] = 0;
  for (int64_t j = 0; j < n; ++j) ++start[rows[j] + 1];
  for (int64_t r = 0; r < R; ++r) start[r + 1] += start[r];
  std::vector<int64_t> next(start, start + R);
  for (int64_t j = 0; j < n; ++j) entries[next[rows[j]]++] = j;
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                               \
  template void gather_contract_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, int64_t, T*);  \
  template void gather_contract_em_grad_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, int64_t, \
                                               T*);                                                                \
  template void gather_contract_g_grad_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, int64_t,  \
                                              int64_t, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
