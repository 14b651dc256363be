// sampan quantum: enumeration of the amplitude indices a gate touches, as contiguous runs.
//
// A gate with target bit(s) forced to 0 (the "i0" of each pair) and control bits forced to 1
// touches the indices x with (x & zero_mask) == 0 and (x & one_mask) == one_mask. Below the
// lowest forced bit L those indices are contiguous, so they come in runs of 2^L: the kernels
// stream each run with vector loads (every target qubit then reads memory sequentially, the cure
// for the mid-target penalty described in shared/reference/quantum.md section 4.2). Between runs
// the next start is found with a masked increment (set the non-free bits, add one, clear them
// again): constant cost whatever the number of controls. OpenMP threads take contiguous ranges of
// runs (split into units of at most kRunUnit amplitudes so that a single long run still
// parallelises) above kParallelAmps amplitudes.
#pragma once

#include <cstdint>
#include <type_traits>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace sampan::quantum::kernels {

constexpr uint64_t kParallelAmps = uint64_t(1) << 14;
constexpr uint64_t kRunUnit = uint64_t(1) << 12;

// The g-th value (in increasing order) whose set bits lie in `mask` (a software PDEP). Static:
// gates_avx2.cpp compiles this header with AVX2 enabled, and that copy must never be the one
// another translation unit links to.
static inline uint64_t deposit_bits(uint64_t g, uint64_t mask) {
  uint64_t r = 0;
  while (mask && g) {
    const uint64_t low = mask & (~mask + 1);
    if (g & 1) r |= low;
    g >>= 1;
    mask ^= low;
  }
  return r;
}

// Inserts a 0 bit at each position p_j (ascending) into x, given high[j] = ~(2^p_j - 1):
// x + (x & high) moves the bits at and above p_j up by one (no variable shift, which costs
// three micro-ops on some x86 cores).
template <int K>
inline uint64_t insert_zero_bits(uint64_t x, const uint64_t* high) {
  for (int j = 0; j < K; ++j) x += x & high[j];
  return x;
}

template <class Range>
inline void split_over_threads(int n, uint64_t total, Range&& range) {
#ifdef _OPENMP
  if ((n >= 64 || (uint64_t(1) << n) >= kParallelAmps) && total > 1 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
#pragma omp parallel
    {
      const uint64_t nt = static_cast<uint64_t>(omp_get_num_threads()), id = static_cast<uint64_t>(omp_get_thread_num());
      const uint64_t per = total / nt, extra = total % nt;
      const uint64_t u0 = id * per + (id < extra ? id : extra);
      range(u0, u0 + per + (id < extra ? 1 : 0));
    }
    return;
  }
#endif
  range(uint64_t(0), total);
}

// Every walk below splits its (per-thread) range in two halves and advances a cursor in each in
// lockstep: two far-apart sequential streams per thread instead of one. Measured on this box
// (n = 22-24, one thread, in-place scale with software prefetch): one stream 1.49-1.59 ns/amp,
// two 1.33-1.51, four 1.22-1.31; gates on targets 0-11 (whose pairs lie within 64 KiB, i.e. one
// stream) ran 15-25% slower than high targets (two streams) before this.
//
// The split is not at the exact middle: the second cursor starts kCursorSkew body calls (one
// cache line per stream each for complex128 dense gates: 1 KiB of the lower half) past it, the
// first finishing those calls alone. With an exact half the two cursors sit a power of two apart,
// so each stream of one shares its address bits below that power with a stream of the other.
// Measured at n = 24, one thread, huge pages (scratch copy of the dense 1-qubit kernel, the
// in-place bound interleaved, 12 rounds): targets 6-9 at 0.79-0.82 of the bound with the exact
// half, 0.84-0.92 with a 16-call skew; a 1-call skew (64 B, which already breaks 4 KiB
// load/store aliasing and L1 set sharing) gained nothing, so the suspect is how the streams map
// onto L3 slices / DRAM banks. In quantum_bench (n = 22-26, worst target over the bound) it
// moved the worst target from 0.85-0.89 to 0.90-0.95.
constexpr uint64_t kCursorSkew = 16;

// Calls taken by the first cursor of a range of `total` calls: half, plus kCursorSkew when the
// range is long enough for that to matter little to the balance.
inline uint64_t cursor_split(uint64_t total) {
  const uint64_t half = (total + 1) / 2;
  return total >= 64 * kCursorSkew ? half + kCursorSkew : half;
}

