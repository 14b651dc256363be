// sampan quantum (internal): quantum::measure and its vjp written as framework ops over a given
// projector diagonal m (float64 [2^n], 1 on the kept outcome's basis states), so they run on any
// device: the GPU twins of measure_ops.cpp call them with a mask made on the GPU, and
// tests/cpp/quantum/measurement_element_test.cpp runs them on the CPU against the CPU kernels.
// The formulas are the CPU kernels' (measure_ops.cpp): u = m psi (or M .* rho, M = m m^T),
// p = |u|^2 (or Re tr u), post = u / sqrt p (or u / p).
#pragma once

#include <utility>

#include "sampan/tensor.h"

namespace sampan::quantum::detail {

/// (post-measurement state, complex128; its probability, a float64 scalar), on m's device.
std::pair<Tensor, Tensor> measure_by_ops(const Tensor& state, const Tensor& m);

/// quantum::measure_vjp's gradient for the cotangents g_state (state's shape) and g_prob (a scalar).
Tensor measure_vjp_by_ops(const Tensor& state, const Tensor& g_state, const Tensor& g_prob, const Tensor& m);

}  // namespace sampan::quantum::detail
