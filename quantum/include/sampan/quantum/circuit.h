// sampan quantum: the compact circuit and Hamiltonian encodings the quantum ops take, and the
// simulator behind them (forward simulation, expectation, adjoint gradient).
//
// Circuit: an IntList, per gate [opcode, qubit..., slot...] with the number of qubits and of
// parameter slots fixed by the opcode (gate_info). A slot s >= 0 reads params[s] (differentiable);
// s < 0 reads constants[-s - 1] (a fixed angle). Controlled gates list controls first, target last
// (CNOT: [CNOT, control, target]); RXX/RYY/RZZ/SWAP are symmetric.
// Hamiltonian: sum_t coeffs[t] P_t with P_t given by paulis[t * n + q] (0 = I, 1 = X, 2 = Y, 3 = Z)
// for qubit q. Qubit q is bit q of the amplitude index (qubit 0 least significant).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "sampan/tensor.h"

namespace sampan::quantum {

enum Opcode : int64_t {
  kH = 0, kX, kY, kZ, kS, kSdg, kT, kTdg, kP, kRX, kRY, kRZ, kU3,
  kCNOT, kCY, kCZ, kSWAP, kCP, kCRX, kCRY, kCRZ, kRXX, kRYY, kRZZ, kCCX,
  // CU: controlled U3(theta, phi, lam) with no extra global phase (Paddle Quantum's cu).
  // MS: Molmer-Sorensen exp(+i pi/4 X(x)X) = RXX(-pi/2) (Paddle Quantum's ms). CSWAP: Fredkin
  // [CSWAP, control, a, b].
  kCU, kMS, kCSWAP,
  // A fixed dense matrix, optionally controlled, of variable arity:
  // [UNITARY, n_controls, k, controls..., targets..., offset] with the 2^k x 2^k matrix row-major
  // at constants[offset ...] as 2 * 4^k reals (re, im interleaved); 1 <= k <= 10, n_controls >= 0.
  // Checked to be unitary to 1e-10 (max |U^+ U - I|). Not parameterised.
  kUnitary,
  kNumOpcodes
};

struct GateInfo {
  const char* name;
  int n_qubits;  // -1: variable (kUnitary)
  int n_params;
};
/// Name and arity of an opcode; throws ValueError for an unknown one.
const GateInfo& gate_info(int64_t opcode);

struct Gate {
  int64_t op;
  std::vector<int> qubits;       // controls first, target(s) last
  std::vector<int64_t> slots;    // parameter slots (see the header comment)
  int n_controls = 0;             // kUnitary: qubits[0, n_controls) are controls
  int64_t matrix_offset = -1;     // kUnitary: where its matrix starts in constants
};

/// Decodes and validates a circuit (opcodes, qubit range and repeats, slots against
/// n_params (skipped when < 0) and constants, unitarity of matrix gates); errors name the gate index.
std::vector<Gate> decode_circuit(const std::vector<int64_t>& circuit, int64_t n_params,
                                 const std::vector<double>& constants, int64_t n_qubits, const char* who);

struct PauliTerm {
  uint64_t xmask = 0, zmask = 0;  // X or Y on the bits of xmask; Z or Y on the bits of zmask
  int n_y = 0;
  double coeff = 0;
};
std::vector<PauliTerm> decode_hamiltonian(const std::vector<int64_t>& paulis, const std::vector<double>& coeffs,
                                          int64_t n_qubits, const char* who);

/// The state after the circuit from |0...0> (complex128, 2^n amplitudes) written into `out`.
void simulate(const double* params, const std::vector<Gate>& gates, const std::vector<double>& constants,
              int n_qubits, complex128* out);
/// <psi|H|psi>.
double expectation_value(const complex128* psi, const std::vector<PauliTerm>& h, int n_qubits);
/// dE/dparams by the adjoint method (two state copies besides `scratch` use), written into grad
/// (n_params entries, zeroed first).
void adjoint_gradient(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                      const std::vector<double>& constants, const std::vector<PauliTerm>& h, int n_qubits,
                      double* grad);

}  // namespace sampan::quantum
