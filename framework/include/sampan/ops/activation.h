// sampan: activation functions (elementwise). Dtype rules as in unary.h: sigmoid, gelu, silu
// and softplus give float32 for integer inputs; relu and clamp keep integer dtypes.
#pragma once

#include <optional>

#include "sampan/tensor.h"

namespace sampan {

/// 1 / (1 + exp(-x)).
Tensor sigmoid(const Tensor& x);
/// max(x, 0); NaN propagates. The gradient at 0 is 0 (as PyTorch).
Tensor relu(const Tensor& x);
/// The exact GELU, x * Phi(x) = x/2 * (1 + erf(x / sqrt(2))) (not the tanh approximation).
Tensor gelu(const Tensor& x);
/// x * sigmoid(x) (swish).
Tensor silu(const Tensor& x);
/// log(1 + exp(beta x)) / beta, and x where beta x > threshold (PyTorch's definition), computed
/// without overflow. beta must be finite and nonzero.
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0);
/// min(max(x, min), max); an absent bound is no bound (at least one is required). The op
/// core::clamp takes the bounds as float attributes with NaN meaning absent. When min > max
/// every element becomes max (as PyTorch). Integer x with a fractional bound gives float32.
/// The gradient passes where min <= x <= max.
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max);

/// In place: returns x.
Tensor relu_(const Tensor& x);
Tensor clamp_(const Tensor& x, std::optional<double> min, std::optional<double> max);

}  // namespace sampan
