// cuBLAS behind kernels::gemm_cuda. cuBLAS is column-major: a row-major C = op(A) op(B) is the
// column-major C^T = op(B)^T op(A)^T, so the call swaps the operands (and m, n) and keeps the
// transpose flags. One cuBLAS handle per host thread, made on first use and kept for the process
// (destroying it at exit could run after the CUDA context is gone).
#include <cublas_v2.h>

#include <cuComplex.h>

#include <climits>
#include <stdexcept>
#include <string>

#include "gemm_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLAS error in ") + what + ": " + cublasGetStatusString(status));
}

cublasHandle_t handle() {
  thread_local cublasHandle_t h = [] {
    cublasHandle_t made = nullptr;
    check_cublas(cublasCreate(&made), "cublasCreate");
    check_cublas(cublasSetMathMode(made, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    return made;
  }();
  return h;
}

int as_int(int64_t v, const char* what) {
  if (v < 0 || v > INT_MAX)
    throw std::runtime_error(std::string("gemm_cuda: ") + what + " = " + std::to_string(v) +
                             " is beyond cuBLAS's 32-bit sizes");
  return static_cast<int>(v);
}

cublasStatus_t gemm_call(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                         const float* b, int ldb, const float* a, int lda, float* c, int ldc) {
  const float one = 1.0f, zero = 0.0f;
  return cublasSgemm(h, tb, ta, n, m, k, &one, b, ldb, a, lda, &zero, c, ldc);
}
cublasStatus_t gemm_call(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                         const double* b, int ldb, const double* a, int lda, double* c, int ldc) {
  const double one = 1.0, zero = 0.0;
  return cublasDgemm(h, tb, ta, n, m, k, &one, b, ldb, a, lda, &zero, c, ldc);
}
// ComplexElement<T> has cuComplex's layout (real, then imaginary).
cublasStatus_t gemm_call(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                         const ComplexElement<float>* b, int ldb, const ComplexElement<float>* a, int lda,
                         ComplexElement<float>* c, int ldc) {
  const cuComplex one = make_cuComplex(1.0f, 0.0f), zero = make_cuComplex(0.0f, 0.0f);
  return cublasCgemm(h, tb, ta, n, m, k, &one, reinterpret_cast<const cuComplex*>(b), ldb,
                     reinterpret_cast<const cuComplex*>(a), lda, &zero, reinterpret_cast<cuComplex*>(c), ldc);
}
cublasStatus_t gemm_call(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                         const ComplexElement<double>* b, int ldb, const ComplexElement<double>* a, int lda,
                         ComplexElement<double>* c, int ldc) {
  const cuDoubleComplex one = make_cuDoubleComplex(1.0, 0.0), zero = make_cuDoubleComplex(0.0, 0.0);
  return cublasZgemm(h, tb, ta, n, m, k, &one, reinterpret_cast<const cuDoubleComplex*>(b), ldb,
                     reinterpret_cast<const cuDoubleComplex*>(a), lda, &zero, reinterpret_cast<cuDoubleComplex*>(c),
                     ldc);
}

// The 16-bit floats: their storage is __half's / __nv_bfloat16's; products accumulate in float32.
cublasStatus_t gemm_ex(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                       const void* b, int ldb, const void* a, int lda, void* c, int ldc, cudaDataType type) {
  const float one = 1.0f, zero = 0.0f;
  return cublasGemmEx(h, tb, ta, n, m, k, &one, b, type, ldb, a, type, lda, &zero, c, type, ldc,
                      CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
cublasStatus_t gemm_call(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                         const Half* b, int ldb, const Half* a, int lda, Half* c, int ldc) {
  return gemm_ex(h, tb, ta, n, m, k, b, ldb, a, lda, c, ldc, CUDA_R_16F);
}
cublasStatus_t gemm_call(cublasHandle_t h, cublasOperation_t tb, cublasOperation_t ta, int n, int m, int k,
                         const BFloat16* b, int ldb, const BFloat16* a, int lda, BFloat16* c, int ldc) {
  return gemm_ex(h, tb, ta, n, m, k, b, ldb, a, lda, c, ldc, CUDA_R_16BF);
}

}  // namespace

template <class T>
void gemm_cuda(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
               T* c, int64_t ldc) {
  static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2, "the 16-bit floats must be bare bits");
  static_assert(sizeof(ComplexElement<float>) == sizeof(cuComplex) && sizeof(ComplexElement<double>) == sizeof(cuDoubleComplex),
                "ComplexElement must have cuComplex's layout");
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: zeros, whatever cuBLAS does with k = 0
    cuda::check(cudaMemset2DAsync(c, sizeof(T) * ldc, 0, sizeof(T) * n, m), "gemm_cuda (k = 0)");
    return;
  }
  const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  check_cublas(gemm_call(handle(), opb, opa, as_int(n, "n"), as_int(m, "m"), as_int(k, "k"), b, as_int(ldb, "ldb"), a,
                         as_int(lda, "lda"), c, as_int(ldc, "ldc")),
               "gemm");
}

template void gemm_cuda<float>(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t,
                               float*, int64_t);
template void gemm_cuda<double>(bool, bool, int64_t, int64_t, int64_t, const double*, int64_t, const double*, int64_t,
                                double*, int64_t);
template void gemm_cuda<ComplexElement<float>>(bool, bool, int64_t, int64_t, int64_t, const ComplexElement<float>*,
                                               int64_t, const ComplexElement<float>*, int64_t, ComplexElement<float>*,
                                               int64_t);
template void gemm_cuda<ComplexElement<double>>(bool, bool, int64_t, int64_t, int64_t, const ComplexElement<double>*,
                                                int64_t, const ComplexElement<double>*, int64_t,
                                                ComplexElement<double>*, int64_t);
template void gemm_cuda<Half>(bool, bool, int64_t, int64_t, int64_t, const Half*, int64_t, const Half*, int64_t, Half*,
                              int64_t);
template void gemm_cuda<BFloat16>(bool, bool, int64_t, int64_t, int64_t, const BFloat16*, int64_t, const BFloat16*,
                                  int64_t, BFloat16*, int64_t);

}  // namespace sampan::kernels
