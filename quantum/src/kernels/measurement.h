// sampan quantum: Z-basis measurement kernels on a state vector (2^n amplitudes) or a density
// matrix (2^n x 2^n, row-major), plain functions over pointers.
//
// An outcome of the measured qubits (q_0, ..., q_{m-1}) is the integer b = sum_j bit(q_j) 2^j
// (q_0 is its least significant bit, as everywhere in sampan.quantum).
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

namespace sampan::quantum::kernels {

/// The outcome b of basis index i for the measured `qubits`.
inline uint64_t outcome_of(uint64_t i, const std::vector<int>& qubits) {
  uint64_t b = 0;
  for (size_t j = 0; j < qubits.size(); ++j) b |= ((i >> qubits[j]) & 1) << j;
  return b;
}

/// p[b] = sum over basis states i with outcome b of |psi_i|^2 (pure) or rho_ii (mixed).
template <class T>
void marginal_probabilities(const std::complex<T>* a, int n, bool density_matrix, const std::vector<int>& qubits,
                            double* p) {
  const uint64_t N = uint64_t(1) << n;
  std::fill(p, p + (size_t(1) << qubits.size()), 0.0);
  for (uint64_t i = 0; i < N; ++i) {
    const double w = density_matrix ? static_cast<double>(a[i * N + i].real()) : static_cast<double>(std::norm(a[i]));
    p[outcome_of(i, qubits)] += w;
  }
}

/// The projector's diagonal: 1 where basis index i has outcome b, else 0.
inline std::vector<double> outcome_mask(int n, const std::vector<int>& qubits, uint64_t b) {
  const uint64_t N = uint64_t(1) << n;
  std::vector<double> m(N);
  for (uint64_t i = 0; i < N; ++i) m[i] = outcome_of(i, qubits) == b ? 1.0 : 0.0;
  return m;
}

}  // namespace sampan::quantum::kernels
