// sampan quantum (internal): the sample arguments of the quantum ops (.sample in their SAMPAN_OP),
// which check_op runs (shape function, first-order finite differences in float64, the declared
// second derivative raising, dtype sweep, determinism). Each call builds fresh tensors.
#pragma once

#include <cstdint>

#include "sampan/op.h"

namespace sampan::quantum::samples {

/// (params [5], circuit, constants, n_qubits = 3): 3 qubits, every parametric gate, two shared
/// parameters and one constant; with_hamiltonian appends (paulis, coeffs) of a 3-term H.
Values circuit(bool with_hamiltonian);

/// circuit(false) with a complex128 cotangent [8] inserted after params (quantum::statevector_vjp).
Values statevector_vjp();

/// (params [8], circuit, constants, n_qubits = 3): 3 qubits, gates and every channel kind, channel
/// parameters read from params (slots 3 to 7, inside their domains, away from the edges) so
/// check_op differentiates them too. extra: 0 nothing, 1 a Hamiltonian (paulis, coeffs) appended,
/// 2 a complex128 cotangent [8, 8] inserted after params (quantum::density_matrix_vjp).
Values noisy_circuit(int extra);

/// (params, rho, [cotangent,] circuit, constants): noisy_circuit's circuit applied to a given
/// non-Hermitian 3-qubit matrix (so no shortcut can hide); vjp inserts a cotangent [8, 8].
Values evolve(bool vjp);

/// A normalised 3-qubit state vector [8] or density matrix [8, 8] (a mixture of two pure states).
Tensor state(bool density_matrix);

/// complex128 of shape s: sin(a i + 0.1) + cos(1.7 a i) j.
Tensor complex_cotangent(const Shape& s, double a);

}  // namespace sampan::quantum::samples
