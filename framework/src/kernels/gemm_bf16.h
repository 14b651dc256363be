// sampan kernels: bfloat16 GEMM C = op(A) op(B) through oneDNN's matmul primitive (float32
// accumulation, C rounded to bfloat16 once), in builds that found oneDNN (SAMPAN_HAVE_ONEDNN,
// Debian's libdnnl-dev). Debian 12's OpenBLAS 0.3.21 exports no cblas_sbgemm, so oneDNN is the
// library that runs bf16 on AVX512-BF16 / AMX cores; elsewhere matmul converts to float32.
#pragma once

#include <cstdint>
#include <string>

#include "sampan/dtype.h"

namespace sampan::kernels {

/// Whether gemm_bf16() has a library behind it in this build, for this CPU (oneDNN builds no
/// bfloat16 matmul for a CPU without AVX512).
bool gemm_bf16_available();
/// "oneDNN <version>", or "none (...)" saying why (float32 convert path).
std::string gemm_bf16_library();

/// C[m x n] = op(A) op(B), row-major, the same operand convention as gemm() in gemm.h.
/// Products are accumulated in float32. Throws where gemm_bf16_available() is false.
void gemm_bf16(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda,
               const BFloat16* b, int64_t ldb, BFloat16* c, int64_t ldc);
/// The same product with a float32 C (for benchmarks and tests of the accumulation).
void gemm_bf16(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const BFloat16* a, int64_t lda,
               const BFloat16* b, int64_t ldb, float* c, int64_t ldc);
/// float32 GEMM through the same library, so a benchmark compares bf16 with float32 of one library.
void gemm_f32_same_library(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a,
                           int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace sampan::kernels
