// sampan kernels: the fused gather-add-scatter of message passing,
//   out[s, :] = sum over the rows e with scatter[e] == s of (x[gather[e], :] + edge[e, :]),
// which is segment_sum(index_select(x, gather) + edge, scatter) without the [E, f] temporaries
// (the gathered rows and the messages). Plain functions over pointers and sizes; no Tensor.
//
// Parallel scheme and summation order are segment_sum_rows's (segment_kernels.h): a worker owns a
// range of output rows, streams the edges in their order and folds those of its rows, so every
// output element adds its messages in increasing edge order, whatever the thread count. That is
// also the order of the unfused composition (each message x + edge rounded first, then added), so
// the fused op gives the same bits as segment_sum(index_select(x, gather) + edge, scatter).
// The per-element fold is segment_fold.h's, shared with the CUDA twin (gather_scatter_kernels.cu).
#pragma once

#include <algorithm>
#include <cstdint>

#include "segment_fold.h"
#include "segment_kernels.h"

namespace sampan::kernels {

/// out [num_segments, f] = per-segment sum of the messages x[gather[e]] (+ edge[e] when edge is
/// not null) over the num_edges rows e; x is [*, f] contiguous, edge [num_edges, f]; every
/// gather index is a valid row of x and `g` counts the scatter ids (count_segments).
template <class T>
void gather_add_scatter_rows(const T* x, const int64_t* gather, const T* edge, const int64_t* scatter,
                             int64_t num_edges, int64_t f, const SegmentCounts& g, int64_t num_segments, T* out) {
  if (num_segments == 0) return;
  if (num_edges == 0) { std::fill(out, out + num_segments * f, T(0)); return; }
  for_each_segment_worker(g, num_segments, num_edges, f,
                          [&](int64_t s0, int64_t s1, int64_t c0, int64_t c1, int64_t r0, int64_t r1) {
    for (int64_t s = s0; s < s1; ++s)
      for (int64_t c = c0; c < c1; ++c) out[s * f + c] = T(0);
    for (int64_t e = r0; e < r1; ++e) {
      const int64_t s = scatter[e];
      if (s < s0 || s >= s1) continue;
      T* o = out + s * f;
      const T* xr = x + gather[e] * f;
      if (edge) {
        const T* er = edge + e * f;
        for (int64_t c = c0; c < c1; ++c) fold_segment_sum(o[c], gather_add_message(xr[c], er[c]));
      } else {
        for (int64_t c = c0; c < c1; ++c) fold_segment_sum(o[c], xr[c]);
      }
    }
  });
}

}  // namespace sampan::kernels
