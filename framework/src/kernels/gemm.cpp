// sampan kernels: gemm through the BLAS (named through blas_api.h), with a loop kernel for integers
// (the BLAS has none) and for builds without <cblas.h>.
#include "gemm.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <string>
#include <type_traits>
#include <vector>

#include "sampan/error.h"
#include "sgemm_onednn.h"
#include "strided_loop.h"

#include "blas_api.h"

#define SAMPAN_GEMM_BLAS SAMPAN_HAVE_BLAS

namespace sampan::kernels {

namespace {

// The loop kernel: i-p-j order so the innermost loop walks rows of B and C contiguously when B is
// not transposed. Parallel over rows of C; each row is written by one thread (deterministic).
template <class T>
void gemm_loop(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
               const T* b, int64_t ldb, T* c, int64_t ldc) {
#pragma omp parallel for if (m * n * k > kParallelGrain) schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    T* ci = c + i * ldc;
    for (int64_t j = 0; j < n; ++j) ci[j] = T(0);
    for (int64_t p = 0; p < k; ++p) {
      const T aip = ta ? a[p * lda + i] : a[i * lda + p];
      if (tb)
        for (int64_t j = 0; j < n; ++j) ci[j] += aip * b[j * ldb + p];
      else
        for (int64_t j = 0; j < n; ++j) ci[j] += aip * b[p * ldb + j];
    }
  }
}

// Zero-sized inner dimension: the product is all zeros (and a BLAS may reject ld = 0).
template <class T> bool trivial(int64_t m, int64_t n, int64_t k, T* c, int64_t ldc) {
  if (m == 0 || n == 0) return true;
  if (k == 0) {
    for (int64_t i = 0; i < m; ++i) std::fill(c + i * ldc, c + i * ldc + n, T(0));
    return true;
  }
  return false;
}

// C = A B (neither transposed) with a short inner dimension, k <= kSmallK: each row of C is k
// scaled rows of B, summed in p order, written once. At such k a BLAS call costs more in packing
// and dispatch than the product: se_e2_a's [nnei, 4] x [4, M] products (an environment matrix
// times the gradient of T_i, once per centre atom: 192 calls of 92 x 100 x 4 per frame of water)
// ran at a third of the speed of writing C. K is a template argument so that the p loop unrolls
// and the j loop (contiguous in B and C) vectorizes.
constexpr int64_t kSmallK = 8;

template <class T, int K>
inline __attribute__((always_inline)) void small_k_rows(int64_t m, int64_t n, const T* a, int64_t lda, const T* b,
                                                         int64_t ldb, T* c, int64_t ldc) {
  for (int64_t i = 0; i < m; ++i) {
    const T* ai = a + i * lda;
    T* ci = c + i * ldc;
    T coef[K];
    for (int p = 0; p < K; ++p) coef[p] = ai[p];
    for (int64_t j = 0; j < n; ++j) {
      T sum = coef[0] * b[j];
      for (int p = 1; p < K; ++p) sum += coef[p] * b[p * ldb + j];
      ci[j] = sum;
    }
  }
}

template <class T>
inline __attribute__((always_inline)) void small_k_dispatch(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                                                             const T* b, int64_t ldb, T* c, int64_t ldc) {
  switch (k) {
    case 1: return small_k_rows<T, 1>(m, n, a, lda, b, ldb, c, ldc);
    case 2: return small_k_rows<T, 2>(m, n, a, lda, b, ldb, c, ldc);
    case 3: return small_k_rows<T, 3>(m, n, a, lda, b, ldb, c, ldc);
    case 4: return small_k_rows<T, 4>(m, n, a, lda, b, ldb, c, ldc);
    case 5: return small_k_rows<T, 5>(m, n, a, lda, b, ldb, c, ldc);
    case 6: return small_k_rows<T, 6>(m, n, a, lda, b, ldb, c, ldc);
    case 7: return small_k_rows<T, 7>(m, n, a, lda, b, ldb, c, ldc);
    default: return small_k_rows<T, 8>(m, n, a, lda, b, ldb, c, ldc);
  }
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same loops compiled for AVX2 + FMA (4 doubles a vector), chosen at run time.
template <class T>
__attribute__((target("avx2,fma"))) void small_k_avx2(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
                                                       const T* b, int64_t ldb, T* c, int64_t ldc) {
  small_k_dispatch(m, n, k, a, lda, b, ldb, c, ldc);
}
bool cpu_has_avx2_fma() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}
#endif

// Blocks of rows in parallel (each row of C written by one thread: deterministic).
template <class T>
void gemm_small_k(int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c,
                  int64_t ldc) {
  constexpr int64_t kRows = 64;
  const int64_t blocks = (m + kRows - 1) / kRows;
#pragma omp parallel for if (m * n * k > 8 * kParallelGrain) schedule(static)
  for (int64_t blk = 0; blk < blocks; ++blk) {
    const int64_t i0 = blk * kRows, rows = std::min(kRows, m - i0);
    const T* ab = a + i0 * lda;
    T* cb = c + i0 * ldc;
#if defined(__x86_64__) && defined(__GNUC__)
    if (cpu_has_avx2_fma()) {
      small_k_avx2(rows, n, k, ab, lda, b, ldb, cb, ldc);
      continue;
    }
#endif
    small_k_dispatch(rows, n, k, ab, lda, b, ldb, cb, ldc);
  }
}

// The short-k product where it applies (real types, no transposes); false otherwise.
template <class T>
bool small_k_product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,
                     int64_t ldb, T* c, int64_t ldc) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!ta && !tb && k <= kSmallK) {
      gemm_small_k(m, n, k, a, lda, b, ldb, c, ldc);
      return true;
    }
  }
  return false;
}

