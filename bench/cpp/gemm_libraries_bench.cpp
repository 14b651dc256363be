// sampan float32 GEMM libraries: OpenBLAS (kernels::gemm_blas_only) against oneDNN's sgemm
// (kernels::sgemm_onednn) on the products a GIN 5x300 training step makes (32 molecules, ~760
// atoms: [atoms, 300] x [300, 600] and back, each with the transposes of its backward pass), a
// few small ones, and what sp.matmul's size rule (sgemm_onednn.h) picks for each. Best of
// interleaved repeats, wall clock; the rule's column is the faster library's time / its time.
//
//   OMP_NUM_THREADS=1 build/bench/gemm_libraries_bench     # and OMP_NUM_THREADS=2
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench_timing.h"
#include "sampan/blas_info.h"
#include "../../framework/src/kernels/gemm.h"
#include "../../framework/src/kernels/sgemm_onednn.h"

using namespace sampan;
using sampan::bench::seconds;

namespace {

struct Case {
  const char* what;
  int64_t m, n, k;
  bool ta, tb;
};

}  // namespace

int main() {
  kernels::set_blas_num_threads(omp_get_max_threads());
  std::printf("BLAS: %s; %d thread(s)\n", blas_library().c_str(), omp_get_max_threads());
  if (!kernels::sgemm_onednn_available()) {
    std::printf("no oneDNN in this build (apt-get install libdnnl-dev and rebuild)\n");
    return 0;
  }
  const Case cases[] = {
      {"GIN X W1 (forward)", 762, 600, 300, false, false},   {"GIN H W2 (forward)", 762, 300, 600, false, false},
      {"GIN X^T dY (dW1)", 300, 600, 762, true, false},      {"GIN H^T dY (dW2)", 600, 300, 762, true, false},
      {"GIN dY W1^T (dX)", 762, 300, 600, false, true},      {"GIN dY W2^T (dH)", 762, 600, 300, false, true},
      {"readout [32, 600] x [600, 300]", 32, 300, 600, false, false},
      {"square 512", 512, 512, 512, false, false},           {"square 2048", 2048, 2048, 2048, false, false},
      {"small 64 (below the rule)", 64, 64, 64, false, false}, {"small 16 x 64 x 32", 16, 64, 32, false, false},
  };
  std::printf("%-32s %6s %6s %6s %3s %3s %12s %12s %8s %8s\n", "product", "m", "n", "k", "tA", "tB", "OpenBLAS GF/s",
              "oneDNN GF/s", "rule", "rule/best");
  for (const Case& c : cases) {
    std::vector<float> a(c.m * c.k), b(c.k * c.n), out(c.m * c.n);
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 104729) % 1000) / 1000.0f - 0.5f;
    const int64_t lda = c.ta ? c.m : c.k, ldb = c.tb ? c.k : c.n;
    auto blas = [&] { kernels::gemm_blas_only(c.ta, c.tb, c.m, c.n, c.k, a.data(), lda, b.data(), ldb, out.data(), c.n); };
    auto dnnl = [&] { kernels::sgemm_onednn(c.ta, c.tb, c.m, c.n, c.k, a.data(), lda, b.data(), ldb, out.data(), c.n); };
    blas(), dnnl();
    const double flop = 2.0 * c.m * c.n * c.k;
    const int repeats = flop > 4e9 ? 5 : flop > 1e8 ? 30 : 300;
    double tb = 1e30, td = 1e30;
    for (int r = 0; r < repeats; ++r) {
      tb = std::min(tb, seconds(blas));
      td = std::min(td, seconds(dnnl));
    }
    const bool onednn = kernels::sgemm_onednn_pays(c.m, c.n, c.k);
    std::printf("%-32s %6ld %6ld %6ld %3d %3d %12.1f %12.1f %8s %8.2f\n", c.what, static_cast<long>(c.m),
                static_cast<long>(c.n), static_cast<long>(c.k), c.ta, c.tb, flop / tb / 1e9, flop / td / 1e9,
                onednn ? "oneDNN" : "OpenBLAS", std::min(tb, td) / (onednn ? td : tb));
  }
  return 0;
}
