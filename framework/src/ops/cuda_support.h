// What the op layer of the built-in ops with CUDA twins (segment.cpp, index.cpp) shares, only in
// a build with nvcc (SAMPAN_CUDA_KERNELS): running a CUDA launcher with its errors turned into
// sampan errors, reading an index tensor that lives on the GPU back to the host (to check it, as
// the CPU path does), the layout the twins require, and the dtypes they are instantiated for.
#pragma once

#if defined(SAMPAN_CUDA_KERNELS)

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sampan/error.h"
#include "sampan/tensor.h"
#include "../kernels/graph_kernels_cuda.h"

namespace sampan::cuda_support {

/// Runs a CUDA launcher; its std::runtime_error (the .cu files know nothing of sampan) becomes
/// sampan::RuntimeError.
template <class F> void run_device(F f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    throw RuntimeError(e.what());
  }
}

/// A GPU tensor's data must be contiguous for the CUDA twins (no strided copy on the GPU yet).
inline void require_contiguous(const char* op, const char* name, const Tensor& t) {
  SAMPAN_CHECK(t.is_contiguous(), NotImplementedError, op, ": on CUDA, argument '", name,
               "' must be contiguous (strided CUDA inputs are not supported yet)");
}

/// src of a scatter (index_add, index_copy, scatter_add) must arrive on the GPU with its full
/// shape and x's dtype: the CUDA twins neither broadcast nor cast yet.
inline void require_exact_src(const char* op, const Shape& want, DType dtype, const Tensor& src) {
  if (src.shape() != want || src.dtype() != dtype)
    SAMPAN_THROW(NotImplementedError, op, ": on CUDA, src must have shape ", shape_str(want), " and dtype ",
                 dtype_name(dtype), " exactly (no broadcasting or casting on the GPU yet), got ",
                 shape_str(src.shape()), " ", dtype_name(src.dtype()));
}

/// A copy on the host (CPU tensor) of an integer index tensor that lives on the GPU; a strided
/// index (a column x[:, c] of a feature matrix) is made contiguous on the GPU first.
inline Tensor index_to_host(const char* op, const char* name, const Tensor& index_in) {
  const Tensor index = index_in.is_contiguous() ? index_in : index_in.contiguous();
  Tensor host = Tensor::empty(index.shape(), index.dtype());
  if (host.nbytes()) run_device([&] { kernels::copy_to_host_cuda(host.raw_data(), index.raw_data(), host.nbytes()); });
  return host;
}

template <class T> struct Tag { using type = T; };

/// Calls f(Tag<T>{}) for the dtypes the CUDA twins are built for: float32, float64 and, unless
/// floating_only, int32 and int64; others raise NotImplementedError naming the dtype.
template <class F> void visit_cuda_dtype(DType dtype, const char* op, bool floating_only, F f) {
  switch (dtype) {
    case DType::Float32: return f(Tag<float>{});
    case DType::Float64: return f(Tag<double>{});
    case DType::Int32:
      if (!floating_only) return f(Tag<int32_t>{});
      break;
    case DType::Int64:
      if (!floating_only) return f(Tag<int64_t>{});
      break;
    default:
      break;
  }
  SAMPAN_THROW(NotImplementedError, op, ": no CUDA kernel for dtype ", dtype_name(dtype),
               (floating_only ? " (float32 and float64 only)" : " (float32, float64, int32, int64 only)"));
}

}  // namespace sampan::cuda_support

#endif  // SAMPAN_CUDA_KERNELS
