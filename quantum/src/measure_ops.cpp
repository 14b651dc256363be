// sampan quantum ops: quantum::measure (partial Z measurement with post-selection on a state
// vector or density matrix, differentiable) and its vjp op quantum::measure_vjp.
#include <cmath>
#include <string>

#include "measure_by_ops.h"

#include "kernels/measurement.h"
#include "op_args.h"
#include "op_samples.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "kernels/measurement_cuda.h"
#include "run_on_device.h"
#endif

namespace sampan::quantum {

using namespace op_args;

namespace detail {

namespace {
Tensor squared_modulus(const Tensor& z) { return add(square(real(z)), square(imag(z))); }
}  // namespace

std::pair<Tensor, Tensor> measure_by_ops(const Tensor& state, const Tensor& m) {
  const char* who = "quantum::measure";
  const bool dm = state.dim() == 2;
  const Tensor u = mul(as_c128(state), dm ? outer(m, m) : m);
  const Tensor p_t = sum(dm ? real(diagonal(u)) : squared_modulus(u));
  const double p = p_t.item();
  SAMPAN_CHECK(p > 1e-300, ValueError, who, ": the outcome has probability ", p, " (it cannot be post-selected)");
  return {mul(u, scalar_like(dm ? 1.0 / p : 1.0 / std::sqrt(p), m)), p_t};
}

Tensor measure_vjp_by_ops(const Tensor& state, const Tensor& g_state, const Tensor& g_prob, const Tensor& m) {
  const bool dm = state.dim() == 2;
  const Tensor a = as_c128(state), g = as_c128(g_state);
  const double gp = cast(g_prob, DType::Float64).item();
  const Tensor M = dm ? outer(m, m) : m;
  const double re = sum(real(mul(conj(g), mul(a, M)))).item();
  Tensor r;
  if (dm) {
    const double p = sum(mul(m, real(diagonal(a)))).item(), c = gp - re / (p * p);
    r = mul(M, mul(g, scalar_like(1.0 / p, m)));
    r = diagonal_scatter(r, add(diagonal(r), mul(m, scalar_like(c, m))));
  } else {
    const double p = sum(mul(m, squared_modulus(a))).item(), sp = std::sqrt(p), c = gp - re / (2 * p * sp);
    r = mul(m, add(mul(g, scalar_like(1.0 / sp, m)), mul(a, scalar_like(2 * c, m))));
  }
  return cast(r, state.dtype());
}

}  // namespace detail

namespace {

using C = complex128;

void measure_cpu(const Tensor& state, const IntList& qubits, const IntList& outcome, Tensor& post, Tensor& prob) {
  const char* who = "quantum::measure";
  const auto k = state_kind(TensorSpec(state), who);
  const auto q = measured(qubits, k.n, who);
  const auto mask = kernels::outcome_mask(k.n, q, outcome_index(outcome, q.size(), who));
  const Tensor s = as_c128(state);
  const C* a = s.data<C>();
  const uint64_t N = uint64_t(1) << k.n;
  Tensor r = zeros(state.shape(), DType::Complex128);
  C* u = r.data<C>();
  double p = 0;
  if (k.density_matrix) {
    for (uint64_t i = 0; i < N; ++i)
      for (uint64_t j = 0; j < N; ++j) u[i * N + j] = mask[i] * mask[j] * a[i * N + j];
    for (uint64_t i = 0; i < N; ++i) p += u[i * N + i].real();
  } else {
    for (uint64_t i = 0; i < N; ++i) {
      u[i] = mask[i] * a[i];
      p += std::norm(u[i]);
    }
  }
  SAMPAN_CHECK(p > 1e-300, ValueError, who, ": the outcome has probability ", p, " (it cannot be post-selected)");
  const double scale = k.density_matrix ? 1.0 / p : 1.0 / std::sqrt(p);
  const uint64_t total = k.density_matrix ? N * N : N;
  for (uint64_t i = 0; i < total; ++i) u[i] *= scale;
  post = r;
  prob.data<double>()[0] = p;
}

// Pure: u = m psi, p = |u|^2, phi = u / sqrt p; grad = m g_phi / sqrt p + 2 c u with
// c = g_p - Re<g_phi, u> / (2 p^{3/2}). Mixed: u = M .* rho (M = m m^T), p = Re tr u, phi = u / p;
// grad = M .* (g_phi / p + (g_p - Re<g_phi, u> / p^2) I).
void measure_vjp_cpu(const Tensor& state, const Tensor& g_state, const Tensor& g_prob, const IntList& qubits,
                     const IntList& outcome, Tensor& out) {
  const char* who = "quantum::measure_vjp";
  const auto k = state_kind(TensorSpec(state), who);
  const auto q = measured(qubits, k.n, who);
  const auto m = kernels::outcome_mask(k.n, q, outcome_index(outcome, q.size(), who));
  const Tensor s = as_c128(state), gs = as_c128(g_state);
  const double gp = cast(g_prob, DType::Float64).item();
  const C* a = s.data<C>();
  const C* g = gs.data<C>();
  const uint64_t N = uint64_t(1) << k.n;
  Tensor r = zeros(state.shape(), DType::Complex128);
  C* o = r.data<C>();
  if (k.density_matrix) {
    double p = 0, re = 0;
    for (uint64_t i = 0; i < N; ++i) p += m[i] * a[i * N + i].real();
    for (uint64_t i = 0; i < N; ++i)
      for (uint64_t j = 0; j < N; ++j) re += (std::conj(g[i * N + j]) * (m[i] * m[j] * a[i * N + j])).real();
    const double c = gp - re / (p * p);
    for (uint64_t i = 0; i < N; ++i)
      for (uint64_t j = 0; j < N; ++j) o[i * N + j] = m[i] * m[j] * (g[i * N + j] / p + (i == j ? c : 0.0));
  } else {
    double p = 0, re = 0;
    for (uint64_t i = 0; i < N; ++i) {
      p += m[i] * std::norm(a[i]);
      re += (std::conj(g[i]) * (m[i] * a[i])).real();
    }
    const double sp = std::sqrt(p), c = gp - re / (2 * p * sp);
    for (uint64_t i = 0; i < N; ++i) o[i] = m[i] * (g[i] / sp + 2 * c * a[i]);
  }
  out = cast(r, state.dtype());
}

#if defined(SAMPAN_CUDA_KERNELS)
// The GPU twins: measure_by_ops with the projector's diagonal made by a kernel
// (kernels/measurement_cuda.cu).
Tensor outcome_mask_on_cuda(const Tensor& state, const IntList& qubits, const IntList& outcome, const char* who) {
  const auto mq = measured_qubits(TensorSpec(state), qubits, who);
  const uint64_t b = outcome_index(outcome, static_cast<size_t>(mq.m), who);
  Tensor m = Tensor::empty({int64_t(1) << mq.n}, DType::Float64, state.device());
  on_device([&] { kernels::outcome_mask_cuda(mq, b, static_cast<double*>(m.raw_data())); });
  return m;
}

void measure_cuda(const Tensor& state, const IntList& qubits, const IntList& outcome, Tensor& post, Tensor& prob) {
  const auto [p, q] = detail::measure_by_ops(state, outcome_mask_on_cuda(state, qubits, outcome, "quantum::measure"));
  copy_(post, p);
  copy_(prob, q);
}

void measure_vjp_cuda(const Tensor& state, const Tensor& g_state, const Tensor& g_prob, const IntList& qubits,
                      const IntList& outcome, Tensor& out) {
  out = detail::measure_vjp_by_ops(state, g_state, g_prob,
                                   outcome_mask_on_cuda(state, qubits, outcome, "quantum::measure_vjp"));
}
#endif

}  // namespace

SAMPAN_OP(quantum, measure)
    .doc(std::string("Partial Z measurement with post-selection: keeps the outcome `outcome` (one bit 0/1 per "
                     "measured qubit) and returns the normalised post-measurement state on all n qubits (state "
                     "vector P psi / sqrt(p) or density matrix P rho P / p, complex128, the measured qubits "
                     "collapsed) and its probability p (float64 scalar). An outcome of probability 0 is a "
                     "ValueError. Differentiable in the state (quantum::measure_vjp); once differentiable.") +
         kStateDoc)
    .args("state", "qubits", "outcome")
    .outputs("post_state", "probability")
    .shape([](const TensorSpec& state, const IntList& qubits, const IntList& outcome) {
      const auto k = state_kind(state, "quantum::measure");
      const auto q = measured(qubits, k.n, "quantum::measure");
      outcome_index(outcome, q.size(), "quantum::measure");
      return std::vector<TensorSpec>{TensorSpec{state.shape, DType::Complex128, state.device},
                                     TensorSpec{{}, DType::Float64, state.device}};
    })
    .cpu(measure_cpu)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(measure_cuda)
    .cuda_rounds_differently()  // device sums; |a|^2 as re^2 + im^2
#endif
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::measure_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.grad_output(1), c.attr<IntList>(1), c.attr<IntList>(2))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Complex128, DType::Complex64})
    .sample([] { return Values{samples::state(false), IntList{2, 0}, IntList{1, 0}}; })
    .sample([] { return Values{samples::state(true), IntList{1}, IntList{1}}; });

