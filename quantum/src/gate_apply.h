// sampan quantum (internal): a decoded gate resolved to its matrix, and its in-place application.
// Shared by the simulator (circuit.cpp) and the gate-fusion pass (fusion.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sampan/quantum/circuit.h"

namespace sampan::quantum {

// A gate as the simulator applies it: a 2^k x 2^k matrix on `targets`, active where the bits of
// cmask are set. Parameter-free gates keep `fast` (their opcode) so the fast kernels run.
struct Resolved {
  std::vector<int> targets;
  uint64_t cmask = 0;
  std::vector<complex128> m;  // row-major
  bool fast = false;
};

/// The matrix of gate g, or (derivative = slot index j >= 0) its derivative in parameter j.
Resolved resolve(const Gate& g, const double* params, const std::vector<double>& constants, int derivative = -1);

/// The conjugate transpose of a square row-major matrix.
std::vector<complex128> adjoint_matrix(const std::vector<complex128>& m);

/// <lam| C(d) |phi> on the CPU for a derivative matrix on one or two targets (zero off its controls).
complex128 inner_on_cpu(const complex128* lam, const complex128* phi, int n, const Resolved& d);

/// i^{n_y} coeff: the factor of a Pauli term over the X^x Z^z sign pattern (gate_element.h).
complex128 pauli_term_phase(const PauliTerm& t);
/// A term's contribution to <H>: Re(phase * folded), folded = sum_u conj(psi[u ^ x]) psi[u] (-1)^{|u & z|}.
double pauli_term_value(const PauliTerm& t, complex128 folded);

/// Applies U (or U^dagger) of a resolved gate in place on 2^n amplitudes.
void apply(complex128* a, int n, const Gate& g, const Resolved& r, bool adjoint);

}  // namespace sampan::quantum
