// sampan bfloat16 GEMM benchmark: oneDNN's bfloat16 matmul against oneDNN's own float32 matmul
// (issue 18's CPU target: bf16 >= 3x float32 GFLOP/s of the same library at n = 2048) and against
// the float32 BLAS (OpenBLAS; sp.matmul sends large float32 products to oneDNN, see
// gemm_libraries_bench), in one run. Best of interleaved repeats, wall clock.
//
//   OMP_NUM_THREADS=1 build/bench/bf16_gemm_bench
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench_timing.h"
#include "sampan/blas_info.h"
#include "../../framework/src/kernels/gemm.h"
#include "../../framework/src/kernels/gemm_bf16.h"

using namespace sampan;
using sampan::bench::seconds;

namespace {

}  // namespace

int main() {
  std::printf("bfloat16: %s; float32 BLAS: %s; %d thread(s)\n", bf16_gemm_library().c_str(), blas_library().c_str(),
              omp_get_max_threads());
  if (!kernels::gemm_bf16_available()) {
    std::printf("no bfloat16 GEMM library in this build (apt-get install libdnnl-dev and rebuild)\n");
    return 0;
  }
  std::printf("%6s %18s %18s %18s %10s %10s\n", "n", "oneDNN bf16 GF/s", "oneDNN f32 GF/s", "BLAS f32 GF/s",
              "bf16/f32", "bf16/BLAS");
  for (int64_t n : {512, 1024, 2048}) {
    std::vector<float> a(n * n), b(n * n), c(n * n);
    std::vector<BFloat16> a16(n * n), b16(n * n), c16(n * n);
    for (int64_t i = 0; i < n * n; ++i) {
      a[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
      b[i] = static_cast<float>((i * 104729) % 1000) / 1000.0f - 0.5f;
      a16[i] = BFloat16(a[i]);
      b16[i] = BFloat16(b[i]);
    }
    auto bf16 = [&] { kernels::gemm_bf16(false, false, n, n, n, a16.data(), n, b16.data(), n, c16.data(), n); };
    auto f32 = [&] { kernels::gemm_f32_same_library(false, false, n, n, n, a.data(), n, b.data(), n, c.data(), n); };
    auto blas = [&] { kernels::gemm_blas_only(false, false, n, n, n, a.data(), n, b.data(), n, c.data(), n); };
    bf16(), f32(), blas();  // warm-up: oneDNN's primitive cache
    double t16 = 1e30, t32 = 1e30, tb = 1e30;
    const int repeats = n >= 2048 ? 3 : 7;
    for (int r = 0; r < repeats; ++r) {
      t16 = std::min(t16, seconds(bf16));
      t32 = std::min(t32, seconds(f32));
      tb = std::min(tb, seconds(blas));
    }
    const double gf = 2.0 * n * n * n / 1e9;
    std::printf("%6ld %18.1f %18.1f %18.1f %10.2f %10.2f\n", static_cast<long>(n), gf / t16, gf / t32, gf / tb,
                t32 / t16, tb / t16);
  }
  std::printf("bf16/f32 = oneDNN float32 time / oneDNN bfloat16 time; bf16/BLAS = the BLAS's float32 time / it\n");
  return 0;
}
