// sampan quantum ops for observables on a state: quantum::probabilities (differentiable),
// quantum::measure (partial measurement with post-selection, differentiable), quantum::sample
// (seeded shots), and quantum::statevector_vjp (the gradient behind quantum::statevector).
//
// A state is a pure state [2^n] or a density matrix [2^n, 2^n] (complex); compose with
// quantum::statevector / quantum::density_matrix to differentiate down to circuit parameters.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "kernels/measurement.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

namespace {

using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;
using C = complex128;

struct StateKind {
  int n = 0;
  bool density_matrix = false;
};

StateKind state_kind(const TensorSpec& s, const char* who) {
  SAMPAN_CHECK(s.dtype == DType::Complex128 || s.dtype == DType::Complex64, TypeError, who,
               ": the state must be complex64 or complex128, got ", dtype_name(s.dtype));
  const bool dm = s.dim() == 2;
  SAMPAN_CHECK((s.dim() == 1 || (dm && s.shape[0] == s.shape[1])) && s.shape[0] >= 2 &&
                   (s.shape[0] & (s.shape[0] - 1)) == 0,
               ValueError, who, ": the state must be a state vector [2^n] or a density matrix [2^n, 2^n], got shape ",
               shape_str(s.shape));
  return {static_cast<int>(std::lround(std::log2(static_cast<double>(s.shape[0])))), dm};
}

// The measured qubits (empty: all, in order), validated.
std::vector<int> measured(const IntList& qubits, int n, const char* who) {
  if (qubits.empty()) {
    std::vector<int> all(static_cast<size_t>(n));
    for (int q = 0; q < n; ++q) all[static_cast<size_t>(q)] = q;
    return all;
  }
  check_qubits(qubits, n, who);
  return std::vector<int>(qubits.begin(), qubits.end());
}

uint64_t outcome_index(const IntList& outcome, size_t m, const char* who) {
  SAMPAN_CHECK(outcome.size() == m, ValueError, who, ": one outcome bit per measured qubit (", m, "), got ",
               outcome.size());
  uint64_t b = 0;
  for (size_t j = 0; j < m; ++j) {
    SAMPAN_CHECK(outcome[j] == 0 || outcome[j] == 1, ValueError, who, ": outcome bit ", j, " must be 0 or 1, got ",
                 outcome[j]);
    b |= static_cast<uint64_t>(outcome[j]) << j;
  }
  return b;
}

Tensor as_c128(const Tensor& t) { return cast(t, DType::Complex128).contiguous(); }

const char* kStateDoc =
    " state: a state vector [2^n] or a density matrix [2^n, 2^n] (complex64/128). qubits: the measured qubits "
    "(empty: all); an outcome is b = sum_j bit(qubits[j]) 2^j (qubits[0] least significant).";

// ---- probabilities -----------------------------------------------------------------------------
void probabilities_cpu(const Tensor& state, const IntList& qubits, Tensor& out) {
  const auto k = state_kind(TensorSpec(state), "quantum::probabilities");
  const auto q = measured(qubits, k.n, "quantum::probabilities");
  const Tensor s = as_c128(state);
  kernels::marginal_probabilities(s.data<C>(), k.n, k.density_matrix, q, out.data<double>());
}

// d/dstate of sum_b w_b p_b (PyTorch convention): 2 w_b(i) psi_i, or diag(w_b(i)) for rho.
void probabilities_vjp_cpu(const Tensor& state, const Tensor& cotangent, const IntList& qubits, Tensor& out) {
  const auto k = state_kind(TensorSpec(state), "quantum::probabilities_vjp");
  const auto q = measured(qubits, k.n, "quantum::probabilities_vjp");
  const Tensor s = as_c128(state), w = cast(cotangent, DType::Float64).contiguous();
  const double* wp = w.data<double>();
  const uint64_t N = uint64_t(1) << k.n;
  Tensor g = zeros(state.shape(), DType::Complex128);
  C* gp = g.data<C>();
  for (uint64_t i = 0; i < N; ++i) {
    const double wi = wp[kernels::outcome_of(i, q)];
    if (k.density_matrix) gp[i * N + i] = wi;
    else gp[i] = 2.0 * wi * s.data<C>()[i];
  }
  out = cast(g, state.dtype());
}

// ---- measure -----------------------------------------------------------------------------------
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

// ---- sample ------------------------------------------------------------------------------------
void sample_cpu(const Tensor& state, const IntList& qubits, int64_t shots, int64_t seed, int64_t offset, Tensor& out) {
  const char* who = "quantum::sample";
  const auto k = state_kind(TensorSpec(state), who);
  const auto q = measured(qubits, k.n, who);
  const Tensor s = as_c128(state);
  std::vector<double> cdf(size_t(1) << q.size());
  kernels::marginal_probabilities(s.data<C>(), k.n, k.density_matrix, q, cdf.data());
  for (auto& x : cdf) x = std::max(0.0, x);  // rounding can leave -1e-17 on a zero probability
  std::partial_sum(cdf.begin(), cdf.end(), cdf.begin());
  const double total = cdf.back();
  SAMPAN_CHECK(total > 0, ValueError, who, ": the state has zero norm");
  // Uniforms from sampan's Philox stream (core::rand with this seed and offset): the shots depend
  // only on (seed, offset), as every random op.
  const Tensor u = call_op("core::rand", {IntList{shots}, std::string("float64"), seed, offset})[0].contiguous();
  const double* up = u.data<double>();
  int64_t* o = out.data<int64_t>();
  for (int64_t i = 0; i < shots; ++i) {
    const double x = up[i] * total;
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), x);
    o[i] = std::min<int64_t>(static_cast<int64_t>(it - cdf.begin()), static_cast<int64_t>(cdf.size()) - 1);
  }
}

}  // namespace

