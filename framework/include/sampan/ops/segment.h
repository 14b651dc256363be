// sampan: segment reductions. Row r of `data` ([n, ...]) belongs to segment segment_ids[r]
// (int32/int64, 1-D, sorted or not); the result has num_segments rows (-1: max(id) + 1).
// Ids outside [0, num_segments) raise IndexError. Empty segments give 0. Results do not depend on
// the number of threads. Gradients: sum/mean scatter back with index_select, max/min route
// each output's gradient to the row it came from.
#pragma once

#include <optional>
#include <utility>

#include "sampan/tensor.h"

namespace sampan {

/// out[s] = sum of data[r] over rows with segment_ids[r] == s.
Tensor segment_sum(const Tensor& data, const Tensor& segment_ids, int64_t num_segments = -1);
/// out[s] = mean of those rows (integer data gives float32).
Tensor segment_mean(const Tensor& data, const Tensor& segment_ids, int64_t num_segments = -1);
/// Elementwise max of those rows (first on ties, NaN propagates).
Tensor segment_max(const Tensor& data, const Tensor& segment_ids, int64_t num_segments = -1);
/// Elementwise min of those rows.
Tensor segment_min(const Tensor& data, const Tensor& segment_ids, int64_t num_segments = -1);
/// (max, int64 row of each max; -1 for empty segments).
std::pair<Tensor, Tensor> segment_max_with_arg(const Tensor& data, const Tensor& segment_ids, int64_t num_segments = -1);
/// (min, int64 row of each min; -1 for empty segments).
std::pair<Tensor, Tensor> segment_min_with_arg(const Tensor& data, const Tensor& segment_ids, int64_t num_segments = -1);
/// Message passing in one pass: out[s] = sum over e with scatter_index[e] == s of
/// x[gather_index[e]] + edge[e] (edge optional), the same bits as
/// segment_sum(index_select(x, 0, gather_index) + edge, scatter_index, num_segments) without the
/// [E, ...] temporaries. Its gradient is the same op with the indices swapped.
Tensor gather_add_scatter(const Tensor& x, const Tensor& gather_index, const Tensor& scatter_index,
                          int64_t num_segments = -1, const std::optional<Tensor>& edge = std::nullopt);
/// Rows per segment (int64 [num_segments]).
Tensor segment_count(const Tensor& segment_ids, int64_t num_segments = -1);

}  // namespace sampan
