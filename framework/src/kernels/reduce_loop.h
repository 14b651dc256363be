// sampan kernels: reductions over a subset of dimensions of a strided input into a contiguous
// output. Plain functions over pointers, sizes and strides.
#pragma once

#include <cstdint>
#include <vector>

#include <omp.h>

#include "strided_loop.h"

namespace sampan::kernels {

/// For each output element (the kept dimensions, row-major), folds `acc = step(acc, x)` over the
/// reduced dimensions starting from `init`, then writes `finish(acc, count)`.
template <class In, class Out, class Acc, class Step, class Finish>
void reduce_strided(int64_t ndim, const int64_t* shape, const In* x, const int64_t* strides,
                    const bool* reduced, Out* out, Acc init, Step step, Finish finish) {
  std::vector<int64_t> ks, kst, rs, rst;  // kept / reduced sizes and strides
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduced[d]) { rs.push_back(shape[d]); rst.push_back(strides[d]); }
    else { ks.push_back(shape[d]); kst.push_back(strides[d]); }
  }
  int64_t nout = 1, nred = 1;
  for (auto s : ks) nout *= s;
  for (auto s : rs) nred *= s;
  const int64_t nr = static_cast<int64_t>(rs.size()), nk = static_cast<int64_t>(ks.size());
  auto reduce_range = [&](int64_t base, int64_t r0, int64_t r1) {
    Acc acc = init;
    // walk the reduced multi-index incrementally from r0
    std::vector<int64_t> idx(nr, 0);
    int64_t rem = r0, off = 0;
    for (int64_t d = nr - 1; d >= 0; --d) { idx[d] = rem % rs[d]; rem /= rs[d]; off += idx[d] * rst[d]; }
    for (int64_t r = r0; r < r1; ++r) {
      acc = step(acc, x[base + off]);
      for (int64_t d = nr - 1; d >= 0; --d) {
        off += rst[d];
        if (++idx[d] < rs[d]) break;
        off -= rs[d] * rst[d];
        idx[d] = 0;
      }
    }
    return acc;
  };
  auto kept_offset = [&](int64_t o) {
    int64_t rem = o, off = 0;
    for (int64_t d = nk - 1; d >= 0; --d) { off += (rem % ks[d]) * kst[d]; rem /= ks[d]; }
    return off;
  };
  if (nout == 1 && nred > kParallelGrain) {
    // One big reduction: per-thread partial folds, combined in thread order (deterministic for a
    // fixed thread count).
    int nt = omp_get_max_threads();
    std::vector<Acc> part(nt, init);
#pragma omp parallel num_threads(nt)
    {
      int t = omp_get_thread_num(), n = omp_get_num_threads();
      int64_t r0 = nred * t / n, r1 = nred * (t + 1) / n;
      part[t] = reduce_range(0, r0, r1);
    }
    Acc acc = init;
    for (auto& p : part) acc = step.combine(acc, p);
    out[0] = finish(acc, nred);
    return;
  }
#pragma omp parallel for if (nout * nred > kParallelGrain && nout > 1) schedule(static)
  for (int64_t o = 0; o < nout; ++o) out[o] = finish(reduce_range(kept_offset(o), 0, nred), nred);
}

}  // namespace sampan::kernels
