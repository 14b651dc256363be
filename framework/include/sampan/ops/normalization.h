// sampan: fused normalization ops.
#pragma once

#include <tuple>

#include "sampan/tensor.h"

namespace sampan {

/// Batch normalization in training over the rows of x (N, C): returns (out, mean, var) with the
/// per-column mean and biased variance and out = (x - mean) / sqrt(var + eps) * weight + bias.
/// Differentiable to any order; the first-order gradient is one fused op
/// (core::batch_norm_train_backward).
std::tuple<Tensor, Tensor, Tensor> batch_norm_train(const Tensor& x, const Tensor& weight, const Tensor& bias,
                                                    double eps = 1e-5);

}  // namespace sampan
