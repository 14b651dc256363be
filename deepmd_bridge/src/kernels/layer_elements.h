// Per-element bodies of the CUDA twins of the se_e2_a layer ops (tanh_layer_ops.cpp,
// gather_contract_ops.cpp): element k of each op's output, computed as the CPU kernels
// (tanh_layer_kernels.cpp, gather_contract_kernels.cpp) compute it: the same expressions, every
// sum in the CPU's order. Written for host and device, so a CPU test
// (tests/cpp/deepmd_bridge/layer_elements_test.cpp) walks every element through them and
// requires the CPU ops' bits. Two differ from the CPU by rounding only: bias_tanh (the CPU's
// float64 tanh is glibc's vector tanh, the GPU's CUDA's) and gather_contract_em_grad (the CPU
// sums over m in SIMD lanes). All arrays row-major and contiguous.
#pragma once

#include <cmath>
#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::deepmd::kernels {

/// bias_tanh: y[k] = tanh(u[k] + b[k % cols]).
template <class T> SAMPAN_HOST_DEVICE inline T bias_tanh_at(const T* u, const T* b, int64_t cols, int64_t k) {
#if defined(__CUDA_ARCH__)
  return ::tanh(u[k] + b[k % cols]);
#else
  return std::tanh(u[k] + b[k % cols]);
#endif
}

/// tanh_backward: g (1 - y^2).
template <class T> SAMPAN_HOST_DEVICE inline T tanh_backward_at(T g, T y) { return g * (T(1) - y * y); }
/// tanh_curvature: -2 g h y.
template <class T> SAMPAN_HOST_DEVICE inline T tanh_curvature_at(T g, T h, T y) { return T(-2) * g * h * y; }

/// add_tiled: z[r, j*width + c] = y[r, j*width + c] + x[r, c], at k = r*width*times + j*width + c.
template <class T>
SAMPAN_HOST_DEVICE inline T add_tiled_at(const T* y, const T* x, int64_t width, int64_t times, int64_t k) {
  const int64_t r = k / (width * times), c = k % width;
  return y[k] + x[r * width + c];
}

/// fold_columns: out[r, c] = g[r, c] + g[r, width + c] + ... (j in order), at k = r*width + c.
template <class T> SAMPAN_HOST_DEVICE inline T fold_columns_at(const T* g, int64_t width, int64_t times, int64_t k) {
  const int64_t r = k / width, c = k % width;
  const T* row = g + r * width * times;
  T s = row[c];
  for (int64_t j = 1; j < times; ++j) s += row[j * width + c];
  return s;
}

/// tile_columns: out[r, j*width + c] = x[r, c], at k = r*width*times + j*width + c.
template <class T> SAMPAN_HOST_DEVICE inline T tile_columns_at(const T* x, int64_t width, int64_t times, int64_t k) {
  return x[(k / (width * times)) * width + k % width];
}

/// gather_contract: out[a, c, m] = sum_k em[a, k, c] g[rows[a*K + k], m] (k in order), at
/// i = (a*C + c)*M + m.
template <class T>
SAMPAN_HOST_DEVICE inline T gather_contract_at(const T* em, const T* g, const int64_t* rows, int64_t K, int64_t C,
                                               int64_t M, int64_t i) {
  const int64_t m = i % M, c = (i / M) % C, a = i / (C * M);
  T acc = T(0);
  for (int64_t k = 0; k < K; ++k) acc += em[(a * K + k) * C + c] * g[rows[a * K + k] * M + m];
  return acc;
}

/// gather_contract_em_grad: dem[a, k, c] = sum_m dout[a, c, m] g[rows[a*K + k], m] (m in order),
/// at i = (a*K + k)*C + c.
template <class T>
SAMPAN_HOST_DEVICE inline T gather_contract_em_grad_at(const T* dout, const T* g, const int64_t* rows, int64_t K,
                                                       int64_t C, int64_t M, int64_t i) {
  const int64_t c = i % C, ak = i / C, a = ak / K;
  const T* d = dout + (a * C + c) * M;
  const T* row = g + rows[ak] * M;
  T s = T(0);
  for (int64_t m = 0; m < M; ++m) s += d[m] * row[m];
  return s;
}

/// gather_contract_g_grad: dg[r, m] = sum over the (a, k) naming row r, in increasing a*K + k
/// (entries[start[r]] .. entries[start[r + 1] - 1], a counting sort of rows), of
/// sum_c em[a, k, c] dout[a, c, m] (c in order, added once), at i = r*M + m.
template <class T>
SAMPAN_HOST_DEVICE inline T gather_contract_g_grad_at(const T* em, const T* dout, const int64_t* start,
                                                      const int64_t* entries, int64_t K, int64_t C, int64_t M,
                                                      int64_t i) {
  const int64_t r = i / M, m = i % M;
  T out = T(0);
  for (int64_t e = start[r]; e < start[r + 1]; ++e) {
    const int64_t j = entries[e];
    const T* ej = em + j * C;
    const T* d = dout + (j / K) * C * M;
    T s = ej[0] * d[m];
    for (int64_t c = 1; c < C; ++c) s += ej[c] * d[c * M + m];
    out += s;
  }
  return out;
}

}  // namespace sampan::deepmd::kernels
