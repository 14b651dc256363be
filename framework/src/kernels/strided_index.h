// Where element k of a strided, broadcast elementwise op lives in each operand: the addressing
// of the CUDA elementwise kernels (elementwise_kernels.cu), written once for host and device so
// that a CPU test runs it (tests/cpp/framework/strided_layout_test.cpp walks every element of
// broadcast, permuted and sliced operands through it and compares with the CPU op's result).
#pragma once

#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::kernels {

constexpr int kMaxStridedDims = 8;

/// The iteration shape and each of N operands' element strides over it (0 along a broadcast
/// dimension), passed by value to a kernel. Operand 0 is the output.
template <int N> struct StridedLayout {
  int ndim = 0;
  bool dense = false;  // every operand contiguous with the iteration shape: element k is at k
  int64_t shape[kMaxStridedDims] = {};
  int64_t strides[N][kMaxStridedDims] = {};
};

/// off[i] = position of element k (row-major over the shape) in operand i.
template <int N>
SAMPAN_HOST_DEVICE inline void strided_offsets(const StridedLayout<N>& layout, int64_t k, int64_t* off) {
  if (layout.dense) {
    for (int i = 0; i < N; ++i) off[i] = k;
    return;
  }
  for (int i = 0; i < N; ++i) off[i] = 0;
  for (int d = layout.ndim - 1; d >= 0; --d) {
    const int64_t q = k / layout.shape[d];
    const int64_t r = k - q * layout.shape[d];
    k = q;
    for (int i = 0; i < N; ++i) off[i] += r * layout.strides[i][d];
  }
}

/// out = f(x) at element k: one thread's work in the CUDA unary kernel.
template <class F, class T>
SAMPAN_HOST_DEVICE inline void unary_at(const StridedLayout<2>& layout, int64_t k, T* out, const T* x, F f) {
  int64_t off[2];
  strided_offsets(layout, k, off);
  out[off[0]] = f(x[off[1]]);
}

/// out = f(x, y) at element k: one thread's work in the CUDA binary kernel (Out: T, or bool for
/// the comparisons).
template <class F, class T, class Out>
SAMPAN_HOST_DEVICE inline void binary_at(const StridedLayout<3>& layout, int64_t k, Out* out, const T* x, const T* y,
                                         F f) {
  int64_t off[3];
  strided_offsets(layout, k, off);
  out[off[0]] = f(x[off[1]], y[off[2]]);
}

/// out = cond ? x : y at element k: one thread's work in core::where's CUDA kernel.
template <class T>
SAMPAN_HOST_DEVICE inline void where_at(const StridedLayout<4>& layout, int64_t k, T* out, const bool* cond, const T* x,
                                        const T* y) {
  int64_t off[4];
  strided_offsets(layout, k, off);
  out[off[0]] = cond[off[1]] ? x[off[2]] : y[off[3]];
}

}  // namespace sampan::kernels
