// sampan: linear algebra. Products follow NumPy (matmul broadcasting, 1-D promotion); the
// decompositions work on the last two dimensions and loop over any leading (batch) dimensions.
// Integer inputs of the decompositions become float32; float32/64 and complex64/128 are kept.
#pragma once

#include <string>
#include <vector>

#include "sampan/tensor.h"

namespace sampan {

/// Matrix product with NumPy semantics: a 1-D a is a row, a 1-D b a column (the added dimension
/// is dropped from the result); leading batch dimensions broadcast. ValueError names both shapes.
Tensor matmul(const Tensor& a, const Tensor& b);
/// out[i, j] = a[i] * b[j] over the flattened operands.
Tensor outer(const Tensor& a, const Tensor& b);
/// sum(a * b) for 1-D a and b of equal length (no conjugation).
Tensor dot(const Tensor& a, const Tensor& b);
/// sum(conj(a) * b) over the flattened operands (NumPy's vdot).
Tensor vdot(const Tensor& a, const Tensor& b);

/// Einstein summation, e.g. "ij,jk->ik", "bij,bjk->bik", "i,i->", "ij->ji", "ii->i", "...ij,...jk".
/// Without "->" the output holds the labels used once, in alphabetical order (NumPy's implicit
/// mode). Size-1 dimensions broadcast against their label. Built from permute, reshape, diagonal,
/// sum and matmul, so it is differentiable to any order.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

/// Inverse of a (batch of) square matrices; ValueError names the first singular matrix.
Tensor inv(const Tensor& a);
/// x with a x = b. b is a vector when it is 1-D, else a (batch of) matrices [..., n, k]; batch
/// dimensions broadcast. ValueError for a singular a.
Tensor solve(const Tensor& a, const Tensor& b);
/// Determinant of a (batch of) square matrices (LU with partial pivoting). Its gradient
/// det * inv(a)^H needs an invertible a.
Tensor det(const Tensor& a);

/// Eigen-decomposition of the Hermitian part (a + a^H) / 2 of a (batch of) square matrices.
/// Each eigenvector's phase (sign, for real matrices) is fixed: its largest-magnitude component
/// is real and positive, so results do not depend on the dtype or the library version.
struct EighResult {
  Tensor eigenvalues;   ///< [..., n], real, ascending
  Tensor eigenvectors;  ///< [..., n, n], the columns are the eigenvectors
};
/// The gradient is exact for distinct eigenvalues and for losses that do not depend on the
/// eigenvectors' phases (signs, for real matrices); degenerate eigenvalues give inf/NaN
/// gradients unless the loss ignores the eigenvectors.
EighResult eigh(const Tensor& a);

/// Reduced singular value decomposition a = u diag(s) vh of a (batch of) m x n matrices. The
/// phases are fixed as for eigh: the largest-magnitude component of each column of u is real
/// and positive.
struct SvdResult {
  Tensor u;   ///< [..., m, k], k = min(m, n)
  Tensor s;   ///< [..., k], real, descending, non-negative
  Tensor vh;  ///< [..., k, n]
};
/// Gradients through s are always exact; gradients through u and vh need distinct, non-zero
/// singular values and a loss that does not depend on the singular vectors' phases.
SvdResult svd(const Tensor& a);

}  // namespace sampan