#if SAMPAN_GEMM_BLAS
// cblas takes 32-bit sizes (int) in the LP64 BLAS builds Debian ships.
int blas_int(int64_t v, const char* what) {
  SAMPAN_CHECK(v <= INT_MAX, ValueError, "matmul: ", what, " = ", v,
               " exceeds the BLAS's 32-bit index range");
  return static_cast<int>(v);
}
CBLAS_TRANSPOSE flag(bool t) { return t ? CblasTrans : CblasNoTrans; }
// The smallest legal leading dimension is 1, even for a single column.
int64_t ld(int64_t v) { return std::max<int64_t>(v, 1); }
#endif

#if SAMPAN_GEMM_BLAS && SAMPAN_HAVE_OPENBLAS
// Tall products with a small right factor, C [m, n] = A [m, k] B [k, n] with m ~ 10^4 and
// k, n <= 128 (the se_e2_a embedding layers: [rows, 25] x [25, 50], [rows, 50] x [50, 100] and
// their backward x W^T), go to the BLAS as panels of rows small enough (panel * n * k <= 10^6)
// for OpenBLAS's small-matrix kernels on AVX-512 cores (SKYLAKEX and the cores that reuse its
// kernels). Those write C directly, where the blocked path first zeroes all of C (beta = 0) and
// packs A: one pass over an output of ~10 MB that then has to be read back. Measured with one
// thread (Debian's OpenBLAS 0.3.21, [11500, 50] x [50, 100]): 25-40% less time per product.
// Only with one BLAS thread (panels this small are not split over threads); a transposed B
// (x W^T) is copied to its [k, n] layout first (at most 128 x 128).
constexpr int64_t kPanelWork = 1000000;
constexpr int64_t kPanelMaxInner = 128;

bool openblas_has_small_kernels() {
  static const bool ok = [] {
    std::string core = blas_api::describe();  // "... core SkylakeX"
    for (char& ch : core) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const size_t at = core.rfind("core ");
    if (at == std::string::npos) return false;
    core = core.substr(at + 5);
    return core == "skylakex" || core == "cooperlake" || core == "sapphirerapids";
  }();
  return ok;
}

template <class T, class Gemm>
bool row_panels(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
                T* c, int64_t ldc, Gemm gemm_call) {
  if (ta || n > kPanelMaxInner || k > kPanelMaxInner) return false;
  const int64_t rows = kPanelWork / (n * k) / 8 * 8;
  if (rows < 16 || m < 2 * rows) return false;
  if (blas_api::get_num_threads() != 1 || !openblas_has_small_kernels()) return false;
  std::vector<T> b_copy;
  if (tb) {  // B is stored transposed: b[j * ldb + p] is element (p, j)
    b_copy.resize(static_cast<size_t>(k * n));
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) b_copy[p * n + j] = b[j * ldb + p];
    b = b_copy.data();
    ldb = n;
  }
  for (int64_t i0 = 0; i0 < m; i0 += rows)
    gemm_call(std::min(rows, m - i0), a + i0 * lda, c + i0 * ldc, b, ldb);
  return true;
}
#endif

}  // namespace

bool gemm_uses_blas() { return SAMPAN_GEMM_BLAS != 0; }

void set_blas_num_threads(int n) {
  // OpenBLAS's pthread build keeps its own pool, sized to every core: without this a
  // "1-thread" run still multiplies on all cores, and on a busy machine the spinning helper
  // threads make a GEMM slower than on one.
  blas_api::set_num_threads(n);
}

int get_blas_num_threads() { return blas_api::get_num_threads(); }

std::string blas_library() {
  std::string name = blas_api::describe();
  if (sgemm_onednn_available())
    name += "; float32 products of m*n*k >= 2^22 through " + sgemm_onednn_library() + "'s sgemm";
  return name;
}

