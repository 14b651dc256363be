// sampan: batch normalization in training as fused ops (core::batch_norm_train and its gradient
// core::batch_norm_train_backward) over [n, c] inputs: the statistics, normalization and affine
// map in one op instead of ~10 elementwise ops and reductions (BatchNorm was the largest non-GEMM
// cost of a GIN training step after the GEMMs). sampan.nn.functional.batch_norm calls it in
// training for 2-D inputs; evaluation (running statistics) stays the elementwise composition.
// Kernels: ../kernels/batch_norm_kernels.h (CPU), batch_norm_kernels.cu (CUDA twin, where nvcc
// exists; on an H200 it gave the CPU's bits, docs/gpu.md).
//
// Gradients: batch_norm_train's vjp calls the fused backward op when no graph of the gradient is
// being recorded, and the same formula written with ops when it is (create_graph=True), so the
// forward op is differentiable to any order. The backward op itself is once-differentiable (its
// vjp differentiates that composition and cannot be differentiated again).
#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/batch_norm_kernels.h"
#include "cuda_support.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "../kernels/batch_norm_kernels_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

void check_float(const char* op, const char* name, const TensorSpec& t) {
  if (t.dtype != DType::Float32 && t.dtype != DType::Float64)
    SAMPAN_THROW(TypeError, op, ": '", name, "' must be float32 or float64, got ", dtype_name(t.dtype));
}

// x is [n, c] with n >= 1; `names` of per-channel tensors must be [c] of x's dtype.
void check_batch_norm_args(const char* op, const TensorSpec& x, std::initializer_list<std::pair<const char*, const TensorSpec*>> channel,
                           std::initializer_list<std::pair<const char*, const TensorSpec*>> like_x) {
  check_float(op, "x", x);
  SAMPAN_CHECK(x.dim() == 2, ValueError, op, ": x must be 2-D (N, C), got shape ", shape_str(x.shape),
               " ((N, C, L) inputs use the composition in sampan.nn.functional.batch_norm)");
  SAMPAN_CHECK(x.shape[0] >= 1, ValueError, op, ": x needs at least one row (N >= 1), got shape ", shape_str(x.shape));
  for (auto [name, t] : channel)
    if (t->shape != Shape{x.shape[1]} || t->dtype != x.dtype)
      SAMPAN_THROW(ValueError, op, ": '", name, "' must be ", dtype_name(x.dtype), " [",
                   x.shape[1], "] (one per channel of x ", shape_str(x.shape), "), got ",
                   dtype_name(t->dtype), " ", shape_str(t->shape));
  for (auto [name, t] : like_x)
    if (t->shape != x.shape || t->dtype != x.dtype)
      SAMPAN_THROW(ValueError, op, ": '", name, "' must be ", dtype_name(x.dtype), " ", shape_str(x.shape),
                   " like x, got ", dtype_name(t->dtype), " ", shape_str(t->shape));
}

void check_eps(const char* op, double eps) {
  SAMPAN_CHECK(eps >= 0.0, ValueError, op, ": eps must be >= 0, got ", std::to_string(eps));
}

Tensor batch_norm_train_backward_op(const Tensor& x, const Tensor& grad_out, const Tensor& mean, const Tensor& var,
                                    const Tensor& weight, double eps, const Tensor& grad_mean, const Tensor& grad_var,
                                    Tensor* grad_weight, Tensor* grad_bias) {
  static OpHandle op("core::batch_norm_train_backward");
  auto r = op(x, grad_out, mean, var, weight, eps, grad_mean, grad_var);
  *grad_weight = r[1];
  *grad_bias = r[2];
  return r[0];
}

// The gradients of (x, weight, bias) written with ops (so differentiable again), from those of
// the outputs (out, mean, var) of batch_norm_train. d = x - mean, invstd = 1 / sqrt(var + eps),
// xhat = d invstd, gw = grad_out * weight:
//   grad_x = invstd (gw - mean_n(gw) - xhat mean_n(gw xhat)) + grad_mean / n + 2 grad_var d / n
//   grad_weight = sum_n(grad_out xhat), grad_bias = sum_n(grad_out)
Grads batch_norm_grads_composite(const Tensor& x, const Tensor& grad_out, const Tensor& mean, const Tensor& var,
                                 const Tensor& weight, double eps, const Tensor& grad_mean, const Tensor& grad_var) {
  const double n = static_cast<double>(x.shape()[0]);
  Tensor d = x - mean;
  Tensor invstd = rsqrt(var + eps);
  Tensor xhat = d * invstd;
  Tensor gw = grad_out * weight;
  Tensor gx = invstd * (gw - sampan::mean(gw, {0}, false) - xhat * sampan::mean(gw * xhat, {0}, false));
  gx = gx + grad_mean * (1.0 / n) + d * (grad_var * (2.0 / n));
  return {gx, sum(grad_out * xhat, {0}, false), sum(grad_out, {0}, false)};
}

}  // namespace

