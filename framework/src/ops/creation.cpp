// sampan: creation ops (core::full, arange, linspace, eye, one_hot) and the creation helpers
// built on them. None is differentiable: their outputs depend on no tensor that could need a gradient.
#include <algorithm>
#include <cmath>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "sample_support.h"
#include "../kernels/creation_element.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "cuda_support.h"
#include "device_elements.h"
#include "../kernels/creation_kernels_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

void fill_kernel(const std::vector<int64_t>&, double value, const std::string&, Tensor& out) {
  visit_all(out.dtype(), "core::full", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T v = detail::convert_value<T>(value);
    T* p = out.data<T>();
    const int64_t n = out.numel();
#pragma omp parallel for if (n > kernels::kParallelGrain)
    for (int64_t i = 0; i < n; ++i) p[i] = v;
  });
}

int64_t arange_length(double start, double end, double step) {
  SAMPAN_CHECK(step != 0, ValueError, "arange step must not be zero");
  double n = std::ceil((end - start) / step);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

// out[i] = element i of an index-made op (kernels/creation_element.h), converted as every cast.
template <class F> void fill_by_index(Tensor& out, const char* op, F f) {
  visit_all(out.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (int64_t i = 0; i < out.numel(); ++i) p[i] = detail::convert_value<T>(f(i));
  });
}

#if defined(SAMPAN_CUDA_KERNELS)
// The same on the GPU (kernels/creation_kernels.cu).
template <class F> void fill_by_index_on_cuda(Tensor& out, const char* op, F f) {
  detail::visit_storage_element(out.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    cuda_support::run_device([&] { kernels::index_values_cuda<T, F>(static_cast<T*>(out.raw_data()), out.numel(), f); });
  });
}
#endif

}  // namespace

SAMPAN_OP(core, full)
    .doc("A tensor of `shape` filled with `value`.")
    .args("shape", "value", "dtype")
    .defaults({{"dtype", "float32"}})
    .outputs("out")
    .shape([](const std::vector<int64_t>& shape, double, const std::string& dtype) {
      for (auto s : shape)
        SAMPAN_CHECK(s >= 0, ValueError, "negative dimension in shape ", shape_str(shape));
      return TensorSpec{shape, dtype_from_name(dtype)};
    })
    .cpu(fill_kernel)
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{IntList{2, 2}, 1.5, std::string("float32")}}; });

SAMPAN_OP(core, arange)
    .doc("Values from `start` to `end` (exclusive) by `step`, made on `device`.")
    .args("start", "end", "step", "dtype", "device")
    .defaults({{"step", 1.0}, {"dtype", "int64"}, {"device", "cpu"}})
    .outputs("out")
    .shape([](double start, double end, double step, const std::string& dtype, const std::string& device) {
      return TensorSpec{{arange_length(start, end, step)}, dtype_from_name(dtype), Device::parse(device)};
    })
    .cpu([](double start, double, double step, const std::string&, const std::string&, Tensor& out) {
      fill_by_index(out, "core::arange", kernels::ArangeValue{start, step});
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](double start, double, double step, const std::string&, const std::string&, Tensor& out) {
      fill_by_index_on_cuda(out, "core::arange", kernels::ArangeValue{start, step});
    })
#endif
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{0.0, 5.0, 1.5, std::string("float64"), std::string("cpu")}}; });

SAMPAN_OP(core, linspace)
    .doc("`steps` values evenly spaced from `start` to `end`, both included, made on `device`.")
    .args("start", "end", "steps", "dtype", "device")
    .defaults({{"dtype", "float32"}, {"device", "cpu"}})
    .outputs("out")
    .shape([](double, double, int64_t steps, const std::string& dtype, const std::string& device) {
      SAMPAN_CHECK(steps >= 0, ValueError, "linspace: steps must be >= 0, got ", steps);
      return TensorSpec{{steps}, dtype_from_name(dtype), Device::parse(device)};
    })
    .cpu([](double start, double end, int64_t steps, const std::string&, const std::string&, Tensor& out) {
      fill_by_index(out, "core::linspace", kernels::LinspaceValue{start, end, steps});
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](double start, double end, int64_t steps, const std::string&, const std::string&, Tensor& out) {
      fill_by_index_on_cuda(out, "core::linspace", kernels::LinspaceValue{start, end, steps});
    })
#endif
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{0.0, 1.0, int64_t(5), std::string("float64"), std::string("cpu")}}; });

SAMPAN_OP(core, eye)
    .doc("An n x m matrix with ones on the main diagonal (m = -1: square), made on `device`.")
    .args("n", "m", "dtype", "device")
    .defaults({{"m", -1}, {"dtype", "float32"}, {"device", "cpu"}})  // m = -1: square
    .outputs("out")
    .shape([](int64_t n, int64_t m, const std::string& dtype, const std::string& device) {
      if (n < 0 || m < -1) SAMPAN_THROW(ValueError, "eye: sizes must be >= 0, got n = ", n, ", m = ", m);
      return TensorSpec{{n, m < 0 ? n : m}, dtype_from_name(dtype), Device::parse(device)};
    })
    .cpu([](int64_t, int64_t, const std::string&, const std::string&, Tensor& out) {
      fill_by_index(out, "core::eye", kernels::EyeValue{std::max<int64_t>(out.shape()[1], 1)});
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](int64_t, int64_t, const std::string&, const std::string&, Tensor& out) {
      fill_by_index_on_cuda(out, "core::eye", kernels::EyeValue{std::max<int64_t>(out.shape()[1], 1)});
    })
