// The per-element arithmetic of one Adam step, shared by the CPU loop (optim_kernels.h) and the
// CUDA twin (optim_kernels.cu), so both run the same operations on the same coefficients. The
// coefficients (powers of beta, the bias corrections) are computed once per step on the host.
#pragma once

#include <cmath>
#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::kernels {

/// Hyperparameters of one Adam step; `step` counts this update (t >= 1).
struct AdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  int64_t step;
  bool decoupled;  // AdamW: p <- p (1 - lr wd) instead of g <- g + wd p
  bool maximize;   // ascend: g <- -g
};

/// An AdamStep in the parameter's type, with the bias corrections folded in.
template <class T> struct AdamCoefficients {
  T b1, b2, one_minus_b1, one_minus_b2, inv_sqrt_bc2, step_size, eps, wd, decay;
  bool coupled_decay, decoupled_decay, maximize;
};

template <class T> inline AdamCoefficients<T> adam_coefficients(const AdamStep& s) {
  const double t = static_cast<double>(s.step);
  AdamCoefficients<T> c;
  c.b1 = T(s.beta1), c.b2 = T(s.beta2), c.one_minus_b1 = T(1.0 - s.beta1), c.one_minus_b2 = T(1.0 - s.beta2);
  c.inv_sqrt_bc2 = T(1.0 / std::sqrt(1.0 - std::pow(s.beta2, t)));
  c.step_size = T(s.lr / (1.0 - std::pow(s.beta1, t)));
  c.eps = T(s.eps), c.wd = T(s.weight_decay), c.decay = T(1.0 - s.lr * s.weight_decay);
  c.coupled_decay = s.weight_decay != 0.0 && !s.decoupled;
  c.decoupled_decay = s.weight_decay != 0.0 && s.decoupled;
  c.maximize = s.maximize;
  return c;
}

/// Adam (Kingma and Ba 2015, Algorithm 1, with the bias corrections folded into the step) on one
/// element: m <- b1 m + (1 - b1) g; v <- b2 v + (1 - b2) g^2;
/// p <- p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
template <class T>
SAMPAN_HOST_DEVICE inline void adam_element(const AdamCoefficients<T>& c, T& param, T grad, T& exp_avg, T& exp_avg_sq) {
  T g = c.maximize ? -grad : grad;
  T p = param;
  if (c.coupled_decay) g += p * c.wd;  // L2 regularization folded into the gradient
  if (c.decoupled_decay) p *= c.decay;
  const T m = c.b1 * exp_avg + c.one_minus_b1 * g;
  const T v = c.b2 * exp_avg_sq + c.one_minus_b2 * (g * g);
  exp_avg = m;
  exp_avg_sq = v;
  param = p - m / (std::sqrt(v) * c.inv_sqrt_bc2 + c.eps) * c.step_size;
}

}  // namespace sampan::kernels
