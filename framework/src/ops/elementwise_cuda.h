// The op layer of the CUDA elementwise twins (kernels/elementwise_kernels.cu): dtype checks, the
// strided layout, the launch, and the macros that add a twin to an op declaration, for
// binary.cpp, unary.cpp and activation.cpp. Without nvcc the macros add nothing.
#pragma once

#if defined(SAMPAN_CUDA_KERNELS)

#include <type_traits>

#include "sampan/ops.h"
#include "cuda_support.h"
#include "device_elements.h"
#include "strided_layout.h"
#include "../kernels/binary_element.h"
#include "../kernels/complex_element.h"
#include "../kernels/convert_element.h"
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

// `t` in `dtype`, converted on the GPU when it has another (core::cast), as the CPU kernels do.
inline Tensor in_dtype(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : cast(t, dtype); }

/// dst = src converted to dst's dtype, src broadcast to dst's shape, on the GPU (cast, clone,
/// copy_, contiguous): any strides.
inline void convert_on_cuda(const char* name, const Tensor& src, const Tensor& dst) {
  const kernels::StridedLayout<2> layout = strided_layout<2>(name, dst, {&src});
  visit_device_element(src.dtype(), name, [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    visit_device_element(dst.dtype(), name, [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      cuda_support::run_device([&] {
        kernels::convert_cuda<In, Out>(layout, dst.numel(), static_cast<Out*>(dst.raw_data()),
                                       static_cast<const In*>(src.raw_data()));
      });
    });
  });
}

/// out = F{}(x, y) on the GPU, any strides and broadcasting; inputs of another dtype are
/// converted first.
template <class F> void binary_on_cuda(const char* name, const Tensor& x_in, const Tensor& y_in, const Tensor& out) {
  const Tensor x = in_dtype(x_in, out.dtype()), y = in_dtype(y_in, out.dtype());
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
template <class F> void unary_on_cuda(const char* name, const Tensor& x_in, const Tensor& out) {
  const Tensor x = in_dtype(x_in, out.dtype());
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
