// Fused tanh-layer kernels (see tanh_layer_kernels.h).
#include "kernels/tanh_layer_kernels.h"

#include <cmath>

#if SAMPAN_HAVE_LIBMVEC_TANH
#include <immintrin.h>
extern "C" __m256d _ZGVdN4v_tanh(__m256d);  // glibc libmvec (x86-64, glibc >= 2.35)
#endif

namespace sampan::deepmd::kernels {

namespace {
// Below this many elements a parallel region costs more than it saves (and on a loaded machine
// a team of spinning threads costs far more).
constexpr int64_t kParallelElements = int64_t{1} << 16;

template <class T> void bias_tanh_row(const T* u, const T* b, int64_t cols, T* y) {
  for (int64_t c = 0; c < cols; ++c) y[c] = std::tanh(u[c] + b[c]);
}

#if SAMPAN_HAVE_LIBMVEC_TANH
// glibc's vector tanh (libmvec, AVX2, 4 doubles a call; at most 4 ulp from the exact value, as
// glibc documents for its vector functions): 5x the scalar std::tanh, which was a fifth of an
// inference step. Every element goes through the vector function (the row tail is padded), so
// a value does not depend on its column.
bool cpu_has_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2");
  return ok;
}

__attribute__((target("avx2"))) void bias_tanh_row_avx2(const double* u, const double* b, int64_t cols, double* y) {
  int64_t c = 0;
  for (; c + 4 <= cols; c += 4)
    _mm256_storeu_pd(y + c, _ZGVdN4v_tanh(_mm256_add_pd(_mm256_loadu_pd(u + c), _mm256_loadu_pd(b + c))));
  if (c < cols) {
    alignas(32) double tail[4] = {0, 0, 0, 0};
    for (int64_t k = c; k < cols; ++k) tail[k - c] = u[k] + b[k];
    _mm256_store_pd(tail, _ZGVdN4v_tanh(_mm256_load_pd(tail)));
    for (int64_t k = c; k < cols; ++k) y[k] = tail[k - c];
  }
}

template <> void bias_tanh_row<double>(const double* u, const double* b, int64_t cols, double* y) {
  if (cpu_has_avx2()) {
    bias_tanh_row_avx2(u, b, cols, y);
    return;
  }
  for (int64_t c = 0; c < cols; ++c) y[c] = std::tanh(u[c] + b[c]);
}
#endif

}  // namespace

template <class T> void bias_tanh_cpu(const T* u, const T* b, int64_t rows, int64_t cols, T* y) {
#pragma omp parallel for if (rows * cols > kParallelElements) schedule(static)
  for (int64_t r = 0; r < rows; ++r) bias_tanh_row(u + r * cols, b, cols, y + r * cols);
}

template <class T> void tanh_backward_cpu(const T* g, const T* y, int64_t n, T* out) {
#pragma omp parallel for simd if (n > kParallelElements) schedule(static)
  for (int64_t k = 0; k < n; ++k) out[k] = g[k] * (T(1) - y[k] * y[k]);
}

template <class T> void tanh_curvature_cpu(const T* g, const T* h, const T* y, int64_t n, T* out) {
#pragma omp parallel for simd if (n > kParallelElements) schedule(static)
  for (int64_t k = 0; k < n; ++k) out[k] = T(-2) * g[k] * h[k] * y[k];
}

template <class T> void tanh_backward_vjp_cpu(const T* g, const T* h, const T* y, int64_t n, T* dg, T* dy) {
#pragma omp parallel for simd if (n > kParallelElements) schedule(static)
  for (int64_t k = 0; k < n; ++k) {
    dg[k] = h[k] * (T(1) - y[k] * y[k]);
    dy[k] = T(-2) * g[k] * h[k] * y[k];
  }
}

template <class T> void add_tiled_cpu(const T* y, const T* x, int64_t rows, int64_t width, int64_t times, T* out) {
#pragma omp parallel for if (rows * width * times > kParallelElements) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * width;
    const T* yr = y + r * width * times;
    T* o = out + r * width * times;
    for (int64_t j = 0; j < times; ++j)
      for (int64_t c = 0; c < width; ++c) o[j * width + c] = yr[j * width + c] + xr[c];
  }
}

template <class T> void fold_columns_cpu(const T* g, int64_t rows, int64_t width, int64_t times, T* out) {
#pragma omp parallel for if (rows * width * times > kParallelElements) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* gr = g + r * width * times;
    T* o = out + r * width;
    for (int64_t c = 0; c < width; ++c) o[c] = gr[c];
    for (int64_t j = 1; j < times; ++j)
      for (int64_t c = 0; c < width; ++c) o[c] += gr[j * width + c];
  }
}

template <class T> void tile_columns_cpu(const T* x, int64_t rows, int64_t width, int64_t times, T* out) {
#pragma omp parallel for if (rows * width * times > kParallelElements) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * width;
    T* o = out + r * width * times;
    for (int64_t j = 0; j < times; ++j)
      for (int64_t c = 0; c < width; ++c) o[j * width + c] = xr[c];
  }
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                    \
  template void bias_tanh_cpu<T>(const T*, const T*, int64_t, int64_t, T*);            \
  template void tanh_backward_cpu<T>(const T*, const T*, int64_t, T*);                 \
  template void tanh_curvature_cpu<T>(const T*, const T*, const T*, int64_t, T*);      \
  template void tanh_backward_vjp_cpu<T>(const T*, const T*, const T*, int64_t, T*, T*); \
  template void add_tiled_cpu<T>(const T*, const T*, int64_t, int64_t, int64_t, T*);      \
  template void fold_columns_cpu<T>(const T*, int64_t, int64_t, int64_t, T*);           \
  template void tile_columns_cpu<T>(const T*, int64_t, int64_t, int64_t, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
