// The per-element folds of the segment reductions (segment_kernels.h on the CPU,
// segment_kernels.cu on the GPU): one row's value folded into its segment's running result.
// Both devices fold each segment's rows in increasing row order, so they do the same operations
// in the same order (the GPU twin walks a stable row order per segment instead of atomics).
#pragma once

#include <cstdint>
#include <type_traits>

#include "sampan/host_device.h"

namespace sampan::kernels {

template <class T> SAMPAN_HOST_DEVICE inline bool segment_value_is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}

/// out += v (segment_sum, segment_mean).
template <class T> SAMPAN_HOST_DEVICE inline void fold_segment_sum(T& out, T v) { out += v; }

/// One message of gather_add_scatter: the gathered row's value plus the edge's, rounded before it
/// is folded (as the unfused index_select + add, then segment_sum, rounds it).
template <class T> SAMPAN_HOST_DEVICE inline T gather_add_message(T x, T edge) { return x + edge; }

/// segment_mean's last step: the sum divided by the row count (an empty segment keeps its 0).
template <class T> SAMPAN_HOST_DEVICE inline void finish_segment_mean(T& out, int64_t count) {
  if (count != 0) out /= static_cast<T>(count);
}

/// Folds value v of row r into the running extreme (out, arg) of its segment; arg < 0 means no
/// row yet. The first row wins ties; a NaN wins and then stays (it propagates).
template <class T>
SAMPAN_HOST_DEVICE inline void fold_segment_extreme(T& out, int64_t& arg, T v, int64_t r, bool want_max) {
  if (arg < 0) {
    out = v;
    arg = r;
    return;
  }
  if (segment_value_is_nan(out)) return;
  if (segment_value_is_nan(v) || (want_max ? v > out : v < out)) {
    out = v;
    arg = r;
  }
}

}  // namespace sampan::kernels
