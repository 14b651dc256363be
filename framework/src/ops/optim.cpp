// sampan: fused optimizer steps (core::adam_update_). sampan.optim.Adam/AdamW call it per
// parameter; the same update written with tensor ops made ~13 passes over the parameter with 7
// temporaries (the step of a 1.9M-parameter GIN: 30 ms, this op: a few ms).
#include "sampan/ops.h"
#include "cuda_support.h"
#include "elementwise_support.h"
#include "../kernels/optim_kernels.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "../kernels/optim_kernels_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

// The state is written in place, so it must be contiguous; the gradient may be any layout.
void require_contiguous_state(const Tensor& param, const Tensor& exp_avg, const Tensor& exp_avg_sq) {
  for (const Tensor* t : {&param, &exp_avg, &exp_avg_sq})
    SAMPAN_CHECK(t->is_contiguous(), ValueError,
                 "adam_update_: the parameter and its state must be contiguous (got a strided view)");
}

void check_same(const TensorSpec& param, const TensorSpec& other, const char* name) {
  if (other.shape != param.shape || other.dtype != param.dtype)
    SAMPAN_THROW(ValueError, "adam_update_: '", name, "' has shape ", shape_str(other.shape),
                 " and dtype ", dtype_name(other.dtype), " but the parameter has shape ",
                 shape_str(param.shape), " and dtype ", dtype_name(param.dtype));
}

}  // namespace

SAMPAN_OP(core, adam_update_)
    .doc("One Adam step in place: m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g^2, p -= lr / (1 - "
         "b1^step) * m / (sqrt(v) / sqrt(1 - b2^step) + eps); weight_decay adds wd p to g, or with "
         "decoupled scales p by 1 - lr wd first (AdamW); maximize ascends. All four tensors share "
         "shape and dtype (float32/float64); step counts this update (>= 1).")
    .args("param", "grad", "exp_avg", "exp_avg_sq", "lr", "beta1", "beta2", "eps", "weight_decay", "step",
          "decoupled", "maximize")
    .outputs("param", "exp_avg", "exp_avg_sq")
    .inplace(0, 0)
    .inplace(1, 2)
    .inplace(2, 3)
    .nondifferentiable()
    .dtypes({DType::Float32, DType::Float64})
    .shape([](const TensorSpec& param, const TensorSpec& grad, const TensorSpec& exp_avg,
              const TensorSpec& exp_avg_sq, double, double, double, double, double, int64_t step, bool, bool) {
      if (param.dtype != DType::Float32 && param.dtype != DType::Float64)
        SAMPAN_THROW(TypeError, "adam_update_: the parameter must be float32 or float64, got ", dtype_name(param.dtype));
      check_same(param, grad, "grad");
      check_same(param, exp_avg, "exp_avg");
      check_same(param, exp_avg_sq, "exp_avg_sq");
      SAMPAN_CHECK(step >= 1, ValueError, "adam_update_: step counts this update and must be >= 1, got ", step);
      return std::vector<TensorSpec>{param, exp_avg, exp_avg_sq};
    })
    .cpu([](const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, double lr,
            double beta1, double beta2, double eps, double weight_decay, int64_t step, bool decoupled,
            bool maximize, Tensor& param_out, Tensor& exp_avg_out, Tensor& exp_avg_sq_out) {
      require_contiguous_state(param, exp_avg, exp_avg_sq);
      Tensor g = contiguous(grad);
      kernels::AdamStep s{lr, beta1, beta2, eps, weight_decay, step, decoupled, maximize};
      visit_floating(param.dtype(), "adam_update_", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::adam_update<T>(param.numel(), param_out.data<T>(), g.data<T>(), exp_avg_out.data<T>(),
                                exp_avg_sq_out.data<T>(), s);
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq, double lr,
             double beta1, double beta2, double eps, double weight_decay, int64_t step, bool decoupled,
             bool maximize, Tensor& param_out, Tensor& exp_avg_out, Tensor& exp_avg_sq_out) {
      require_contiguous_state(param, exp_avg, exp_avg_sq);
      Tensor g = contiguous(grad);  // on the GPU: the conversion kernel
      const kernels::AdamStep s{lr, beta1, beta2, eps, weight_decay, step, decoupled, maximize};
      cuda_support::visit_cuda_dtype(param.dtype(), "core::adam_update_", true, [&](auto tag) {
        using T = typename decltype(tag)::type;
        cuda_support::run_device([&] {
          kernels::adam_update_cuda<T>(param.numel(), param_out.data<T>(), g.data<T>(), exp_avg_out.data<T>(),
                                       exp_avg_sq_out.data<T>(), kernels::adam_coefficients<T>(s));
        });
      });
    })
#endif
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({2, 3}, -1.0, 0.31), f64({2, 3}, 0.1, 0.05), f64({2, 3}, 0.2, 0.02), 1e-2, 0.9, 0.999, 1e-8, 0.0, int64_t(3), false, false},
                                                             {f64({4}), f64({4}, -1.0, 0.31), f64({4}, 0.1, 0.05), f64({4}, 0.2, 0.02), 1e-2, 0.8, 0.99, 1e-6, 0.1, int64_t(1), true, true}}; });

}  // namespace sampan
