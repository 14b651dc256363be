// The per-element and per-column arithmetic of training-mode batch normalization, shared by the
// CPU loops (batch_norm_kernels.h) and the CUDA twin (batch_norm_kernels.cu), so both run the
// same operations. Ioffe and Szegedy 2015, Algorithm 1 (forward) and section 3 (backward).
#pragma once

#include <cmath>
#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::kernels {

/// 1 / sqrt(var + eps), the normalizing factor (core::rsqrt's arithmetic, in T).
template <class T> SAMPAN_HOST_DEVICE inline T batch_norm_invstd(T var, T eps) { return T(1) / std::sqrt(var + eps); }

/// Column statistic from its double row sum: mean or (biased) variance, rounded to T first and
/// then divided in T, as mean() = sum() / count does in the composition.
template <class T> SAMPAN_HOST_DEVICE inline T batch_norm_column_mean(double sum, int64_t n) {
  return static_cast<T>(sum) / static_cast<T>(n);
}

/// One output element: (x - mean) * invstd * weight + bias, in the composition's order.
template <class T> SAMPAN_HOST_DEVICE inline T batch_norm_normalize(T x, T mean, T invstd, T weight, T bias) {
  return (x - mean) * invstd * weight + bias;
}

/// Per-column coefficients of the backward: grad_x = kg * grad_out + kd * (x - mean) + k0.
/// From the column sums s1 = sum_r grad_out and s2 = sum_r grad_out * (x - mean), with
/// invstd = 1 / sqrt(var + eps):
///   grad_bias = s1,  grad_weight = invstd * s2,
///   grad_x = w invstd (grad_out - s1 / n) - w invstd^3 s2 (x - mean) / n
///            + grad_mean / n + 2 grad_var (x - mean) / n
/// (the mean and the variance depend on every row; sum_r (x - mean) = 0 removes the mean's share
/// of the variance's gradient).
template <class T> struct BatchNormBackwardColumn {
  T kg, kd, k0, grad_weight, grad_bias;
};
template <class T>
SAMPAN_HOST_DEVICE inline BatchNormBackwardColumn<T> batch_norm_backward_column(double s1, double s2, int64_t n, T var, T eps,
                                                                              T weight, T grad_mean, T grad_var) {
  const double invstd = static_cast<double>(batch_norm_invstd(var, eps)), w = static_cast<double>(weight);
  const double inv_n = 1.0 / static_cast<double>(n);
  BatchNormBackwardColumn<T> k;
  k.kg = static_cast<T>(w * invstd);
  k.kd = static_cast<T>(-w * invstd * invstd * invstd * s2 * inv_n + 2.0 * static_cast<double>(grad_var) * inv_n);
  k.k0 = static_cast<T>(-w * invstd * s1 * inv_n + static_cast<double>(grad_mean) * inv_n);
  k.grad_weight = static_cast<T>(invstd * s2);
  k.grad_bias = static_cast<T>(s1);
  return k;
}

/// One element of grad_x from its column's coefficients.
template <class T>
SAMPAN_HOST_DEVICE inline T batch_norm_backward_element(T grad_out, T x, T mean, T kg, T kd, T k0) {
  return kg * grad_out + kd * (x - mean) + k0;
}

}  // namespace sampan::kernels
