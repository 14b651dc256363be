// sampan kernels: reductions over a subset of dimensions of a strided input into a contiguous
// output. Plain functions over pointers, sizes and strides.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <omp.h>

#include "strided_loop.h"

namespace sampan::kernels {

/// Fast paths of reduce_strided for a contiguous input whose reduced dimensions (ignoring size-1
/// ones) form a leading or a trailing block: column sums of [N, C] (BatchNorm statistics, bias
/// gradients through broadcasting) and row or full sums. Each output folds its elements in the
/// same order as the generic walk, so the results are identical; only the loops are flat, so they
/// vectorize (the leading case across outputs) instead of stepping a multi-index per element.
/// Returns false when neither layout applies.
template <class In, class Out, class Acc, class Step, class Finish>
bool reduce_contiguous_blocks(int64_t ndim, const int64_t* shape, const In* x, const int64_t* strides,
                              const bool* reduced, Out* out, Acc init, Step step, Finish finish, int64_t nout,
                              int64_t nred) {
  if (nout == 0 || nred == 0) return false;
  int64_t expect = 1;
  for (int64_t d = ndim - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != expect) return false;
    expect *= shape[d];
  }
  int64_t first_kept = ndim, last_kept = -1, first_reduced = ndim, last_reduced = -1;
  for (int64_t d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    if (reduced[d]) { first_reduced = std::min(first_reduced, d); last_reduced = d; }
    else { first_kept = std::min(first_kept, d); last_kept = d; }
  }
  if (nout == 1) {
    // A full reduction: the generic code's per-thread parts (same partition), without the
    // multi-index walk.
    if (nred <= kParallelGrain) {
      Acc a = init;
      for (int64_t r = 0; r < nred; ++r) a = step(a, x[r]);
      out[0] = finish(a, nred);
      return true;
    }
    int nt = omp_get_max_threads();
    std::vector<Acc> part(nt, init);
#pragma omp parallel num_threads(nt)
    {
      int t = omp_get_thread_num(), n = omp_get_num_threads();
      int64_t r0 = nred * t / n, r1 = nred * (t + 1) / n;
      Acc a = init;
      for (int64_t r = r0; r < r1; ++r) a = step(a, x[r]);
      part[t] = a;
    }
    Acc acc = init;
    for (auto& p : part) acc = step.combine(acc, p);
    out[0] = finish(acc, nred);
    return true;
  }
  if (last_reduced < first_kept) {
    // Reduced dimensions lead: x is [nred, nout]; fold row after row into one accumulator per
    // output, each thread owning a block of outputs.
    std::vector<Acc> acc(static_cast<size_t>(nout), init);
#pragma omp parallel if (nout * nred > kParallelGrain && nout >= 256)
    {
      const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
      const int64_t c0 = nout * t / n, c1 = nout * (t + 1) / n;
      Acc* a = acc.data();
      for (int64_t r = 0; r < nred; ++r) {
        const In* row = x + r * nout;
        for (int64_t c = c0; c < c1; ++c) a[c] = step(a[c], row[c]);
      }
      for (int64_t c = c0; c < c1; ++c) out[c] = finish(a[c], nred);
    }
    return true;
  }
  if (last_kept < first_reduced) {
    // Kept dimensions lead: x is [nout, nred]; each output folds one contiguous row.
#pragma omp parallel for if (nout * nred > kParallelGrain) schedule(static)
    for (int64_t o = 0; o < nout; ++o) {
      const In* row = x + o * nred;
      Acc a = init;
      for (int64_t r = 0; r < nred; ++r) a = step(a, row[r]);
      out[o] = finish(a, nred);
    }
    return true;
  }
  return false;
}

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
  if (reduce_contiguous_blocks(ndim, shape, x, strides, reduced, out, init, step, finish, nout, nred)) return;
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
