// Matrix products on the GPU through cuBLAS (defined in gemm_cuda.cu, compiled only where nvcc
// exists: SAMPAN_CUDA_KERNELS), with kernels::gemm's row-major convention. Pointers are device
// pointers; errors leave as std::runtime_error. Asynchronous on the default stream.
#pragma once

#include <cstdint>

#include "sampan/complex_element.h"
#include "sampan/dtype.h"

namespace sampan::kernels {

/// C[m, n] = op(A) op(B) (row-major, leading dimensions lda, ldb, ldc), op(X) = X^T where ta / tb.
/// T: float, double, ComplexElement<float>, ComplexElement<double>, and the 16-bit Half and
/// BFloat16 (cublasGemmEx with float32 accumulation, each output rounded once: the CPU's
/// multiply-in-float32-and-round to rounding). cuBLAS's default math mode: no TF32, no
/// reduced-precision reductions. cuBLAS is deterministic on one GPU model (the same
/// bits run to run), but its order of the k sums is not the CPU BLAS's: the CPU's values to
/// rounding. Sizes above 2^31 - 1 raise.
template <class T>
void gemm_cuda(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T* c, int64_t ldc);

}  // namespace sampan::kernels