SAMPAN_OP(core, batch_norm_train)
    .amp(AmpCast::Float32)
    .doc("Batch normalization in training over the rows of x (N, C): mean and biased var per "
         "column, out = (x - mean) / sqrt(var + eps) * weight + bias (Ioffe and Szegedy 2015). "
         "Returns (out, mean, var); one fused pass per statistic instead of the elementwise "
         "composition. Differentiable to any order (the gradient's graph, when recorded, is the "
         "composition; otherwise core::batch_norm_train_backward runs).")
    .args("x", "weight", "bias", "eps")
    .defaults({{"eps", 1e-5}})
    .outputs("out", "mean", "var")
    .dtypes({DType::Float32, DType::Float64})
    .shape([](const TensorSpec& x, const TensorSpec& weight, const TensorSpec& bias, double eps) {
      check_batch_norm_args("batch_norm_train", x, {{"weight", &weight}, {"bias", &bias}}, {});
      check_eps("batch_norm_train", eps);
      TensorSpec stat{{x.shape[1]}, x.dtype, x.device};
      return std::vector<TensorSpec>{x, stat, stat};
    })
    .cpu([](const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, Tensor& out, Tensor& mean,
            Tensor& var) {
      Tensor xc = x.contiguous(), wc = weight.contiguous(), bc = bias.contiguous();
      visit_floating(x.dtype(), "core::batch_norm_train", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::batch_norm_train_forward<T>(xc.data<T>(), x.shape()[0], x.shape()[1], wc.data<T>(), bc.data<T>(),
                                             static_cast<T>(eps), out.data<T>(), mean.data<T>(), var.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& weight, const Tensor& bias, double eps, Tensor& out, Tensor& mean,
             Tensor& var) {
      const char* op = "core::batch_norm_train";
      cuda_support::require_contiguous(op, "x", x);
      cuda_support::require_contiguous(op, "weight", weight);
      cuda_support::require_contiguous(op, "bias", bias);
      cuda_support::visit_cuda_dtype(x.dtype(), op, true, [&](auto tag) {
        using T = typename decltype(tag)::type;
        cuda_support::run_device([&] {
          kernels::batch_norm_train_forward_cuda<T>(x.data<T>(), x.shape()[0], x.shape()[1], weight.data<T>(),
                                                    bias.data<T>(), static_cast<T>(eps), out.data<T>(), mean.data<T>(),
                                                    var.data<T>());
        });
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), weight = c.input(1), g = c.grad_output(0);
      const double eps = c.attr<double>(3);
      if (grad_mode_enabled())  // a graph of the gradient is recorded: the composition (differentiable)
        return batch_norm_grads_composite(x, g, c.output(1), c.output(2), weight, eps, c.grad_output(1),
                                          c.grad_output(2));
      Tensor gw, gb;
      Tensor gx = batch_norm_train_backward_op(x, g, c.output(1).detach(), c.output(2).detach(), weight, eps,
                                               c.grad_output(1), c.grad_output(2), &gw, &gb);
      return {gx, gw, gb};
    })
    .samples([] { return std::vector<Values>{{f64({5, 3}, -1.0, 0.31), f64({3}, 0.5, 0.4), f64({3}, -0.2, 0.3), 1e-5},
                                                                 {f64({4, 2}), f64({2}, 1.2, -0.5), f64({2}, 0.1), 0.1}}; })
    .saves_for_vjp({"x", "weight", "mean", "var"});

SAMPAN_OP(core, batch_norm_train_backward)
    .doc("The gradient of core::batch_norm_train in two fused passes: from x, grad_out (N, C), the "
         "forward's mean and var and the gradients of those two outputs (C), returns (grad_x, "
         "grad_weight, grad_bias). Once-differentiable.")
    .args("x", "grad_out", "mean", "var", "weight", "eps", "grad_mean", "grad_var")
    .outputs("grad_x", "grad_weight", "grad_bias")
    .dtypes({DType::Float32, DType::Float64})
    .once_differentiable()
    .shape([](const TensorSpec& x, const TensorSpec& grad_out, const TensorSpec& mean, const TensorSpec& var,
              const TensorSpec& weight, double eps, const TensorSpec& grad_mean, const TensorSpec& grad_var) {
      check_batch_norm_args("batch_norm_train_backward", x,
                            {{"mean", &mean}, {"var", &var}, {"weight", &weight}, {"grad_mean", &grad_mean},
                             {"grad_var", &grad_var}},
                            {{"grad_out", &grad_out}});
      check_eps("batch_norm_train_backward", eps);
      TensorSpec stat{{x.shape[1]}, x.dtype, x.device};
      return std::vector<TensorSpec>{x, stat, stat};
    })
    .cpu([](const Tensor& x, const Tensor& grad_out, const Tensor& mean, const Tensor& var, const Tensor& weight,
            double eps, const Tensor& grad_mean, const Tensor& grad_var, Tensor& grad_x, Tensor& grad_weight,
            Tensor& grad_bias) {
      Tensor xc = x.contiguous(), gc = grad_out.contiguous(), mc = mean.contiguous(), vc = var.contiguous();
      Tensor wc = weight.contiguous(), gmc = grad_mean.contiguous(), gvc = grad_var.contiguous();
      visit_floating(x.dtype(), "core::batch_norm_train_backward", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::batch_norm_train_backward<T>(xc.data<T>(), gc.data<T>(), x.shape()[0], x.shape()[1], mc.data<T>(),
                                              vc.data<T>(), wc.data<T>(), static_cast<T>(eps), gmc.data<T>(),
                                              gvc.data<T>(), grad_x.data<T>(), grad_weight.data<T>(),
                                              grad_bias.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& x, const Tensor& grad_out, const Tensor& mean, const Tensor& var, const Tensor& weight,
             double eps, const Tensor& grad_mean, const Tensor& grad_var, Tensor& grad_x, Tensor& grad_weight,
             Tensor& grad_bias) {
      const char* op = "core::batch_norm_train_backward";
      for (auto [name, t] : {std::pair<const char*, const Tensor*>{"x", &x}, {"grad_out", &grad_out}, {"mean", &mean},
                             {"var", &var}, {"weight", &weight}, {"grad_mean", &grad_mean}, {"grad_var", &grad_var}})
        cuda_support::require_contiguous(op, name, *t);
      cuda_support::visit_cuda_dtype(x.dtype(), op, true, [&](auto tag) {
        using T = typename decltype(tag)::type;
        cuda_support::run_device([&] {
          kernels::batch_norm_train_backward_cuda<T>(x.data<T>(), grad_out.data<T>(), x.shape()[0], x.shape()[1],
                                                     mean.data<T>(), var.data<T>(), weight.data<T>(), static_cast<T>(eps),
                                                     grad_mean.data<T>(), grad_var.data<T>(), grad_x.data<T>(),
                                                     grad_weight.data<T>(), grad_bias.data<T>());
        });
      });
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // The composition's gradient, by differentiating it on detached copies of the inputs
      // (recorded locally; the result is not differentiable again: once_differentiable).
      const size_t positions[] = {0, 1, 2, 3, 4, 6, 7};  // the tensor arguments, in slot order
      std::vector<Tensor> leaves;
      for (size_t p : positions) leaves.push_back(c.input(p).detach().requires_grad_());
      EnableGradGuard record(true);
      Grads outs = batch_norm_grads_composite(leaves[0], leaves[1], leaves[2], leaves[3], leaves[4], c.attr<double>(5),
                                              leaves[5], leaves[6]);
      std::vector<Tensor> wanted;
      std::vector<size_t> slots;
      for (size_t s = 0; s < leaves.size(); ++s)
        if (c.needs_grad(s)) {
          wanted.push_back(leaves[s]);
          slots.push_back(s);
        }
      Grads result(leaves.size());
      if (wanted.empty()) return result;
      auto g = grad(outs, wanted, {c.grad_output(0), c.grad_output(1), c.grad_output(2)}, false, false, true);
      for (size_t k = 0; k < slots.size(); ++k) result[slots[k]] = g[k];
      return result;
    })
    .samples([] { return std::vector<Values>{{f64({5, 3}, -1.0, 0.31), f64({5, 3}, 0.2, -0.13), f64({3}, -0.1, 0.2), f64({3}, 0.6, 0.3), f64({3}, 0.5, 0.4), 1e-5, f64({3}, 0.3, -0.2), f64({3}, -0.4, 0.25)}}; });

std::tuple<Tensor, Tensor, Tensor> batch_norm_train(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                    double eps) {
  static OpHandle op("core::batch_norm_train");
  auto r = op(x, weight, bias, eps);
  return {r[0], r[1], r[2]};
}

}  // namespace sampan
