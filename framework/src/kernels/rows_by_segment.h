// Host helper of the CUDA twins that fold rows into buckets (segment_kernels.cu, index_kernels.cu):
// the rows of each bucket in increasing row order, as a CSR (a stable counting sort). A GPU
// thread per output element then folds its rows in the order the CPU folds them, with no atomics.
#pragma once

#include <cstdint>
#include <vector>

namespace sampan::kernels {

/// Rows of bucket s are order[offsets[s] .. offsets[s+1]), increasing; ids[r] in [0, buckets).
struct RowsByBucket {
  std::vector<int64_t> offsets, order;
};
inline RowsByBucket rows_by_bucket(const int64_t* ids, int64_t n, int64_t buckets) {
  RowsByBucket g;
  g.offsets.assign(static_cast<size_t>(buckets) + 1, 0);
  for (int64_t r = 0; r < n; ++r) ++g.offsets[ids[r] + 1];
  for (int64_t s = 0; s < buckets; ++s) g.offsets[s + 1] += g.offsets[s];
  std::vector<int64_t> next(g.offsets.begin(), g.offsets.end() - 1);
  g.order.resize(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) g.order[next[ids[r]]++] = r;
  return g;
}

}  // namespace sampan::kernels