// Calls body(i) for every i in [0, 2^n) with (i & zero_mask) == 0, (i & one_mask) == one_mask
// and i a multiple of 2^step_bits (one vector register of amplitudes per call). zero_mask and
// one_mask are disjoint, below bit n, and have no bit below step_bits. Long runs (lowest forced
// bit >= step_bits + 3) are walked as contiguous runs; short runs with at most three forced bits
// are walked flat (the index of the k-th register by bit insertion), which avoids a loop
// set-up per run of one or two registers.
template <class Body>
inline void for_each_register(int n, uint64_t zero_mask, uint64_t one_mask, int step_bits, Body&& body) {
  const uint64_t all = (n >= 64) ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
  const uint64_t fixed = zero_mask | one_mask;
  const uint64_t step = uint64_t(1) << step_bits;
  int low_fixed = fixed ? __builtin_ctzll(fixed) : n;
  if (low_fixed > n) low_fixed = n;
  const int n_fixed = __builtin_popcountll(fixed);
  if (low_fixed < step_bits + 3 && n_fixed <= 3) {
    uint64_t high_of[3] = {0, 0, 0};
    uint64_t f = fixed;
    for (int j = 0; j < n_fixed; ++j) {
      high_of[j] = ~((uint64_t(1) << __builtin_ctzll(f)) - 1);
      f &= f - 1;
    }
    const uint64_t total = uint64_t(1) << (n - n_fixed - step_bits);
    // Each thread works on its own copy of the body (a closure holding the kernel's constants by
    // value): a local that no store through the amplitude pointer can alias, so the constants
    // stay in registers instead of being reloaded after every store.
    auto flat = [&](auto k_const, uint64_t u0, uint64_t u1) {
      constexpr int K = decltype(k_const)::value;
      std::decay_t<Body> local_body = body;
      uint64_t high[3] = {high_of[0], high_of[1], high_of[2]};
      const uint64_t ones = one_mask, local_step = step;
      // Two cursors advanced in lockstep, the second starting kCursorSkew registers past the
      // middle (see cursor_split); the first finishes its extra registers alone.
      const uint64_t len_a = cursor_split(u1 - u0);
      const uint64_t xa0 = u0 << step_bits, xb0 = (u0 + len_a) << step_bits, xb1 = u1 << step_bits;
      uint64_t xa = xa0;
      for (uint64_t xb = xb0; xb < xb1; xa += local_step, xb += local_step) {
        local_body(insert_zero_bits<K>(xa, high) | ones);
        local_body(insert_zero_bits<K>(xb, high) | ones);
      }
      for (const uint64_t xa1 = (u0 + len_a) << step_bits; xa < xa1; xa += local_step)
        local_body(insert_zero_bits<K>(xa, high) | ones);
    };
    split_over_threads(n, total, [&](uint64_t u0, uint64_t u1) {
      if (n_fixed == 0) flat(std::integral_constant<int, 0>(), u0, u1);
      else if (n_fixed == 1) flat(std::integral_constant<int, 1>(), u0, u1);
      else if (n_fixed == 2) flat(std::integral_constant<int, 2>(), u0, u1);
      else flat(std::integral_constant<int, 3>(), u0, u1);
    });
    return;
  }
  const uint64_t run = uint64_t(1) << low_fixed;
  const uint64_t free_hi = all & ~fixed & ~(run - 1);
  const uint64_t groups = uint64_t(1) << __builtin_popcountll(free_hi);
  const uint64_t unit = run < kRunUnit ? run : kRunUnit;
  const uint64_t units_per_group = run / unit;
  const uint64_t calls_per_unit = unit >> step_bits;
  split_over_threads(n, groups * units_per_group, [&](uint64_t u0, uint64_t u1) {
    if (u0 >= u1) return;
    // Locals, not the captured references: the body stores through the amplitude pointer, which
    // the compiler must otherwise assume may alias them (it reloaded step and unit after every
    // store).
    std::decay_t<Body> local_body = body;
    const uint64_t local_unit = unit, local_step = step, local_upg = units_per_group;
    const uint64_t local_free_hi = free_hi, local_ones = one_mask;
    // A cursor: unit j of the group at `base`, offset o in it. Positions count body calls.
    struct Cursor {
      uint64_t j, base, start, o;
    };
    auto cursor_at = [&](uint64_t pos) {
      const uint64_t u = pos / calls_per_unit;
      Cursor c;
      c.o = (pos % calls_per_unit) << step_bits;
      c.j = u % local_upg;
      c.base = deposit_bits(u / local_upg, local_free_hi) | local_ones;
      c.start = c.base + c.j * local_unit;
      return c;
    };
    auto advance = [&](Cursor& c) {
      c.o += local_step;
      if (c.o != local_unit) return;
      c.o = 0;
      if (++c.j == local_upg) {
        c.j = 0;
        c.base = (((c.base | ~local_free_hi) + 1) & local_free_hi) | local_ones;
      }
      c.start = c.base + c.j * local_unit;
    };
    // Two cursors in lockstep (the second kCursorSkew calls past the middle, see cursor_split),
    // then the first one's extra calls alone.
    const uint64_t total = (u1 - u0) * calls_per_unit;
    const uint64_t len_a = cursor_split(total), len_b = total - len_a;
    Cursor a = cursor_at(u0 * calls_per_unit), b = cursor_at(u0 * calls_per_unit + len_a);
    for (uint64_t k = 0; k < len_b; ++k) {
      local_body(a.start + a.o);
      local_body(b.start + b.o);
      advance(a);
      advance(b);
    }
    for (uint64_t k = len_b; k < len_a; ++k) {
      local_body(a.start + a.o);
      advance(a);
    }
  });
}

}  // namespace sampan::quantum::kernels
