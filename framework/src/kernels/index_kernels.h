// sampan kernels: gathers and scatters along one axis. Plain functions over pointers, sizes and
// element strides; no Tensor. Indices arrive already checked and wrapped into [0, n).
//
// Layout convention: a contiguous array seen as [outer, n, inner] around the indexed axis.
// Scatters that accumulate (index_add, scatter_add) are parallel only over positions that can
// never collide (different outer/inner coordinates), and each position folds its contributions
// in index order: results are race-free and identical for any thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "gather_scatter_element.h"
#include "index_select_row.h"
#include "strided_loop.h"

namespace sampan::kernels {

/// out[o, j, :] = x[o, index[j], :] for j < m (x is [outer, n, inner], out [outer, m, inner];
/// `itemsize` bytes per element: a byte copy serves every dtype).
inline void index_select_rows(const void* x, int64_t outer, int64_t n, int64_t inner, size_t itemsize,
                              const int64_t* index, int64_t m, void* out) {
  const size_t row = static_cast<size_t>(inner) * itemsize;
  const auto* xb = static_cast<const unsigned char*>(x);
  auto* ob = static_cast<unsigned char*>(out);
  const int64_t rows = outer * m;
#pragma omp parallel for if (rows * inner > kParallelGrain) schedule(static)
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(ob + static_cast<size_t>(r) * row, xb + static_cast<size_t>(index_select_source_row(r, n, m, index)) * row, row);
}

/// Splits the inner extent into blocks so that (outer x blocks) tasks keep every thread busy.
inline int64_t column_block(int64_t outer, int64_t inner) {
  if (outer >= 64 || inner <= 256) return std::max<int64_t>(inner, 1);
  return 256;
}

/// out[o, index[j], i] op= src[o, j, i] (out is [outer, n, inner], src [outer, m, inner]);
/// `combine(dst, value)` updates dst. Parallel over (outer, column block); j runs in order, so
/// for index_copy the last duplicate wins and for index_add the sum order is fixed.
template <class T, class Combine>
void index_update_rows(T* out, int64_t outer, int64_t n, int64_t inner, const int64_t* index, int64_t m,
                       const T* src, Combine combine) {
  const int64_t block = column_block(outer, inner);
  const int64_t nblocks = inner == 0 ? 0 : (inner + block - 1) / block;
  const int64_t tasks = outer * nblocks;
#pragma omp parallel for if (outer * m * inner > kParallelGrain) schedule(static)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t o = t / nblocks, i0 = (t % nblocks) * block, i1 = std::min(inner, i0 + block);
    for (int64_t j = 0; j < m; ++j) {
      T* dst = out + (o * n + index[j]) * inner;
      const T* s = src + (o * m + j) * inner;
      for (int64_t i = i0; i < i1; ++i) combine(dst[i], s[i]);
    }
  }
}

/// The index of a gather/scatter along an axis collapsed to [A, m, B] (A = positions before the
/// axis, B = after). `off_a[a] + off_b[b]` is the element offset of (a, ., b) in the data array,
/// whose stride along the axis is `axis_stride`.
struct AxisIndexLayout {
  int64_t a, m, b;
  const int64_t* off_a;
  const int64_t* off_b;
  int64_t axis_stride;
};

/// out[a, j, b] = x[off_a[a] + off_b[b] + index[a, j, b] * axis_stride] (out contiguous [A, m, B]);
/// the offset is axis_element_offset, as in the CUDA twin.
template <class T> void gather_axis(const T* x, const AxisIndexLayout& L, const int64_t* index, T* out) {
  const int64_t rows = L.a * L.m;
#pragma omp parallel for if (rows * L.b > kParallelGrain) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t a = r / L.m;
    const int64_t* idx = index + r * L.b;
    T* o = out + r * L.b;
    const int64_t off_a = L.off_a[a];
    for (int64_t b = 0; b < L.b; ++b) o[b] = x[axis_element_offset(off_a, L.off_b[b], idx[b], L.axis_stride)];
  }
}

/// out[off_a[a] + off_b[b] + index[a, j, b] * axis_stride] += src[a, j, b]. Parallel over
/// (a, column block of b); j in order, so the sum order is fixed (the CUDA twin's order too).
template <class T> void scatter_add_axis(T* out, const AxisIndexLayout& L, const int64_t* index, const T* src) {
  const int64_t block = column_block(L.a, L.b);
  const int64_t nblocks = L.b == 0 ? 0 : (L.b + block - 1) / block;
  const int64_t tasks = L.a * nblocks;
#pragma omp parallel for if (L.a * L.m * L.b > kParallelGrain) schedule(static)
  for (int64_t t = 0; t < tasks; ++t) {
    const int64_t a = t / nblocks, b0 = (t % nblocks) * block, b1 = std::min(L.b, b0 + block);
    const int64_t off_a = L.off_a[a];
    for (int64_t j = 0; j < L.m; ++j) {
      const int64_t row = (a * L.m + j) * L.b;
      for (int64_t b = b0; b < b1; ++b)
        fold_segment_sum(out[axis_element_offset(off_a, L.off_b[b], index[row + b], L.axis_stride)], src[row + b]);
    }
  }
}

}  // namespace sampan::kernels
