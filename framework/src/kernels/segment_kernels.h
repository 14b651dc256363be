// sampan kernels: segment reductions, the hot ops of message passing (GNN aggregation over the
// edges of each node). Plain functions over pointers and sizes; no Tensor.
//
// Layout: data is contiguous [n, f] (row r belongs to segment ids[r]); out is [num_segments, f].
//
// Parallel scheme: each worker owns a range of segments (balanced by row count) and, when there
// are fewer segments than workers, a block of columns. It streams through the rows in their
// original order and folds only the rows of its own segments. So every output element is folded
// by exactly one worker, in increasing row order: no atomics, no races, and bit-identical results
// for any thread count, sorted or unsorted ids. Streaming the rows in order (rather than gathering
// each segment's rows) keeps the reads of a large `data` sequential, which matters far more than
// the cheap re-reading of the ids by each worker. With sorted ids a worker reads only its rows.
// The per-element folds are in segment_fold.h, shared with the CUDA twins (segment_kernels.cu).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "segment_fold.h"
#include "strided_loop.h"

namespace sampan::kernels {

/// Row counts per segment as offsets: segment s has offsets[s+1] - offsets[s] rows.
struct SegmentCounts {
  std::vector<int64_t> offsets;  // num_segments + 1
  bool sorted = true;            // ids non-decreasing: the rows of segment s are offsets[s]..offsets[s+1]
  int64_t count(int64_t s) const { return offsets[s + 1] - offsets[s]; }
};

/// Counts the rows per segment; every id must already lie in [0, num_segments).
inline SegmentCounts count_segments(const int64_t* ids, int64_t n, int64_t num_segments) {
  SegmentCounts g;
  g.offsets.assign(static_cast<size_t>(num_segments) + 1, 0);
  for (int64_t r = 0; r < n; ++r) {
    ++g.offsets[ids[r] + 1];
    if (r > 0 && ids[r] < ids[r - 1]) g.sorted = false;
  }
  for (int64_t s = 0; s < num_segments; ++s) g.offsets[s + 1] += g.offsets[s];
  return g;
}

/// Runs body(seg_begin, seg_end, col_begin, col_end, row_begin, row_end) once per worker; the
/// worker must fold rows row_begin..row_end-1 (all rows for unsorted ids) whose id falls in its
/// segment range, columns col_begin..col_end-1 only.
template <class Body>
void for_each_segment_worker(const SegmentCounts& g, int64_t num_segments, int64_t n, int64_t f, Body body) {
#pragma omp parallel if (n * f > kParallelGrain && num_segments > 0)
  {
    const int64_t workers = omp_get_num_threads(), t = omp_get_thread_num();
    // Columns are split only when segments are too few to go around.
    const int64_t col_parts = num_segments >= workers ? 1 : std::min<int64_t>(workers, std::max<int64_t>(1, f / 8));
    const int64_t seg_parts = std::max<int64_t>(1, std::min<int64_t>(workers / col_parts, num_segments));
    if (t < seg_parts * col_parts) {
      const int64_t ts = t / col_parts, tc = t % col_parts;
      // Segment boundaries at equal shares of the rows.
      auto boundary = [&](int64_t part) -> int64_t {
        if (part == 0) return 0;
        if (part == seg_parts) return num_segments;
        const int64_t target = n * part / seg_parts;
        return std::lower_bound(g.offsets.begin(), g.offsets.end() - 1, target) - g.offsets.begin();
      };
      const int64_t s0 = boundary(ts), s1 = std::max(s0, boundary(ts + 1));
      const int64_t c0 = f * tc / col_parts, c1 = f * (tc + 1) / col_parts;
      if (s1 > s0 && c1 > c0) {
        if (g.sorted) body(s0, s1, c0, c1, g.offsets[s0], g.offsets[s1]);
        else body(s0, s1, c0, c1, int64_t(0), n);
      }
    }
  }
}

/// out[s, :] = sum of data[r, :] over the rows r of segment s (0 for an empty segment); with
/// `mean`, divided by the row count.
template <class T>
void segment_sum_rows(const T* data, const int64_t* ids, int64_t n, int64_t f, const SegmentCounts& g,
                      int64_t num_segments, bool mean, T* out) {
  if (num_segments == 0) return;
  // Workers that get no segments leave their rows untouched: zero everything first.
  if (n == 0) { std::fill(out, out + num_segments * f, T(0)); return; }
  for_each_segment_worker(g, num_segments, n, f, [&](int64_t s0, int64_t s1, int64_t c0, int64_t c1, int64_t r0, int64_t r1) {
    for (int64_t s = s0; s < s1; ++s)
      for (int64_t c = c0; c < c1; ++c) out[s * f + c] = T(0);
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t s = ids[r];
      if (s < s0 || s >= s1) continue;
      T* o = out + s * f;
      const T* x = data + r * f;
      for (int64_t c = c0; c < c1; ++c) fold_segment_sum(o[c], x[c]);
    }
    if (mean)
      for (int64_t s = s0; s < s1; ++s) {
        if (g.count(s) == 0) continue;
        for (int64_t c = c0; c < c1; ++c) finish_segment_mean(out[s * f + c], g.count(s));
      }
  });
}

/// out[s, c] = max (or min) of data[r, c] over the rows of segment s and arg[s, c] = that row
/// (the first one on ties; a NaN wins and propagates). Empty segments give 0 and row -1.
template <class T>
void segment_extreme_rows(const T* data, const int64_t* ids, int64_t n, int64_t f, const SegmentCounts& g,
                          int64_t num_segments, bool want_max, T* out, int64_t* arg) {
  if (num_segments == 0) return;
  if (n == 0) {
    std::fill(out, out + num_segments * f, T(0));
    std::fill(arg, arg + num_segments * f, int64_t(-1));
    return;
  }
  for_each_segment_worker(g, num_segments, n, f, [&](int64_t s0, int64_t s1, int64_t c0, int64_t c1, int64_t r0, int64_t r1) {
    for (int64_t s = s0; s < s1; ++s)
      for (int64_t c = c0; c < c1; ++c) { out[s * f + c] = T(0); arg[s * f + c] = -1; }
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t s = ids[r];
      if (s < s0 || s >= s1) continue;
      T* o = out + s * f;
      int64_t* a = arg + s * f;
      const T* x = data + r * f;
      for (int64_t c = c0; c < c1; ++c) fold_segment_extreme(o[c], a[c], x[c], r, want_max);
    }
  });
}

}  // namespace sampan::kernels
