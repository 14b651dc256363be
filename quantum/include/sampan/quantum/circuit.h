// sampan quantum: the compact circuit and Hamiltonian encodings the quantum ops take, and the
// simulator behind them (forward simulation, expectation, adjoint gradient).
//
// Circuit: an IntList, per gate [opcode, qubit..., slot...] with the number of qubits and of
// parameter slots fixed by the opcode (the gate table, gate_table.h). A slot s >= 0 reads params[s] (differentiable);
// s < 0 reads constants[-s - 1] (a fixed angle). Controlled gates list controls first, target last
// (CNOT: [CNOT, control, target]); RXX/RYY/RZZ/SWAP are symmetric.
// Hamiltonian: sum_t coeffs[t] P_t with P_t given by paulis[t * n + q] (0 = I, 1 = X, 2 = Y, 3 = Z)
// for qubit q. Qubit q is bit q of the amplitude index (qubit 0 least significant).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "sampan/quantum/gate_table.h"
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

// Noise channels (density-matrix simulation only; the state-vector ops refuse them). Opcodes start
// at 100 so gate opcodes can grow. Parameters are slots as for gates (s >= 0: params[s], s < 0:
// constants[-s-1]); matrices live in constants as (re, im) pairs, row-major. Superoperators and
// validation: sampan/quantum/channels.h.
//   [BIT_FLIP, q, p]  [PHASE_FLIP, q, p]  [BIT_PHASE_FLIP, q, p]  [AMPLITUDE_DAMPING, q, gamma]
//   [GENERALIZED_AMPLITUDE_DAMPING, q, gamma, p]  [PHASE_DAMPING, q, gamma]  [DEPOLARIZING, q, p]
//   [PAULI_CHANNEL, q, px, py, pz]  [RESET, q, p0, p1]  [THERMAL_RELAXATION, q, T1, T2, time]
//   [GENERALIZED_DEPOLARIZING, k, q_1..q_k, p]
//   [MIXED_UNITARY, k, m, q_1..q_k, offset]: m probabilities then m 2^k x 2^k unitaries at offset
//   [KRAUS, k, m, q_1..q_k, offset]: m 2^k x 2^k Kraus operators at offset
//   [CHOI, k, q_1..q_k, offset]: the 4^k x 4^k Choi matrix J = sum_ij |i><j| (x) E(|i><j|) at offset
// with 1 <= k <= 3 (q_1 is the low bit of the matrices' local index, as for UNITARY).
enum ChannelOpcode : int64_t {
  kBitFlip = 100, kPhaseFlip, kBitPhaseFlip, kAmplitudeDamping, kGeneralizedAmplitudeDamping,
  kPhaseDamping, kDepolarizing, kPauliChannel, kReset, kThermalRelaxation,
  kGeneralizedDepolarizing, kMixedUnitary, kKraus, kChoi,
  kEndChannelOpcodes
};
inline bool is_channel_opcode(int64_t op) { return op >= kBitFlip && op < kEndChannelOpcodes; }

/// A gate's entry in the gate table (gate_table.h): name, arity, layout.
using GateInfo = GateSpec;
/// The table entry of a gate opcode (not a channel's: channel_info); throws ValueError for an unknown one.
const GateInfo& gate_info(int64_t opcode);

struct Gate {
  int64_t op;
  std::vector<int> qubits;       // controls first, target(s) last
  std::vector<int64_t> slots;    // parameter slots (see the header comment)
  int n_controls = 0;             // kUnitary: qubits[0, n_controls) are controls
  int64_t matrix_offset = -1;     // kUnitary: where its matrix starts in constants
                                  // (channels: where their probabilities / matrices start)
  int n_terms = 0;                // kMixedUnitary, kKraus: number of unitaries / Kraus operators
};

/// max |(U^+ U - I)_{rc}| of a dim x dim row-major matrix; +infinity when an entry is not finite.
double unitarity_deviation(const complex128* matrix, size_t dim);

/// Decodes and validates a circuit (opcodes, qubit range and repeats, slots against
/// n_params (skipped when < 0) and constants, unitarity of matrix gates); errors name the gate index.
/// Noise channels are accepted only with allow_channels (density-matrix simulation); otherwise a
/// channel is a ValueError naming it.
std::vector<Gate> decode_circuit(const std::vector<int64_t>& circuit, int64_t n_params,
                                 const std::vector<double>& constants, int64_t n_qubits, const char* who,
                                 bool allow_channels = false);
/// Decodes and validates the one gate or channel starting at circuit[i] into g, as decode_circuit
/// does for each; returns the number of entries it takes. Errors are prefixed by `where` as given
/// (decode_circuit passes "who: gate 3 (CNOT)").
size_t decode_gate(const std::vector<int64_t>& circuit, size_t i, int64_t n_params, const std::vector<double>& constants,
                   int64_t n_qubits, const std::string& where, Gate& g);

/// A gate as a matrix: `m` (2^k x 2^k row-major, local bit j = targets[j]) acting where every bit
/// of cmask is set. With derivative = j >= 0, the derivative of the matrix in the gate's j-th
/// angle (zero outside the controls). Channels have no gate matrix (ValueError).
struct GateMatrix {
  std::vector<int> targets;
  uint64_t cmask = 0;
  std::vector<complex128> m;
};
GateMatrix gate_matrix(const Gate& g, const double* params, const std::vector<double>& constants,
                       int derivative = -1);

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
/// d Re<cotangent, psi(params)>/dparams (<a, b> = sum conj(a) b) by the adjoint method: the vjp
/// of the state for a complex cotangent [2^n]; written into grad (n_params entries).
void statevector_vjp(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                     const std::vector<double>& constants, int n_qubits, const complex128* cotangent, double* grad);
/// dE/dparams by the adjoint method (two state copies besides `scratch` use), written into grad
/// (n_params entries, zeroed first).
void adjoint_gradient(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                      const std::vector<double>& constants, const std::vector<PauliTerm>& h, int n_qubits,
                      double* grad);

}  // namespace sampan::quantum