#if SAMPAN_GEMM_BLAS
#if SAMPAN_HAVE_OPENBLAS
// The row-panel path for the real types (see row_panels); complex types go to the BLAS whole.
#define SAMPAN_ROW_PANELS(T, CALL)                                                                  \
  {                                                                                                 \
    auto panel = [&](int64_t rows, const T* ap, T* cp, const T* bp, int64_t ldbp) {                 \
      CALL(CblasRowMajor, CblasNoTrans, CblasNoTrans, blas_int(rows, "m"), blas_int(n, "n"),         \
           blas_int(k, "k"), T(1), ap, blas_int(ld(lda), "lda"), bp, blas_int(ld(ldbp), "ldb"), T(0), \
           cp, blas_int(ld(ldc), "ldc"));                                                           \
    };                                                                                              \
    if (row_panels<T>(ta, tb, m, n, k, a, lda, b, ldb, c, ldc, panel)) return;                      \
  }
#else
#define SAMPAN_ROW_PANELS(T, CALL)
#endif
#define SAMPAN_NO_ROW_PANELS(T, CALL)
// float32 products large enough go to oneDNN's sgemm where the build has it (sgemm_onednn.h).
#define SAMPAN_ONEDNN_FIRST                                                                         \
  if (sgemm_onednn_pays(m, n, k) && sgemm_onednn(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return;
#define SAMPAN_BLAS_ONLY
#define SAMPAN_BLAS_GEMM(NAME, T, CALL, ALPHA, BETA, PTR, PANELS, LIBRARY)                            \
  void NAME(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,  \
            int64_t ldb, T* c, int64_t ldc) {                                                       \
    if (trivial(m, n, k, c, ldc)) return;                                                           \
    if (small_k_product(ta, tb, m, n, k, a, lda, b, ldb, c, ldc)) return;                           \
    PANELS(T, CALL)                                                                                 \
    LIBRARY                                                                                         \
    const T alpha = ALPHA, beta = BETA;                                                             \
    CALL(CblasRowMajor, flag(ta), flag(tb), blas_int(m, "m"), blas_int(n, "n"), blas_int(k, "k"),    \
         PTR(alpha), a, blas_int(ld(lda), "lda"), b, blas_int(ld(ldb), "ldb"), PTR(beta), c,         \
         blas_int(ld(ldc), "ldc"));                                                                 \
  }
#define SAMPAN_BY_VALUE(x) x
#define SAMPAN_BY_POINTER(x) &x
SAMPAN_BLAS_GEMM(gemm, float, SAMPAN_CBLAS(sgemm), 1.0f, 0.0f, SAMPAN_BY_VALUE, SAMPAN_ROW_PANELS, SAMPAN_ONEDNN_FIRST)
SAMPAN_BLAS_GEMM(gemm_blas_only, float, SAMPAN_CBLAS(sgemm), 1.0f, 0.0f, SAMPAN_BY_VALUE, SAMPAN_ROW_PANELS,
                 SAMPAN_BLAS_ONLY)
SAMPAN_BLAS_GEMM(gemm, double, SAMPAN_CBLAS(dgemm), 1.0, 0.0, SAMPAN_BY_VALUE, SAMPAN_ROW_PANELS, SAMPAN_BLAS_ONLY)
SAMPAN_BLAS_GEMM(gemm, complex64, SAMPAN_CBLAS(cgemm), complex64(1), complex64(0), SAMPAN_BY_POINTER,
                 SAMPAN_NO_ROW_PANELS, SAMPAN_BLAS_ONLY)
SAMPAN_BLAS_GEMM(gemm, complex128, SAMPAN_CBLAS(zgemm), complex128(1), complex128(0), SAMPAN_BY_POINTER,
                 SAMPAN_NO_ROW_PANELS, SAMPAN_BLAS_ONLY)
#undef SAMPAN_BLAS_GEMM
#undef SAMPAN_ONEDNN_FIRST
#undef SAMPAN_BLAS_ONLY
#undef SAMPAN_ROW_PANELS
#undef SAMPAN_NO_ROW_PANELS
#undef SAMPAN_BY_VALUE
#undef SAMPAN_BY_POINTER
#else
#define SAMPAN_LOOP_GEMM(T)                                                                          \
  void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b,  \
            int64_t ldb, T* c, int64_t ldc) {                                                       \
    if (!trivial(m, n, k, c, ldc)) gemm_loop(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);              \
  }
SAMPAN_LOOP_GEMM(float)
SAMPAN_LOOP_GEMM(double)
void gemm_blas_only(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                    int64_t ldb, float* c, int64_t ldc) {
  if (!trivial(m, n, k, c, ldc)) gemm_loop(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}
SAMPAN_LOOP_GEMM(complex64)
SAMPAN_LOOP_GEMM(complex128)
#undef SAMPAN_LOOP_GEMM
#endif

void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int32_t* a, int64_t lda,
          const int32_t* b, int64_t ldb, int32_t* c, int64_t ldc) {
  if (!trivial(m, n, k, c, ldc)) gemm_loop(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}
void gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const int64_t* a, int64_t lda,
          const int64_t* b, int64_t ldb, int64_t* c, int64_t ldc) {
  if (!trivial(m, n, k, c, ldc)) gemm_loop(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace sampan::kernels
