// CUDA twins of the se_e2_a layer kernels (tanh_layer_kernels.h, gather_contract_kernels.h), one
// thread per output element over the bodies of layer_elements.h (defined in layer_kernels.cu,
// compiled only where nvcc exists: SAMPAN_CUDA_KERNELS). Device pointers, the CPU kernels'
// arguments; errors leave as std::runtime_error. T: float or double.
#pragma once

#include <cstdint>

namespace sampan::deepmd::kernels {

template <class T> void bias_tanh_cuda(const T* u, const T* b, int64_t rows, int64_t cols, T* y);
template <class T> void tanh_backward_cuda(const T* g, const T* y, int64_t n, T* out);
template <class T> void tanh_curvature_cuda(const T* g, const T* h, const T* y, int64_t n, T* out);
template <class T> void tanh_backward_vjp_cuda(const T* g, const T* h, const T* y, int64_t n, T* dg, T* dy);
template <class T> void add_tiled_cuda(const T* y, const T* x, int64_t rows, int64_t width, int64_t times, T* out);
template <class T> void fold_columns_cuda(const T* g, int64_t rows, int64_t width, int64_t times, T* out);
template <class T> void tile_columns_cuda(const T* x, int64_t rows, int64_t width, int64_t times, T* out);
template <class T>
void gather_contract_cuda(const T* em, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C, int64_t M,
                          T* out);
template <class T>
void gather_contract_em_grad_cuda(const T* dout, const T* g, const int64_t* rows, int64_t A, int64_t K, int64_t C,
                                  int64_t M, T* dem);
/// start [R + 1], entries [A*K]: row_entries' counting sort of rows (gather_contract_kernels.h).
template <class T>
void gather_contract_g_grad_cuda(const T* em, const T* dout, const int64_t* start, const int64_t* entries, int64_t K,
                                 int64_t C, int64_t M, int64_t R, T* dg);

}  // namespace sampan::deepmd::kernels
