// sampan internal: small helpers shared by the linear-algebra op files (linalg.cpp, einsum.cpp,
// linalg_decomp.cpp): the conjugate transpose, identity constants, diagonal embedding, and the
// checks every matrix argument goes through. All built from ops, so vjps using them stay
// differentiable.
#pragma once

#include <string>

#include "sampan/dispatch.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace sampan::detail {

/// Conjugate transpose of the last two dimensions (a view for real tensors).
inline Tensor mH(const Tensor& x) { return conj(transpose(x, -1, -2)); }

/// The n x n identity (a constant, no graph) of `dtype`, made on the CPU and moved to `device`.
inline Tensor eye(int64_t n, DType dtype, Device device = Device{}) {
  Tensor e = zeros({n, n}, DType::Float64);
  double* p = e.data<double>();
  for (int64_t i = 0; i < n; ++i) p[i * n + i] = 1.0;
  return device.is_cpu() ? e.to(dtype) : to_device(e.to(dtype), device);
}

/// A batch of diagonal matrices [..., n, n] with `v` [..., n] on the diagonal.
inline Tensor diag_embed(const Tensor& v) {
  return mul(unsqueeze(v, -2), eye(v.shape().back(), real_dtype(v.dtype()), v.device()));
}

/// "[2, 3]" for messages.
inline std::string shape_of(const TensorSpec& t) { return shape_str(t.shape); }

/// Throws unless `a` is a (batch of) square matrices: "inv: argument 'a' ...".
inline void check_square(const char* op, const char* arg, const TensorSpec& a) {
  SAMPAN_CHECK(a.dim() >= 2, ValueError, op, ": argument '", arg, "' must be a matrix or a batch of matrices "
               "(at least 2 dimensions), got shape ", shape_of(a));
  if (a.shape[a.dim() - 1] != a.shape[a.dim() - 2])
    SAMPAN_THROW(ValueError, op, ": argument '", arg, "' must hold square matrices, got shape ", shape_of(a));
}

/// Throws TypeError unless `t` can be computed on as float32/64 or complex64/128.
inline void check_linalg_dtype(const char* op, const char* arg, DType t) {
  if (t == DType::Float16 || t == DType::BFloat16 || t == DType::Bool)
    SAMPAN_THROW(TypeError, op, ": argument '", arg, "' has dtype ", dtype_name(t),
                 ", expected int32, int64, float32, float64, complex64 or complex128");
}

}  // namespace sampan::detail
