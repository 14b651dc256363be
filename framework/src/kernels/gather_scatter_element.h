// The per-element bodies of gather, scatter_add and index_copy, shared by the CPU loops
// (index_kernels.h) and their CUDA twins (index_kernels.cu), and the host-side plan of the GPU
// scatters: which output element each index element lands on, grouped by output element in
// increasing index position (a stable counting sort, rows_by_segment.h). A GPU thread per output
// element then folds its contributions in the order the CPU loop folds them: no atomics, the same
// bits. The CPU tests run these same bodies over the same plan (tests/cpp/framework/
// gather_scatter_plan_test.cpp), so what only a GPU would run is still checked here.
#pragma once

#include <cstdint>
#include <vector>

#include "sampan/host_device.h"
#include "rows_by_segment.h"
#include "segment_fold.h"

namespace sampan::kernels {

/// Offset in the data array of element (a, j, b) of a gather or scatter along an axis: the
/// offsets of a (before the axis) and b (after it) plus the index value times the axis's stride.
SAMPAN_HOST_DEVICE inline int64_t axis_element_offset(int64_t off_a, int64_t off_b, int64_t index, int64_t axis_stride) {
  return off_a + off_b + index * axis_stride;
}

/// The data offset that element e of an index collapsed to [A, m, B] (row-major) reads
/// (gather) or adds to (scatter_add).
SAMPAN_HOST_DEVICE inline int64_t axis_element_target(int64_t e, int64_t m, int64_t b, const int64_t* off_a,
                                                      const int64_t* off_b, const int64_t* index, int64_t axis_stride) {
  return axis_element_offset(off_a[e / (m * b)], off_b[e % b], index[e], axis_stride);
}

/// index_copy's fold: a later write replaces an earlier one, so folding the writes to a slot in
/// increasing index position leaves the last duplicate (NumPy's and the CPU loop's rule).
template <class T> SAMPAN_HOST_DEVICE inline void fold_index_copy(T& dst, const T& v) { dst = v; }

/// scatter_add on one output element t: its value (x's, copied in first) plus the src elements
/// that land on t, in increasing index position (order[offsets[t] .. offsets[t+1])).
template <class T>
SAMPAN_HOST_DEVICE inline T scatter_add_element(T acc, const T* src, const int64_t* offsets, const int64_t* order,
                                                int64_t t) {
  for (int64_t k = offsets[t]; k < offsets[t + 1]; ++k) fold_segment_sum(acc, src[order[k]]);
  return acc;
}

/// index_copy on byte q of out [outer, n, row_bytes]: x's byte, or the byte of the last src row
/// [outer, m, row_bytes] whose index is q's position along the axis. Byte copies serve every dtype.
SAMPAN_HOST_DEVICE inline unsigned char index_copy_byte(const unsigned char* x, const unsigned char* src, int64_t n,
                                                        int64_t m, int64_t row_bytes, const int64_t* offsets,
                                                        const int64_t* order, int64_t q) {
  const int64_t r = q / row_bytes, k = q % row_bytes, o = r / n, t = r % n;
  unsigned char v = x[q];
  for (int64_t p = offsets[t]; p < offsets[t + 1]; ++p) fold_index_copy(v, src[(o * m + order[p]) * row_bytes + k]);
  return v;
}

/// The GPU scatter_add's plan: the output element each of the a*m*b index elements adds to,
/// grouped by output element (out_numel of them) in increasing index position.
inline RowsByBucket scatter_add_plan(int64_t a, int64_t m, int64_t b, const int64_t* off_a, const int64_t* off_b,
                                     const int64_t* index, int64_t axis_stride, int64_t out_numel) {
  const int64_t total = a * m * b;
  std::vector<int64_t> target(static_cast<size_t>(total));
  for (int64_t e = 0; e < total; ++e) target[e] = axis_element_target(e, m, b, off_a, off_b, index, axis_stride);
  return rows_by_bucket(target.data(), total, out_numel);
}

}  // namespace sampan::kernels
