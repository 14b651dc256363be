// Fused tanh-layer kernels (see tanh_layer_kernels.h).
#include "kernels/tanh_layer_kernels.h"

#include <cmath>

namespace sampan::deepmd::kernels {

namespace {
// Below this many elements a parallel region costs more than it saves (and on a loaded machine
// a team of spinning threads costs far more).
constexpr int64_t kParallelElements = int64_t{1} << 16;
}  // namespace

template <class T> void bias_tanh_cpu(const T* u, const T* b, int64_t rows, int64_t cols, T* y) {
#pragma omp parallel for if (rows * cols > kParallelElements) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const T* ur = u + r * cols;
    T* yr = y + r * cols;
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::tanh(ur[c] + b[c]);
  }
}

template <class T> void tanh_backward_cpu(const T* g, const T* y, int64_t n, T* out) {
#pragma omp parallel for simd if (n > kParallelElements) schedule(static)
  for (int64_t k = 0; k < n; ++k) out[k] = g[k] * (T(1) - y[k] * y[k]);
}

template <class T> void tanh_curvature_cpu(const T* g, const T* h, const T* y, int64_t n, T* out) {
#pragma omp parallel for simd if (n > kParallelElements) schedule(static)
  for (int64_t k = 0; k < n; ++k) out[k] = T(-2) * g[k] * h[k] * y[k];
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
  template void add_tiled_cpu<T>(const T*, const T*, int64_t, int64_t, int64_t, T*);      \
  template void fold_columns_cpu<T>(const T*, int64_t, int64_t, int64_t, T*);           \
  template void tile_columns_cpu<T>(const T*, int64_t, int64_t, int64_t, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
