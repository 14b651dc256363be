// sampan kernels: float32 GEMM through oneDNN's sgemm (its JIT AVX-512/AVX2 kernels), for the
// products where it is faster than the BLAS behind gemm() (gemm.h), in builds that found oneDNN
// (SAMPAN_HAVE_ONEDNN, Debian's libdnnl-dev). Measured on the development machine's AVX-512 cores
// with GIN's [762, 300] x [300, 600]-sized products and their transposes (bench/gemm_libraries.cpp,
// docs/core-measurements.md): 5-15 % more GFLOP/s than Debian's OpenBLAS 0.3.21 at one thread and
// up to 1.6x at two, but several times slower on products of a few thousand flops, where its
// per-call set-up dominates. Results are deterministic for a given thread count.
#pragma once

#include <cstdint>
#include <string>

namespace sampan::kernels {

/// Whether sgemm_onednn() has oneDNN behind it in this build.
bool sgemm_onednn_available();

/// The size rule: products with m * n * k at or above this many multiply-adds, and m, n of at
/// least kOnednnMinSide, go to oneDNN (below it OpenBLAS's small-matrix paths win).
constexpr int64_t kOnednnMinWork = int64_t{1} << 22;
constexpr int64_t kOnednnMinSide = 8;
bool sgemm_onednn_pays(int64_t m, int64_t n, int64_t k);

/// C[m x n] = op(A) op(B), overwriting C; the operand convention of gemm() in gemm.h. Returns
/// false (C untouched) where this build has no oneDNN.
bool sgemm_onednn(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                  const float* b, int64_t ldb, float* c, int64_t ldc);

/// "oneDNN <version>" or "none".
std::string sgemm_onednn_library();

}  // namespace sampan::kernels
