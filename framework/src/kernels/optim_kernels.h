// sampan kernels: fused optimizer updates. One pass over a parameter and its state replaces the
// dozen elementwise ops (and their temporaries) of the same update written with tensor ops.
// Plain functions over pointers and sizes; elementwise, so the result does not depend on the
// thread count.
#pragma once

#include <cmath>
#include <cstdint>

#include "strided_loop.h"  // kParallelGrain

namespace sampan::kernels {

/// Hyperparameters of one Adam step; `step` counts this update (t >= 1).
struct AdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  int64_t step;
  bool decoupled;  // AdamW: p <- p (1 - lr wd) instead of g <- g + wd p
  bool maximize;   // ascend: g <- -g
};

/// Adam (Kingma and Ba 2015, Algorithm 1, with the bias corrections folded into the step):
///   m <- b1 m + (1 - b1) g;   v <- b2 v + (1 - b2) g^2
///   p <- p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
/// in place on param, exp_avg (m) and exp_avg_sq (v), all of n contiguous elements.
template <class T>
void adam_update(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq, const AdamStep& s) {
  const double t = static_cast<double>(s.step);
  const T b1 = T(s.beta1), b2 = T(s.beta2), one_minus_b1 = T(1.0 - s.beta1), one_minus_b2 = T(1.0 - s.beta2);
  const T inv_sqrt_bc2 = T(1.0 / std::sqrt(1.0 - std::pow(s.beta2, t)));
  const T step_size = T(s.lr / (1.0 - std::pow(s.beta1, t)));
  const T eps = T(s.eps), wd = T(s.weight_decay), decay = T(1.0 - s.lr * s.weight_decay);
  const bool coupled_decay = s.weight_decay != 0.0 && !s.decoupled;
  const bool decoupled_decay = s.weight_decay != 0.0 && s.decoupled;
  const bool maximize = s.maximize;
#pragma omp parallel for if (n > kParallelGrain) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    T g = maximize ? -grad[i] : grad[i];
    T p = param[i];
    if (coupled_decay) g += p * wd;  // L2 regularization folded into the gradient
    if (decoupled_decay) p *= decay;
    const T m = b1 * exp_avg[i] + one_minus_b1 * g;
    const T v = b2 * exp_avg_sq[i] + one_minus_b2 * (g * g);
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    param[i] = p - m / (std::sqrt(v) * inv_sqrt_bc2 + eps) * step_size;
  }
}

}  // namespace sampan::kernels
