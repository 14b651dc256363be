// The op layer of the CUDA elementwise twins (kernels/elementwise_kernels.cu): dtype checks, the
// strided layout, the launch, and the macros that add a twin to an op declaration, for
// binary.cpp, unary.cpp and activation.cpp. Without nvcc the macros add nothing.
#pragma once

#if defined(SAMPAN_CUDA_KERNELS)

#include <type_traits>

#include "cuda_support.h"
#include "strided_layout.h"
#include "../kernels/binary_element.h"
#include "../kernels/complex_element.h"
#include "../kernels/elementwise_kernels_cuda.h"
#include "../kernels/unary_element.h"

namespace sampan::detail {

// The functions instantiated for complex elements too (elementwise_kernels.cu): those whose
// complex arithmetic gives std::complex's bits (division does not: it scales).
template <class F>
constexpr bool kComplexOnCuda = std::is_same_v<F, kernels::AddElement> || std::is_same_v<F, kernels::SubElement> ||
                                std::is_same_v<F, kernels::MulElement> || std::is_same_v<F, kernels::NegElement> ||
                                std::is_same_v<F, kernels::SquareElement>;

// Calls launch(Tag<element type>) for out's dtype on the GPU, or raises naming the op.
template <class F, class Launch> void visit_elementwise_cuda(const char* name, DType dtype, Launch launch) {
  if constexpr (kComplexOnCuda<F>) {
    if (dtype == DType::Complex64) return launch(cuda_support::Tag<kernels::ComplexElement<float>>{});
    if (dtype == DType::Complex128) return launch(cuda_support::Tag<kernels::ComplexElement<double>>{});
  }
  cuda_support::visit_cuda_dtype(dtype, name, false, launch);
}

inline void require_dtype_on_cuda(const char* name, DType want, std::initializer_list<const Tensor*> inputs) {
  for (const Tensor* t : inputs)
    if (t->dtype() != want)
      SAMPAN_THROW(NotImplementedError, name, ": on CUDA, every argument must already have the result's dtype ",
                   dtype_name(want), " (no dtype conversion on the GPU yet), got ", dtype_name(t->dtype()),
                   "; cast them first");
}

/// out = F{}(x, y) on the GPU, any strides and broadcasting.
template <class F> void binary_on_cuda(const char* name, const Tensor& x, const Tensor& y, const Tensor& out) {
  require_dtype_on_cuda(name, out.dtype(), {&x, &y});
  const kernels::StridedLayout<3> layout = strided_layout<3>(name, out, {&x, &y});
  visit_elementwise_cuda<F>(name, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_support::run_device([&] {
      kernels::binary_cuda<F, T>(layout, out.numel(), static_cast<T*>(out.raw_data()),
                                 static_cast<const T*>(x.raw_data()), static_cast<const T*>(y.raw_data()));
    });
  });
}

/// out = F{}(x) on the GPU, any strides.
template <class F> void unary_on_cuda(const char* name, const Tensor& x, const Tensor& out) {
  require_dtype_on_cuda(name, out.dtype(), {&x});
  const kernels::StridedLayout<2> layout = strided_layout<2>(name, out, {&x});
  visit_elementwise_cuda<F>(name, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_support::run_device([&] {
      kernels::unary_cuda<F, T>(layout, out.numel(), static_cast<T*>(out.raw_data()),
                                static_cast<const T*>(x.raw_data()));
    });
  });
}

}  // namespace sampan::detail

/// `.cuda(...)` of a binary / unary op declaration whose twin runs FN (an element function of
/// kernels/binary_element.h or unary_element.h); NAME is the op's name for errors.
#define SAMPAN_BINARY_CUDA(NAME, FN) \
  .cuda([](const Tensor& x, const Tensor& y, Tensor& out) { ::sampan::detail::binary_on_cuda<FN>(NAME, x, y, out); })
#define SAMPAN_UNARY_CUDA(NAME, FN) \
  .cuda([](const Tensor& x, Tensor& out) { ::sampan::detail::unary_on_cuda<FN>(NAME, x, out); })

#else

#define SAMPAN_BINARY_CUDA(NAME, FN)
#define SAMPAN_UNARY_CUDA(NAME, FN)

#endif  // SAMPAN_CUDA_KERNELS
