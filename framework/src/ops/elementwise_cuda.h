// The op layer of the CUDA elementwise twins (kernels/elementwise_kernels.cu): dtype checks, the
// strided layout, the launch, and the macros that add a twin to an op declaration, for
// binary.cpp, unary.cpp, activation.cpp and compare.cpp. Without nvcc the macros add nothing.
#pragma once

#if defined(SAMPAN_CUDA_KERNELS)

#include <type_traits>

#include "sampan/ops.h"
#include "cuda_support.h"
#include "device_elements.h"
#include "elementwise_support.h"
#include "strided_layout.h"
#include "../kernels/binary_element.h"
#include "sampan/complex_element.h"
#include "../kernels/convert_element.h"
#include "../kernels/elementwise_kernels_cuda.h"
#include "../kernels/math_element.h"
#include "../kernels/unary_element.h"

namespace sampan::detail {

// The functions instantiated for complex elements too (elementwise_kernels.cu): those whose
// complex arithmetic gives std::complex's bits (division: away from overflow and underflow,
// kernels/binary_element.h), and exp, log and pow (to rounding, as their ops declare;
// kernels/math_element.h).
template <class F>
constexpr bool kComplexOnCuda = std::is_same_v<F, kernels::AddElement> || std::is_same_v<F, kernels::SubElement> ||
                                std::is_same_v<F, kernels::MulElement> || std::is_same_v<F, kernels::DivElement> ||
                                std::is_same_v<F, kernels::NegElement> ||
                                std::is_same_v<F, kernels::SquareElement> || std::is_same_v<F, kernels::ConjElement> ||
                                std::is_same_v<F, kernels::ExpElement> || std::is_same_v<F, kernels::LogElement> ||
                                std::is_same_v<F, kernels::PowRealElement>;

// The functions of kernels/math_element.h, instantiated for float32 and float64 only (their
// outputs are floating; an integer input is converted first).
template <class F>
constexpr bool kFloatingOnlyOnCuda =
    std::is_same_v<F, kernels::ExpElement> || std::is_same_v<F, kernels::LogElement> ||
    std::is_same_v<F, kernels::Log1pElement> || std::is_same_v<F, kernels::Expm1Element> ||
    std::is_same_v<F, kernels::SqrtElement> || std::is_same_v<F, kernels::RsqrtElement> ||
    std::is_same_v<F, kernels::SinElement> || std::is_same_v<F, kernels::CosElement> ||
    std::is_same_v<F, kernels::TanElement> || std::is_same_v<F, kernels::TanhElement> ||
    std::is_same_v<F, kernels::ErfElement> || std::is_same_v<F, kernels::ReciprocalElement> ||
    std::is_same_v<F, kernels::SigmoidElement> || std::is_same_v<F, kernels::GeluElement> ||
    std::is_same_v<F, kernels::SiluElement> || std::is_same_v<F, kernels::Atan2Element>;

// Calls launch(Tag<element type>) for out's dtype on the GPU, or raises naming the op.
template <class F, class Launch> void visit_elementwise_cuda(const char* name, DType dtype, Launch launch) {
  if constexpr (kComplexOnCuda<F>) {
    if (dtype == DType::Complex64) return launch(cuda_support::Tag<kernels::ComplexElement<float>>{});
    if (dtype == DType::Complex128) return launch(cuda_support::Tag<kernels::ComplexElement<double>>{});
  }
  if constexpr (kFloatingOnlyOnCuda<F>) {
    // floating_only refuses integers at run time; the filter keeps them from being instantiated
    cuda_support::visit_cuda_dtype(dtype, name, true, [&](auto tag) {
      if constexpr (std::is_floating_point_v<typename decltype(tag)::type>) launch(tag);
    });
  } else {
    cuda_support::visit_cuda_dtype(dtype, name, false, launch);
  }
}

// `t` in `dtype`, converted on the GPU when it has another (core::cast), as the CPU kernels do.
inline Tensor in_dtype(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : cast(t, dtype); }

/// dst = src converted to dst's dtype, src broadcast to dst's shape, on the GPU (cast, clone,
/// copy_, contiguous): any strides.
inline void convert_on_cuda(const char* name, const Tensor& src, const Tensor& dst) {
  const kernels::StridedLayout<2> layout = strided_layout<2>(name, dst, {&src});
  visit_storage_element(src.dtype(), name, [&](auto in_tag) {
    using In = typename decltype(in_tag)::type;
    visit_storage_element(dst.dtype(), name, [&](auto out_tag) {
      using Out = typename decltype(out_tag)::type;
      cuda_support::run_device([&] {
        kernels::convert_cuda<In, Out>(layout, dst.numel(), static_cast<Out*>(dst.raw_data()),
                                       static_cast<const In*>(src.raw_data()));
      });
    });
  });
}

// float16 and bfloat16 are storage types whose arithmetic runs in float32, on the CPU as here:
// a twin whose output is one computes into a float32 tensor, rounded into `out` once. Returns
// false (nothing done) for other dtypes.
template <class Compute> bool through_float32(const char* name, const Tensor& out, Compute compute) {
  if (!is_half(out.dtype())) return false;
  Tensor wide = Tensor::empty(out.shape(), DType::Float32, out.device());
  compute(wide);
  convert_on_cuda(name, wide, out);
  return true;
}

/// out = F{}(x, y) on the GPU, any strides and broadcasting; inputs of another dtype are
/// converted first.
template <class F> void binary_on_cuda(const char* name, const Tensor& x_in, const Tensor& y_in, const Tensor& out) {
  if (through_float32(name, out, [&](const Tensor& wide) { binary_on_cuda<F>(name, x_in, y_in, wide); })) return;
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
  if (through_float32(name, out, [&](const Tensor& wide) { unary_on_cuda<F>(name, x_in, wide); })) return;
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

/// out = make(Tag<T>{})(x) on the GPU, any strides: a per-element function with parameters in
/// T (clamp's bounds, softplus's beta); x converted to out's dtype first. float32 and float64,
/// and unless FloatingOnly int32 and int64.
template <bool FloatingOnly, class Make>
void unary_with_on_cuda(const char* name, const Tensor& x_in, const Tensor& out, Make make) {
  if (through_float32(name, out, [&](const Tensor& wide) { unary_with_on_cuda<FloatingOnly>(name, x_in, wide, make); }))
    return;
  const Tensor x = in_dtype(x_in, out.dtype());
  const kernels::StridedLayout<2> layout = strided_layout<2>(name, out, {&x});
  cuda_support::visit_cuda_dtype(out.dtype(), name, FloatingOnly, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!FloatingOnly || std::is_floating_point_v<T>) {
      const auto f = make(tag);
      cuda_support::run_device([&] {
        kernels::unary_cuda<std::decay_t<decltype(f)>, T>(layout, out.numel(), static_cast<T*>(out.raw_data()),
                                                        static_cast<const T*>(x.raw_data()), f);
      });
    }
  });
}

