// The index walk of the SIMD kernels (quantum/src/kernels/index_runs.h): for_each_register must
// call its body exactly once for every index with the zero-mask bits clear, the one-mask bits
// set, and a multiple of 2^step_bits, and never for another index. Covered: the flat walk (short
// runs) and the run walk (long runs, units of kRunUnit), ranges long enough for the skewed second
// cursor (cursor_split) and too short for it, odd call counts per thread, 1 and 2 OpenMP threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/index_runs.h"

namespace k = sampan::quantum::kernels;

namespace {

void check_walk(int n, uint64_t zero_mask, uint64_t one_mask, int step_bits) {
  const uint64_t N = uint64_t(1) << n;
  std::vector<int> visits(N, 0);  // disjoint indices per thread: no two threads write one slot
  k::for_each_register(n, zero_mask, one_mask, step_bits, [&](uint64_t i) {
    if (i < N) ++visits[i];
  });
  uint64_t wrong = 0, first_wrong = N;
  for (uint64_t i = 0; i < N; ++i) {
    const bool wanted = (i & zero_mask) == 0 && (i & one_mask) == one_mask && (i & ((uint64_t(1) << step_bits) - 1)) == 0;
    if (visits[i] != (wanted ? 1 : 0)) {
      ++wrong;
      if (first_wrong == N) first_wrong = i;
    }
  }
  EXPECT_EQ(wrong, 0u) << "n=" << n << " zero=" << zero_mask << " one=" << one_mask << " step_bits=" << step_bits
                       << " first wrong index " << first_wrong << " visited " << (first_wrong < N ? visits[first_wrong] : 0);
}

struct Threads {
  int previous = 1;
  explicit Threads(int t) {
#ifdef _OPENMP
    previous = omp_get_max_threads();
    omp_set_num_threads(t);
#endif
    (void)t;
  }
  ~Threads() {
#ifdef _OPENMP
    omp_set_num_threads(previous);
#endif
  }
};

}  // namespace

TEST(QuantumIndexRuns, EveryIndexOnceFlatAndRunWalks) {
  for (int threads : {1, 2}) {
    Threads scope(threads);
    for (int n : {5, 9, 14, 15, 16}) {
      for (int step_bits : {1, 2}) {
        // No fixed bit (one flat range), a target at every position from step_bits up (flat walk
        // below step_bits + 3, run walk above; runs longer than kRunUnit for t >= 12), a target
        // with a control above and one below, and three fixed bits (the flat walk's maximum).
        check_walk(n, 0, 0, step_bits);
        for (int t = step_bits; t < n; ++t) {
          check_walk(n, uint64_t(1) << t, 0, step_bits);
          if (t + 1 < n) check_walk(n, uint64_t(1) << t, uint64_t(1) << (t + 1), step_bits);
          if (t - 1 >= step_bits) check_walk(n, uint64_t(1) << t, uint64_t(1) << (t - 1), step_bits);
        }
        if (n >= step_bits + 4)
          check_walk(n, (uint64_t(1) << step_bits) | (uint64_t(1) << (n - 1)), uint64_t(1) << (step_bits + 2),
                     step_bits);
      }
    }
  }
}

TEST(QuantumIndexRuns, CursorSplitKeepsTheRangeAndSkewsOnlyLongOnes) {
  for (uint64_t total : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(7), uint64_t(1023), uint64_t(1024),
                         uint64_t(1025), uint64_t(4096)}) {
    const uint64_t a = k::cursor_split(total);
    EXPECT_LE(a, total) << total;
    EXPECT_GE(a, total - a) << total;  // the first cursor is never the shorter one
    if (total >= 64 * k::kCursorSkew) EXPECT_EQ(a - (total - a), 2 * k::kCursorSkew + (total & 1)) << total;
    else EXPECT_LE(a - (total - a), 1u) << total;
  }
}
