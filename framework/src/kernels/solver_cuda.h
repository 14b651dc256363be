// The dense decompositions on the GPU through cuSOLVER's 64-bit API (defined in solver_cuda.cu,
// compiled only where nvcc exists: SAMPAN_CUDA_KERNELS). Column-major matrices, LAPACK's
// convention, `batch` of them back to back; pointers are device pointers unless named host.
// T: float, double, ComplexElement<float>, ComplexElement<double>; R its real type. cuSOLVER's
// algorithms are not Eigen's: the CPU's values to rounding. Errors leave as std::runtime_error.
#pragma once

#include <cstdint>

#include "sampan/complex_element.h"

namespace sampan::kernels {

/// LU with partial pivoting (getrf) of n x n matrices in place; ipiv: batch x n pivots (1-based).
/// host_info[b] = 0, or i > 0 when U(i, i) is exactly zero (LAPACK's singularity rule).
template <class T> void lu_factor_cuda(int64_t batch, int64_t n, T* a, int64_t* ipiv, int* host_info);

/// Solves op(A_b) X_b = B_b in place (getrs) with lu_factor_cuda's factors; B: n x k matrices;
/// op(A) = A^T (not conjugated) when `transpose`.
template <class T>
void lu_solve_cuda(bool transpose, int64_t batch, int64_t n, int64_t k, const T* lu, const int64_t* ipiv, T* b);

/// Eigenvalues (ascending, into w: batch x n) and eigenvectors (the columns, over a) of Hermitian
/// n x n matrices (syevd / heevd, lower triangle read). host_info[b] = 0, or > 0: no convergence.
template <class T, class R> void eigh_cuda(int64_t batch, int64_t n, T* a, R* w, int* host_info);

/// Reduced SVD (gesvd) of m x n matrices with m >= n, a destroyed: s (batch x n, descending),
/// u (m x n each), vt (n x n each). host_info[b] = 0, or > 0: no convergence.
template <class T, class R> void svd_cuda(int64_t batch, int64_t m, int64_t n, T* a, R* s, T* u, T* vt, int* host_info);

/// The CPU's phase convention for singular and eigenvectors: each column j of u (rows x cols,
/// element (i, j) at u[i * row_stride + j * col_stride], matrices batch_stride apart) is scaled by
/// conj(u_bj / |u_bj|), u_bj its largest-magnitude entry (the first on ties), so that entry becomes
/// real and positive; row j of vh (cols x vh_cols row-major, vh_batch_stride apart) is scaled by
/// the conjugate factor, so u diag(s) vh is unchanged. vh may be null.
template <class T>
void fix_phases_cuda(int64_t batch, int64_t rows, int64_t cols, T* u, int64_t row_stride, int64_t col_stride,
                     int64_t batch_stride, T* vh, int64_t vh_cols, int64_t vh_batch_stride);

}  // namespace sampan::kernels
