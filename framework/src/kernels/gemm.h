// sampan kernels: general matrix multiply C = op(A) op(B) on row-major matrices, where op is the
// identity or the transpose. Plain functions over pointers, sizes and leading dimensions.
//
// float32/64 and complex64/128 go to the BLAS (cblas_?gemm: PyPI's scipy-openblas32 or Debian's
// OpenBLAS, see blas_api.h) when the build has one; large float32 products go to oneDNN's sgemm
// instead where the build found oneDNN (sgemm_onednn.h says when and why); integer types, and
// every type in a build without a BLAS, use the loop kernel.
// A transposed operand is passed as a flag with its own leading dimension, so a transposed view
// never needs a copy.
#pragma once

#include <cstdint>
#include <string>

#include "sampan/dtype.h"

namespace sampan::kernels {

/// Whether gemm() reaches a BLAS for float and complex types in this build.
bool gemm_uses_blas();

/// Sets the thread count of the BLAS behind gemm() where it has its own pool (OpenBLAS's pthread
/// build ignores OpenMP's setting); a no-op for other BLAS builds and without one.
void set_blas_num_threads(int n);
/// The size of that pool (0 where the BLAS keeps none that can be asked, or there is no BLAS).
int get_blas_num_threads();
/// Which BLAS gemm() calls: library, its build configuration and the kernel set it picked.
std::string blas_library();

/// C[m x n] = op(A)[m x k] * op(B)[k x n], overwriting C (row-major, leading dimension ldc).
/// Row-major A holds op(A) directly when `trans_a` is false (element (i, p) at a[i*lda + p]) and
/// its transpose when true (element (i, p) at a[p*lda + i]); likewise B with `trans_b`.
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
          const float* b, int64_t ldb, float* c, int64_t ldc);
/// float32 through the BLAS (or the loop kernel) alone, never oneDNN: for benchmarks and tests
/// that compare the two libraries.
void gemm_blas_only(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
                    const float* b, int64_t ldb, float* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
          const double* b, int64_t ldb, double* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const complex64* a, int64_t lda,
          const complex64* b, int64_t ldb, complex64* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const complex128* a, int64_t lda,
          const complex128* b, int64_t ldb, complex128* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const int32_t* a, int64_t lda,
          const int32_t* b, int64_t ldb, int32_t* c, int64_t ldc);
void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, const int64_t* a, int64_t lda,
          const int64_t* b, int64_t ldb, int64_t* c, int64_t ldc);

}  // namespace sampan::kernels