/// out = F{}(x, y) as bool on the GPU (the comparisons: x and y promoted to their common dtype
/// first, as on the CPU; the logical ops: both read as truth values).
template <class F> void compare_on_cuda(const char* name, const Tensor& x_in, const Tensor& y_in, DType common,
                                        const Tensor& out) {
  if (is_half(common)) common = DType::Float32;  // exact: every 16-bit value is a float32
  const Tensor x = in_dtype(x_in, common), y = in_dtype(y_in, common);
  const kernels::StridedLayout<3> layout = strided_layout<3>(name, out, {&x, &y});
  constexpr bool ordering = std::is_same_v<F, kernels::LtElement> || std::is_same_v<F, kernels::LeElement> ||
                            std::is_same_v<F, kernels::GtElement> || std::is_same_v<F, kernels::GeElement>;
  constexpr bool logical = std::is_same_v<F, kernels::LogicalAndElement> || std::is_same_v<F, kernels::LogicalOrElement> ||
                           std::is_same_v<F, kernels::LogicalXorElement>;
  visit_device_element(common, name, [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr bool complex = !std::is_arithmetic_v<T>;
    if constexpr ((logical && !std::is_same_v<T, bool>) || (ordering && complex)) {
      SAMPAN_THROW(RuntimeError, name, ": internal error: no CUDA kernel over ", dtype_name(common));
    } else {
      cuda_support::run_device([&] {
        kernels::compare_cuda<F, T>(layout, out.numel(), static_cast<bool*>(out.raw_data()),
                                    static_cast<const T*>(x.raw_data()), static_cast<const T*>(y.raw_data()));
      });
    }
  });
}

/// out = cond ? x : y on the GPU (core::where), x and y converted to out's dtype first.
inline void where_on_cuda(const Tensor& cond, const Tensor& x_in, const Tensor& y_in, const Tensor& out) {
  const Tensor x = in_dtype(x_in, out.dtype()), y = in_dtype(y_in, out.dtype());
  const kernels::StridedLayout<4> layout = strided_layout<4>("core::where", out, {&cond, &x, &y});
  visit_storage_element(out.dtype(), "core::where", [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_support::run_device([&] {
      kernels::where_cuda<T>(layout, out.numel(), static_cast<T*>(out.raw_data()),
                             static_cast<const bool*>(cond.raw_data()), static_cast<const T*>(x.raw_data()),
                             static_cast<const T*>(y.raw_data()));
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
/// The same for the functions of a math library (kernels/math_element.h: exp, log, tanh ...),
/// whose CUDA results are the CPU's to rounding, not its bits.
#define SAMPAN_UNARY_CUDA_ROUNDING(NAME, FN) SAMPAN_UNARY_CUDA(NAME, FN).cuda_rounds_differently()

#else

#define SAMPAN_BINARY_CUDA(NAME, FN)
#define SAMPAN_UNARY_CUDA(NAME, FN)
#define SAMPAN_UNARY_CUDA_ROUNDING(NAME, FN)

#endif  // SAMPAN_CUDA_KERNELS