#endif
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{int64_t(3), int64_t(2), std::string("float32"), std::string("cpu")}}; });

SAMPAN_OP(core, one_hot)
    .doc("out[..., c] = 1 where c == index[...] else 0, int64 with shape index.shape + "
         "[num_classes] (num_classes = -1: max(index) + 1).")
    .args("index", "num_classes")
    .defaults({{"num_classes", -1}})  // -1: max(index) + 1
    .outputs("out")
    .shape([](const TensorSpec& index, int64_t num_classes) {
      if (!is_integral(index.dtype))
        SAMPAN_THROW(TypeError, "one_hot: index must be an int32 or int64 tensor, got ", dtype_name(index.dtype));
      SAMPAN_CHECK(num_classes >= -1, ValueError, "one_hot: num_classes must be >= 0 (or -1 to infer it), got ", num_classes);
      Shape s = index.shape;
      s.push_back(num_classes);
      return TensorSpec{s, DType::Int64, index.device};
    })
    .cpu([](const Tensor& index, int64_t num_classes, Tensor& out) {
      Tensor ic = cast(index, DType::Int64).contiguous();
      const int64_t* ip = ic.data<int64_t>();
      const int64_t n = ic.numel();
      if (num_classes < 0) {
        num_classes = 0;
        for (int64_t i = 0; i < n; ++i) num_classes = std::max(num_classes, ip[i] + 1);
      }
      for (int64_t i = 0; i < n; ++i)
        if (ip[i] < 0 || ip[i] >= num_classes)
          SAMPAN_THROW(IndexError, "one_hot: class index ", ip[i], " (at position ", i,
                       ") is out of range for num_classes ", num_classes);
      if (!out.defined()) {
        Shape s = index.shape();
        s.push_back(num_classes);
        out = Tensor::empty(s, DType::Int64, index.device());
      }
      int64_t* p = out.data<int64_t>();
      std::fill(p, p + out.numel(), int64_t(0));
      for (int64_t i = 0; i < n; ++i) p[i * num_classes + ip[i]] = 1;
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& index, int64_t num_classes, Tensor& out) {
      // the range check and an inferred num_classes read the index on the host; then
      // out = (index[..., None] == [0, C)) on the device, exactly
      const Tensor host = to_device(cast(index, DType::Int64).contiguous(), cpu_device());
      const int64_t* ip = host.data<int64_t>();
      if (num_classes < 0) {
        num_classes = 0;
        for (int64_t i = 0; i < host.numel(); ++i) num_classes = std::max(num_classes, ip[i] + 1);
      }
      for (int64_t i = 0; i < host.numel(); ++i)
        SAMPAN_CHECK(ip[i] >= 0 && ip[i] < num_classes, IndexError, "one_hot: class index ", ip[i], " (at position ", i,
                     ") is out of range for num_classes ", num_classes);
      const Tensor classes = arange(0, static_cast<double>(num_classes), 1.0, DType::Int64, index.device());
      const Tensor hot = cast(eq(unsqueeze(cast(index, DType::Int64), -1), classes), DType::Int64);
      if (out.defined()) copy_(out, hot);
      else out = hot;
    })
#endif
    .nondifferentiable()
    .samples([] { return std::vector<Values>{{from_vector({2, 0, 1}, {3}, DType::Int64), int64_t(4)}}; });

Tensor full(const Shape& shape, double value, DType dtype, Device device) {
  static OpHandle op("core::full");
  if (device.is_cpu()) return op(shape, value, std::string(dtype_name(dtype)))[0];
  // Elsewhere: the value made once here, moved, and broadcast into a fresh tensor there by the
  // device's conversion kernel (core::contiguous), so no host buffer of the full size is made.
  for (auto s : shape) SAMPAN_CHECK(s >= 0, ValueError, "negative dimension in shape ", shape_str(shape));
  Tensor one = to_device(op(Shape{}, value, std::string(dtype_name(dtype)))[0], device);
  return shape.empty() ? one : broadcast_to(one, shape).contiguous();
}
Tensor zeros(const Shape& shape, DType dtype, Device device) { return full(shape, 0.0, dtype, device); }
Tensor ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.dtype(), t.device()); }
Tensor full_like(const Tensor& t, double value) { return full(t.shape(), value, t.dtype(), t.device()); }
Tensor scalar_tensor(double value, DType dtype, Device device) { return full({}, value, dtype, device); }

Tensor arange(double start, double end, double step, DType dtype, Device device) {
  static OpHandle op("core::arange");
  return op(start, end, step, std::string(dtype_name(dtype)), device.str())[0];
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
  static OpHandle op("core::linspace");
  return op(start, end, steps, std::string(dtype_name(dtype)))[0];
}
Tensor eye(int64_t n, int64_t m, DType dtype) {
  static OpHandle op("core::eye");
  return op(n, m, std::string(dtype_name(dtype)))[0];
}
Tensor one_hot(const Tensor& index, int64_t num_classes) {
  static OpHandle op("core::one_hot");
  return op(index, num_classes)[0];
}

Tensor from_vector(const std::vector<double>& values, const Shape& shape, DType dtype) {
  if (shape_numel(shape) != static_cast<int64_t>(values.size()))
    SAMPAN_THROW(ValueError, "from_vector: ", values.size(), " values do not fill shape ",
                 shape_str(shape));
  Tensor t = Tensor::empty(shape, DType::Float64);
  std::copy(values.begin(), values.end(), t.data<double>());
  return t.to(dtype);
}

}  // namespace sampan
