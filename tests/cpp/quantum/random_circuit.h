// A random circuit over the whole gate set for the quantum tests (fusion, distributed): every
// opcode on random distinct qubits with random angles, plus controlled matrix gates.
#pragma once

#include <algorithm>
#include <random>

#include "quantum/quantum_test_util.h"
#include "sampan/quantum/circuit.h"

namespace sampan::quantum::test {

struct RandomCircuit {
  std::vector<int64_t> enc;
  std::vector<double> params, constants;
};

// `n_gates` gates of every opcode (and 1-2 qubit UNITARY with 0-1 controls) on n >= 3 qubits.
inline RandomCircuit random_circuit(int n, int n_gates, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  RandomCircuit c;
  for (int g = 0; g < n_gates; ++g) {
    const int64_t op = static_cast<int64_t>(rng() % (kNumOpcodes + 1));  // +1: a controlled 2-qubit UNITARY
    std::vector<int> qs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) qs[static_cast<size_t>(i)] = i;
    std::shuffle(qs.begin(), qs.end(), rng);
    if (op >= kUnitary) {
      // [UNITARY, n_controls, k, controls..., targets..., offset] with a Kronecker product of
      // k random 2x2 unitaries (Gram-Schmidt of Gaussian columns).
      const int nc = static_cast<int>(rng() % 2), k = 1 + static_cast<int>(rng() % 2);
      const int64_t offset = static_cast<int64_t>(c.constants.size());
      Mat u = {1};
      int d = 1;
      for (int j = 0; j < k; ++j) {
        Mat m = random_matrix(2, rng());
        const double n0 = std::sqrt(std::norm(m[0]) + std::norm(m[2]));
        m[0] /= n0, m[2] /= n0;
        const C p = std::conj(m[0]) * m[1] + std::conj(m[2]) * m[3];
        m[1] -= p * m[0], m[3] -= p * m[2];
        const double n1 = std::sqrt(std::norm(m[1]) + std::norm(m[3]));
        m[1] /= n1, m[3] /= n1;
        u = kron(m, 2, u, d);
        d *= 2;
      }
      for (const C& x : u) c.constants.insert(c.constants.end(), {x.real(), x.imag()});
      c.enc.insert(c.enc.end(), {kUnitary, nc, k});
      for (int j = 0; j < nc + k; ++j) c.enc.push_back(qs[static_cast<size_t>(j)]);
      c.enc.push_back(offset);
      continue;
    }
    const GateInfo& info = gate_info(op);
    c.enc.push_back(op);
    for (int j = 0; j < info.n_qubits; ++j) c.enc.push_back(qs[static_cast<size_t>(j)]);
    for (int j = 0; j < info.n_params; ++j) {
      c.enc.push_back(static_cast<int64_t>(c.params.size()));
      c.params.push_back(angle(rng));
    }
  }
  return c;
}

}  // namespace sampan::quantum::test
