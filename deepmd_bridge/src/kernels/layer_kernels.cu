// The CUDA twins of the se_e2_a layer kernels: one grid-stride kernel per op, each thread one
// output element through layer_elements.h (the CPU's arithmetic and order). Deterministic: no
// atomics.
#include "kernels/each_cuda.cuh"
#include "kernels/layer_elements.h"
#include "kernels/layer_kernels_cuda.h"

namespace sampan::deepmd::kernels {

template <class T> void bias_tanh_cuda(const T* u, const T* b, int64_t rows, int64_t cols, T* y) {
  each(rows * cols, "bias_tanh_cuda", [=] __device__(int64_t k) { y[k] = bias_tanh_at(u, b, cols, k); });
}
template <class T> void tanh_backward_cuda(const T* g, const T* y, int64_t n, T* out) {
  each(n, "tanh_backward_cuda", [=] __device__(int64_t k) { out[k] = tanh_backward_at(g[k], y[k]); });
}
template <class T> void tanh_curvature_cuda(const T* g, const T* h, const T* y, int64_t n, T* out) {
  each(n, "tanh_curvature_cuda", [=] __device__(int64_t k) { out[k] = tanh_curvature_at(g[k], h[k], y[k]); });
}
template <class T> void tanh_backward_vjp_cuda(const T* g, const T* h, const T* y, int64_t n, T* dg, T* dy) {
  each(n, "tanh_backward_vjp_cuda", [=] __device__(int64_t k) {
    const T gk = g[k], hk = h[k], yk = y[k];  // read before writing: dg or dy may alias an input
    dg[k] = tanh_backward_at(hk, yk);
    dy[k] = tanh_curvature_at(gk, hk, yk);
  });
}
template <class T> void add_tiled_cuda(const T* y, const T* x, int64_t rows, int64_t width, int64_t times, T* out) {
  each(rows * width * times, "add_tiled_cuda",
       [=] __device__(int64_t k) { out[k] = add_tiled_at(y, x, width, times, k); });
}
template <class T> void fold_columns_cuda(const T* g, int64_t rows, int64_t width, int64_t times, T* out) {
  each(rows * width, "fold_columns_cuda", [=] __device__(int64_t k) { out[k] = fold_columns_at(g, width, times, k); });
}
template <class T> void tile_columns_cuda(const T* x, int64_t rows, int64_t width, int64_t times, T* out) {
  each(rows * width * times, "tile_columns_cuda",
       [=] __device__(int64_t k) { out[k] = tile_columns_at(x, width, times, k); });
}
template <class T>
void gather_contract_cuda(const T* em, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C, int64_t M,
                          T* out) {
  each(A * C * M, "gather_contract_cuda",
       [=] __device__(int64_t i) { out[i] = gather_contract_at(em, g, rows, K, C, M, i); });
}
template <class T>
void gather_contract_em_grad_cuda(const T* dout, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C,
                                  int64_t M, T* dem) {
  each(A * K * C, "gather_contract_em_grad_cuda",
       [=] __device__(int64_t i) { dem[i] = gather_contract_em_grad_at(dout, g, rows, K, C, M, i); });
}
template <class T>
void gather_contract_g_grad_cuda(const T* em, const T* dout, const int64_t* start, const int64_t* entries, int64_t K,
                                 int64_t C, int64_t M, int64_t R, T* dg) {
  each(R * M, "gather_contract_g_grad_cuda",
       [=] __device__(int64_t i) { dg[i] = gather_contract_g_grad_at(em, dout, start, entries, K, C, M, i); });
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                              \
  template void bias_tanh_cuda<T>(const T*, const T*, int64_t, int64_t, T*);                                     \
  template void tanh_backward_cuda<T>(const T*, const T*, int64_t, T*);                                          \
  template void tanh_curvature_cuda<T>(const T*, const T*, const T*, int64_t, T*);                               \
  template void tanh_backward_vjp_cuda<T>(const T*, const T*, const T*, int64_t, T*, T*);                        \
  template void add_tiled_cuda<T>(const T*, const T*, int64_t, int64_t, int64_t, T*);                            \
  template void fold_columns_cuda<T>(const T*, int64_t, int64_t, int64_t, T*);                                   \
  template void tile_columns_cuda<T>(const T*, int64_t, int64_t, int64_t, T*);                                   \
  template void gather_contract_cuda<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, int64_t, T*); \
  template void gather_contract_em_grad_cuda<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t,     \
                                                int64_t, T*);                                                    \
  template void gather_contract_g_grad_cuda<T>(const T*, const T*, const int64_t*, const int64_t*, int64_t, int64_t, \
                                               int64_t, int64_t, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