SAMPAN_OP(quantum, measure_vjp)
    .doc(std::string("The state gradient of quantum::measure for the cotangents of the post-measurement state "
                     "and of the probability. Not differentiable itself.") + kStateDoc)
    .args("state", "grad_post_state", "grad_probability", "qubits", "outcome")
    .outputs("grad")
    .shape([](const TensorSpec& state, const TensorSpec& gs, const TensorSpec& gp, const IntList& qubits,
              const IntList& outcome) {
      const auto k = state_kind(state, "quantum::measure_vjp");
      const auto q = measured(qubits, k.n, "quantum::measure_vjp");
      outcome_index(outcome, q.size(), "quantum::measure_vjp");
      SAMPAN_CHECK(gs.shape == state.shape && gp.dim() == 0, ValueError,
                   "quantum::measure_vjp: cotangents must be shaped as the state and a scalar, got ", shape_str(gs.shape),
                   " and ", shape_str(gp.shape));
      return TensorSpec{state.shape, state.dtype, state.device};
    })
    .cpu(measure_vjp_cpu)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(measure_vjp_cuda)
    .cuda_rounds_differently()
#endif
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64})
    .sample([] {
      return Values{samples::state(false), samples::complex_cotangent({8}, 0.4), from_vector({0.7}, {}),
                    IntList{2, 0}, IntList{1, 0}};
    })
    .sample([] {
      return Values{samples::state(true), samples::complex_cotangent({8, 8}, 0.3), from_vector({-0.4}, {}),
                    IntList{1}, IntList{1}};
    });

}  // namespace sampan::quantum
