// sampan quantum: one pass over the state that exchanges the top k qubits of a 2^b-amplitude
// block with k qubits above the block (the swap pass of the cache-blocked executor,
// quantum/src/cache_blocking.h).
//
// Bit positions: local qubits b - k + i (i < k, the top k bits of the block index range) trade
// places with the high qubits high[i] >= b. Seen per group of 2^k blocks that differ only in the
// high[] bits, the state is a 2^k x 2^k matrix of chunks of 2^(b-k) contiguous amplitudes (row:
// the high[] pattern p, column: the top-k local pattern q), and the exchange is its transpose:
// chunk (p, q) trades with chunk (q, p). Every amplitude outside the diagonal chunks is read and
// written once, in runs of 2^(b-k) amplitudes (a whole chunk), so the pass streams memory as long
// as the chunks are a few cache lines long; the planner keeps k small enough for that.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/index_runs.h"

namespace sampan::quantum::kernels {

/// Exchanges qubit b - k + i with qubit high[i] for i < k = high.size() (high[i] >= b, distinct)
/// on the 2^n amplitudes at a, in place.
template <class T>
void swap_top_qubits(std::complex<T>* a, int n, int b, const std::vector<int>& high) {
  const int k = static_cast<int>(high.size());
  if (k == 0) return;
  uint64_t hmask = 0;  // the high[] bits, in block-index coordinates (bit j = qubit b + j)
  for (int h : high) hmask |= uint64_t(1) << (h - b);
  const uint64_t blocks_mask = (uint64_t(1) << (n - b)) - 1, other = blocks_mask & ~hmask;
  const uint64_t chunk = uint64_t(1) << (b - k), dim = uint64_t(1) << k;
  // The block-index bits of pattern p spread over high[] (bit i of p -> high[i]).
  std::vector<uint64_t> spread(dim, 0);
  for (uint64_t p = 0; p < dim; ++p)
    for (int i = 0; i < k; ++i)
      if (p >> i & 1) spread[p] |= uint64_t(1) << (high[static_cast<size_t>(i)] - b);
  const uint64_t groups = uint64_t(1) << __builtin_popcountll(other);
  const int64_t rows = static_cast<int64_t>(groups * dim);
  const uint64_t* sp = spread.data();
  // Row (group, p) swaps its chunks q > p with the chunks p of rows q: the work per row shrinks
  // with p, hence the dynamic schedule.
#pragma omp parallel for schedule(dynamic, 1) if ((uint64_t(1) << n) >= kParallelAmps)
  for (int64_t row = 0; row < rows; ++row) {
    const uint64_t g = static_cast<uint64_t>(row) / dim, p = static_cast<uint64_t>(row) % dim;
    const uint64_t base = deposit_bits(g, other);
    std::complex<T>* row_p = a + ((base | sp[p]) << b);
    for (uint64_t q = p + 1; q < dim; ++q) {
      std::complex<T>* x = row_p + q * chunk;
      std::complex<T>* y = a + ((base | sp[q]) << b) + p * chunk;
      std::swap_ranges(x, x + chunk, y);
    }
  }
}

}  // namespace sampan::quantum::kernels