SAMPAN_OP(quantum, statevector_vjp)
    .doc("d Re<cotangent, psi(params)>/dparams [P] (float64) for quantum::statevector, <a, b> = sum conj(a) b "
         "(PyTorch's complex convention), by the adjoint method (one forward, one backward sweep, two state "
         "copies). Not differentiable itself. Arguments as quantum::statevector plus the complex128 cotangent [2^n].")
    .args("params", "cotangent", "circuit", "constants", "n_qubits")
    .outputs("grad")
    .shape([](const TensorSpec& params, const TensorSpec& cot, const IntList& circuit, const FloatList& constants,
              int64_t n) {
      const char* who = "quantum::statevector_vjp";
      SAMPAN_CHECK(params.dtype == DType::Float64 && params.dim() == 1, TypeError, who,
                   ": params must be float64 [P], got ", dtype_name(params.dtype), " ", shape_str(params.shape));
      check_state_fits(n, DType::Complex128, who);
      decode_circuit(circuit, params.shape[0], constants, n, who);
      SAMPAN_CHECK(cot.shape == Shape({int64_t(1) << n}), ValueError, who, ": the cotangent must be [",
                   int64_t(1) << n, "], got ", shape_str(cot.shape));
      return TensorSpec{params.shape, DType::Float64, params.device};
    })
    .cpu([](const Tensor& params, const Tensor& cot, const IntList& circuit, const FloatList& constants, int64_t n,
            Tensor& out) {
      const Tensor p = params.contiguous();
      const Tensor g = as_c128(cot);
      const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::statevector_vjp");
      statevector_vjp(p.data<double>(), p.numel(), gates, constants, static_cast<int>(n), g.data<C>(),
                      out.data<double>());
    })
    .nondifferentiable()
    .dtypes({DType::Float64});

SAMPAN_OP(quantum, probabilities)
    .doc(std::string("Probabilities (float64 [2^m]) of the Z-basis outcomes of the m measured qubits: "
                     "p_b = sum of |psi_i|^2 (or rho_ii) over basis states i with outcome b. Differentiable in the "
                     "state (quantum::probabilities_vjp); once differentiable.") + kStateDoc)
    .args("state", "qubits")
    .outputs("probabilities")
    .shape([](const TensorSpec& state, const IntList& qubits) {
      const auto k = state_kind(state, "quantum::probabilities");
      const auto q = measured(qubits, k.n, "quantum::probabilities");
      return TensorSpec{{int64_t(1) << q.size()}, DType::Float64, state.device};
    })
    .cpu(probabilities_cpu)
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::probabilities_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.attr<IntList>(1))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Complex128, DType::Complex64});

SAMPAN_OP(quantum, probabilities_vjp)
    .doc(std::string("The state gradient of sum_b cotangent_b p_b for quantum::probabilities: 2 w_b(i) psi_i for "
                     "a state vector, diag(w_b(i)) for a density matrix (state's shape and dtype). Not "
                     "differentiable itself.") + kStateDoc)
    .args("state", "cotangent", "qubits")
    .outputs("grad")
    .shape([](const TensorSpec& state, const TensorSpec& cot, const IntList& qubits) {
      const auto k = state_kind(state, "quantum::probabilities_vjp");
      const auto q = measured(qubits, k.n, "quantum::probabilities_vjp");
      SAMPAN_CHECK(cot.shape == Shape({int64_t(1) << q.size()}), ValueError,
                   "quantum::probabilities_vjp: the cotangent must be [", int64_t(1) << q.size(), "], got ",
                   shape_str(cot.shape));
      return TensorSpec{state.shape, state.dtype, state.device};
    })
    .cpu(probabilities_vjp_cpu)
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64});

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
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::measure_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.grad_output(1), c.attr<IntList>(1), c.attr<IntList>(2))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Complex128, DType::Complex64});

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
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64});

SAMPAN_OP(quantum, sample)
    .doc(std::string("`shots` Z-basis measurement outcomes (int64 [shots], each an outcome b of the measured "
                     "qubits) drawn from the state's probabilities by inverse CDF of uniforms from sampan's Philox "
                     "stream (seed, offset): the same (seed, offset) gives the same shots on any thread count.") +
         kStateDoc)
    .args("state", "qubits", "shots", "seed", "offset")
    .outputs("outcomes")
    .shape([](const TensorSpec& state, const IntList& qubits, int64_t shots, int64_t, int64_t) {
      const auto k = state_kind(state, "quantum::sample");
      measured(qubits, k.n, "quantum::sample");
      SAMPAN_CHECK(shots >= 0, ValueError, "quantum::sample: shots must be >= 0, got ", shots);
      return TensorSpec{{shots}, DType::Int64, state.device};
    })
    .cpu(sample_cpu)
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64});

}  // namespace sampan::quantum
