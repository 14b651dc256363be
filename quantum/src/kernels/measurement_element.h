// Per-output bodies of the GPU twins of the Z-basis measurement ops (probability_ops.cpp,
// sample_ops.cpp; measurement_cuda.cu), host and device, so a CPU test
// (tests/cpp/quantum/measurement_element_test.cpp) runs the arithmetic a GPU thread runs.
//
// The basis states with outcome b of the measured qubits q_0 .. q_{m-1} are enumerated in
// increasing order by k < 2^(n - m): b's bits sit at the q_j, k's bits fill the other positions
// from the lowest up. A probability p_b is folded in `parts` contiguous ranges of k (a fixed
// partition of (n, m): the same bits run to run), each range in increasing index order as the
// CPU folds all of them, and the parts added in order; with one part it is the CPU's order. The
// CPU's |a|^2 is libstdc++'s std::norm (abs(a)^2, through hypot), the GPU's re^2 + im^2: the
// CPU's values to rounding (a density matrix's diagonal: its bits, up to 2^15 terms an outcome).
#pragma once

#include <cstdint>

#include "sampan/complex_element.h"
#include "sampan/host_device.h"

namespace sampan::quantum::kernels {

/// The measured qubits in outcome order (q[j] carries outcome bit j), their mask, and whether the
/// state is a density matrix (2^n x 2^n row-major: the weights are its diagonal's real parts).
struct MeasuredQubits {
  int n = 0, m = 0;
  int q[64] = {};
  uint64_t mask = 0;
  bool density_matrix = false;
};

/// The outcome b of basis index i.
SAMPAN_HOST_DEVICE inline uint64_t outcome_bits(uint64_t i, const MeasuredQubits& mq) {
  uint64_t b = 0;
  for (int j = 0; j < mq.m; ++j) b |= ((i >> mq.q[j]) & 1u) << j;
  return b;
}

/// The k-th basis index (increasing) whose outcome is b.
SAMPAN_HOST_DEVICE inline uint64_t index_with_outcome(uint64_t b, uint64_t k, const MeasuredQubits& mq) {
  uint64_t i = 0;
  for (int j = 0; j < mq.m; ++j) i |= ((b >> j) & 1u) << mq.q[j];
  for (int pos = 0; pos < mq.n && k; ++pos) {
    if ((mq.mask >> pos) & 1u) continue;
    i |= (k & 1u) << pos;
    k >>= 1;
  }
  return i;
}

/// How many parts each probability is folded in: one up to 2^15 terms (the CPU's order), then
/// ranges of at least 2^12 terms, at most 2^16 parts over all outcomes.
SAMPAN_HOST_DEVICE inline uint64_t marginal_parts(int n, int m) {
  const uint64_t terms = uint64_t(1) << (n - m);
  if (terms <= (uint64_t(1) << 15)) return 1;
  uint64_t parts = terms >> 12;
  const uint64_t cap = m >= 16 ? 1 : (uint64_t(1) << (16 - m));
  return parts < cap ? parts : cap;
}

/// The sum of the weights (|a_i|^2, or rho_ii) over the indices with outcome b whose rank k is in
/// part `part` of `parts`.
SAMPAN_HOST_DEVICE inline double marginal_part(const sampan::kernels::ComplexElement<double>* a,
                                               const MeasuredQubits& mq, uint64_t b, uint64_t part, uint64_t parts) {
  const uint64_t terms = uint64_t(1) << (mq.n - mq.m), diagonal = (uint64_t(1) << mq.n) + 1;
  const uint64_t k0 = terms / parts * part, k1 = part + 1 == parts ? terms : terms / parts * (part + 1);
  double s = 0.0;
  for (uint64_t k = k0; k < k1; ++k) {
    const uint64_t i = index_with_outcome(b, k, mq);
    if (mq.density_matrix) {
      s += a[i * diagonal].re;
    } else {
      const sampan::kernels::ComplexElement<double> v = a[i];
      s += v.re * v.re + v.im * v.im;
    }
  }
  return s;
}

/// The projector's diagonal at basis index i: 1 where i has outcome b, else 0 (outcome_mask).
SAMPAN_HOST_DEVICE inline double outcome_mask_at(const MeasuredQubits& mq, uint64_t b, uint64_t i) {
  return outcome_bits(i, mq) == b ? 1.0 : 0.0;
}

/// probabilities_vjp at element e of the state: 2 w[b(e)] psi_e for a state vector, diag(w[b(i)])
/// for a density matrix.
SAMPAN_HOST_DEVICE inline sampan::kernels::ComplexElement<double> probabilities_vjp_at(
    const sampan::kernels::ComplexElement<double>* psi, const double* w, const MeasuredQubits& mq, uint64_t e) {
  if (mq.density_matrix) {
    const uint64_t N = uint64_t(1) << mq.n, i = e / N;
    return {e % N == i ? w[outcome_bits(i, mq)] : 0.0, 0.0};
  }
  const double f = 2.0 * w[outcome_bits(e, mq)];
  return {f * psi[e].re, f * psi[e].im};
}

}  // namespace sampan::quantum::kernels
