// sampan: creation ops (core::full, core::arange) and the creation helpers built on them.
#include <cmath>

#include "sampan/ops.h"
#include "elementwise_support.h"

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
  if (step == 0) throw ValueError("arange step must not be zero");
  double n = std::ceil((end - start) / step);
  return n > 0 ? static_cast<int64_t>(n) : 0;
}

}  // namespace

SAMPAN_OP(core, full)
    .doc("A tensor of `shape` filled with `value`.")
    .args("shape", "value", "dtype")
    .outputs("out")
    .shape([](const std::vector<int64_t>& shape, double, const std::string& dtype) {
      for (auto s : shape)
        if (s < 0) throw ValueError("negative dimension in shape " + shape_str(shape));
      return TensorSpec{shape, dtype_from_name(dtype)};
    })
    .cpu(fill_kernel)
    .nondifferentiable();

SAMPAN_OP(core, arange)
    .doc("Values from `start` to `end` (exclusive) by `step`.")
    .args("start", "end", "step", "dtype")
    .outputs("out")
    .shape([](double start, double end, double step, const std::string& dtype) {
      return TensorSpec{{arange_length(start, end, step)}, dtype_from_name(dtype)};
    })
    .cpu([](double start, double, double step, const std::string&, Tensor& out) {
      visit_real(out.dtype(), "core::arange", [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* p = out.data<T>();
        for (int64_t i = 0; i < out.numel(); ++i) p[i] = static_cast<T>(start + static_cast<double>(i) * step);
      });
    })
    .nondifferentiable();

Tensor full(const Shape& shape, double value, DType dtype, Device device) {
  static OpHandle op("core::full");
  if (!device.is_cpu()) throw NotImplementedError("full on " + device.str() + " is not built yet");
  return op(shape, value, std::string(dtype_name(dtype)))[0];
}
Tensor zeros(const Shape& shape, DType dtype, Device device) { return full(shape, 0.0, dtype, device); }
Tensor ones(const Shape& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.dtype(), t.device()); }
Tensor full_like(const Tensor& t, double value) { return full(t.shape(), value, t.dtype(), t.device()); }
Tensor scalar_tensor(double value, DType dtype, Device device) { return full({}, value, dtype, device); }

Tensor arange(double start, double end, double step, DType dtype, Device) {
  static OpHandle op("core::arange");
  return op(start, end, step, std::string(dtype_name(dtype)))[0];
}

Tensor from_vector(const std::vector<double>& values, const Shape& shape, DType dtype) {
  if (shape_numel(shape) != static_cast<int64_t>(values.size()))
    throw ValueError("from_vector: " + std::to_string(values.size()) + " values do not fill shape " +
                     shape_str(shape));
  Tensor t = Tensor::empty(shape, DType::Float64);
  std::copy(values.begin(), values.end(), t.data<double>());
  return t.to(dtype);
}

}  // namespace sampan
