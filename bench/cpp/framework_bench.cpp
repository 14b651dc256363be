// sampan framework benchmark: per-op overhead from C++, a large elementwise add and an unsorted
// segment_sum against a STREAM-style triad measured in the same run. Prints min-of-N timings
// and ratios.
//
//   build/bench/framework_bench
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "sampan/autograd.h"
#include "sampan/ops.h"

using namespace sampan;

namespace {

// Minimum over `repeats` of the mean time per iteration of `body` run `iters` times, in seconds.
double min_time(int repeats, int iters, const std::function<void()>& body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) body();
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(t1 - t0).count() / iters);
  }
  return best;
}

// a[i] = b[i] + s * c[i] over float32, the STREAM triad: 3 streams of 4 bytes per element.
// Its arrays come from the same allocator as sampan's tensors, so page size and alignment match.
double triad_bandwidth(int64_t n) {
  Tensor ta = ones({n}), tb = ones({n}), tc = full({n}, 2.0);
  float* a = ta.data<float>();
  const float* b = tb.data<float>();
  const float* c = tc.data<float>();
  const float s = 3.0f;
  double t = min_time(5, 1, [&] {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
  });
  return 3.0 * 4.0 * static_cast<double>(n) / t;
}

}  // namespace

int main() {
  std::printf("sampan framework benchmark (OpenMP threads: %d)\n\n", omp_get_max_threads());

  Tensor a = ones({1}), b = ones({1});
  double t_add = min_time(5, 100000, [&] { Tensor c = add(a, b); });
  Tensor ag = ones({1}).requires_grad_();
  double t_add_grad = min_time(5, 100000, [&] { Tensor c = add(ag, b); });
  double t_chain = min_time(5, 200, [&] {
    Tensor c = ag;
    for (int k = 0; k < 100; ++k) c = add(c, b);
    sum(c).backward();
  }) / 100.0;
  std::printf("per-op overhead from C++ (1-element float32 add)\n");
  std::printf("  add, no grad                        %8.3f us\n", t_add * 1e6);
  std::printf("  add, input requires grad            %8.3f us\n", t_add_grad * 1e6);
  std::printf("  forward+backward of a 100-add chain %8.3f us per op\n", t_chain * 1e6);
  std::printf("  (reference, PyTorch 1.13 C++ on this machine kind: 0.72 / 1.69 / 4.8 us,\n"
              "   min of 5 runs, 2-vCPU EPYC; ratio ours/theirs: %.2f / %.2f / %.2f)\n\n",
              t_add * 1e6 / 0.72, t_add_grad * 1e6 / 1.69, t_chain * 1e6 / 4.8);

  const int64_t n = int64_t{1} << 25;  // 32M float32 = 128 MiB per array, far beyond the caches
  double bw_triad = triad_bandwidth(n);
  Tensor x = ones({n}), y = ones({n});
  Tensor z = Tensor::empty({n});
  double t_big = min_time(5, 1, [&] { z = add(x, y); });
  double bw_add = 3.0 * 4.0 * static_cast<double>(n) / t_big;
  Tensor w = ones({n});
  double t_inplace = min_time(5, 1, [&] { add_(w, y); });
  double bw_inplace = 3.0 * 4.0 * static_cast<double>(n) / t_inplace;
  std::printf("elementwise add of %lld float32 (3 streams)\n", static_cast<long long>(n));
  std::printf("  STREAM triad (same run)   %8.2f GB/s\n", bw_triad / 1e9);
  std::printf("  sampan add                %8.2f GB/s  = %.0f%% of triad (target >= 80%%)\n",
              bw_add / 1e9, 100.0 * bw_add / bw_triad);
  std::printf("  sampan add_ (in place)    %8.2f GB/s  = %.0f%% of triad (no fresh pages to fault in)\n",
              bw_inplace / 1e9, 100.0 * bw_inplace / bw_triad);

  // segment_sum at a message-passing size (the shape tests/cpp/framework/segment_test.cpp checks
  // for exact sums): 256k rows x 64 float32 features into 16k segments, ids unsorted.
  const int64_t rows = int64_t{1} << 18, feats = 64, segs = int64_t{1} << 14;
  std::vector<double> ids(rows);
  for (int64_t i = 0; i < rows; ++i) ids[i] = static_cast<double>((i * 2654435761LL) % segs);
  Tensor seg_ids = from_vector(ids, {rows}, DType::Int64);
  Tensor data = ones({rows, feats});
  double t_seg = min_time(5, 3, [&] { Tensor s = segment_sum(data, seg_ids, segs); });
  double bw_seg = 4.0 * static_cast<double>(rows * feats) / t_seg;  // the data read once
  std::printf("\nsegment_sum of %lld x %lld float32 into %lld segments (unsorted ids)\n", static_cast<long long>(rows),
              static_cast<long long>(feats), static_cast<long long>(segs));
  std::printf("  time                      %8.3f ms\n", t_seg * 1e3);
  std::printf("  data read                 %8.2f GB/s  = %.0f%% of triad\n", bw_seg / 1e9, 100.0 * bw_seg / bw_triad);
  return 0;
}
