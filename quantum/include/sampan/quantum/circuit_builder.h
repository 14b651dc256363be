// sampan quantum: a user-facing circuit builder for C++, one method per gate, producing the
// compact encoding of circuit.h that the quantum ops take (the C++ twin of Python's
// sampan.quantum.Circuit).
//
//   using namespace sampan::quantum;
//   Circuit c(2);
//   c.h(0).cnot(0, 1).ry(c.new_param(), 0).rz(0.3, 1);     // a trainable slot, a fixed angle
//   Tensor params = from_vector(std::vector<double>{0.1}, {1}).requires_grad_();
//   Tensor e = c.expectation(params, {3, 3}, {1.0});          // <Z0 Z1>, differentiable
//   Tensor psi = c.state(params);                              // complex128 [4]
//
// Qubit q is bit q of the amplitude index (qubit 0 least significant). Every method validates
// at once, by check_gate (below): a qubit outside [0, n) is an IndexError, a qubit repeated within
// one gate and a non-unitary matrix are ValueErrors, each naming the gate and the values involved.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <vector>

#include "sampan/quantum/circuit.h"
#include "sampan/tensor.h"

namespace sampan::quantum {

/// The checks every method of Circuit makes, for one gate or channel given as a fragment of the
/// circuit encoding (circuit.h) on n_qubits qubits: its layout (gate table), qubits in range and
/// distinct, fixed angles and channel parameters (slots < 0, read from `constants`) finite and in
/// their domains, matrices unitary, channels trace preserving (and Choi matrices positive), matrix
/// offsets inside `constants`. Slots >= 0 (trainable) are not range checked. Errors (IndexError,
/// ValueError) are prefixed by `who`. Python's sampan.quantum.Circuit validates each gate with it
/// too (sp._C.quantum_check_gate).
void check_gate(const std::vector<int64_t>& gate, const std::vector<double>& constants, int64_t n_qubits,
                const std::string& who);

/// A trainable parameter slot: the angle is params[index] at run time.
struct Param {
  int64_t index;
};

/// An angle: a fixed number (implicitly from double) or a trainable slot (from Param).
class Angle {
 public:
  Angle(double value) : slot_(-1), value_(value) {}  // NOLINT: implicit on purpose
  Angle(Param p);                                     // NOLINT: implicit on purpose
  bool trainable() const { return slot_ >= 0; }
  int64_t slot() const { return slot_; }
  double value() const { return value_; }

 private:
  int64_t slot_;
  double value_;
};

class Circuit {
 public:
  /// n_qubits in [1, 60]; ValueError otherwise.
  explicit Circuit(int64_t n_qubits);

  int64_t n_qubits() const { return n_; }
  /// A new trainable slot (0, 1, 2, ... in order of calls); run with params of at least n_params().
  Param new_param() { return Param{n_params_++}; }
  /// One more than the highest trainable slot used or created.
  int64_t n_params() const { return n_params_; }

  // One-qubit gates.
  Circuit& h(int64_t q) { return fixed(kH, {q}); }
  Circuit& x(int64_t q) { return fixed(kX, {q}); }
  Circuit& y(int64_t q) { return fixed(kY, {q}); }
  Circuit& z(int64_t q) { return fixed(kZ, {q}); }
  Circuit& s(int64_t q) { return fixed(kS, {q}); }
  Circuit& sdg(int64_t q) { return fixed(kSdg, {q}); }
  Circuit& t(int64_t q) { return fixed(kT, {q}); }
  Circuit& tdg(int64_t q) { return fixed(kTdg, {q}); }
  Circuit& p(Angle theta, int64_t q) { return rotation(kP, {q}, {theta}); }
  Circuit& rx(Angle theta, int64_t q) { return rotation(kRX, {q}, {theta}); }
  Circuit& ry(Angle theta, int64_t q) { return rotation(kRY, {q}, {theta}); }
  Circuit& rz(Angle theta, int64_t q) { return rotation(kRZ, {q}, {theta}); }
  /// U3(theta, phi, lam) = [[cos t/2, -e^{i lam} sin t/2], [e^{i phi} sin t/2, e^{i(phi+lam)} cos t/2]].
  Circuit& u3(Angle theta, Angle phi, Angle lam, int64_t q) { return rotation(kU3, {q}, {theta, phi, lam}); }

  // Two- and three-qubit gates (controls first).
  Circuit& cnot(int64_t control, int64_t target) { return fixed(kCNOT, {control, target}); }
  Circuit& cx(int64_t control, int64_t target) { return cnot(control, target); }
  Circuit& cy(int64_t control, int64_t target) { return fixed(kCY, {control, target}); }
  Circuit& cz(int64_t control, int64_t target) { return fixed(kCZ, {control, target}); }
  Circuit& swap(int64_t a, int64_t b) { return fixed(kSWAP, {a, b}); }
  Circuit& cp(Angle theta, int64_t control, int64_t target) { return rotation(kCP, {control, target}, {theta}); }
  Circuit& crx(Angle theta, int64_t control, int64_t target) { return rotation(kCRX, {control, target}, {theta}); }
  Circuit& cry(Angle theta, int64_t control, int64_t target) { return rotation(kCRY, {control, target}, {theta}); }
  Circuit& crz(Angle theta, int64_t control, int64_t target) { return rotation(kCRZ, {control, target}, {theta}); }
  /// exp(-i theta/2 P(x)P) for P = X, Y, Z.
  Circuit& rxx(Angle theta, int64_t a, int64_t b) { return rotation(kRXX, {a, b}, {theta}); }
  Circuit& ryy(Angle theta, int64_t a, int64_t b) { return rotation(kRYY, {a, b}, {theta}); }
  Circuit& rzz(Angle theta, int64_t a, int64_t b) { return rotation(kRZZ, {a, b}, {theta}); }
  /// Controlled U3 without an extra global phase (Paddle Quantum's cu).
  Circuit& cu(Angle theta, Angle phi, Angle lam, int64_t control, int64_t target) {
    return rotation(kCU, {control, target}, {theta, phi, lam});
  }
  /// Molmer-Sorensen exp(+i pi/4 X(x)X) = RXX(-pi/2).
  Circuit& ms(int64_t a, int64_t b) { return fixed(kMS, {a, b}); }
  Circuit& ccx(int64_t c0, int64_t c1, int64_t target) { return fixed(kCCX, {c0, c1, target}); }
  Circuit& toffoli(int64_t c0, int64_t c1, int64_t target) { return ccx(c0, c1, target); }
  Circuit& cswap(int64_t control, int64_t a, int64_t b) { return fixed(kCSWAP, {control, a, b}); }
  /// A fixed 2^k x 2^k row-major matrix on `targets` (targets[j] is local bit j), applied where
  /// every qubit of `controls` is 1; ValueError unless max |U^+ U - I| <= 1e-10.
  Circuit& unitary(const std::vector<complex128>& matrix, const std::vector<int64_t>& targets,
                   const std::vector<int64_t>& controls = {});

  // Noise channels (density-matrix simulation only; conventions and validation in channels.h).
  // Parameters are Angles: fixed numbers or trainable slots, differentiated like angles. Each
  // call is validated at once (qubits, parameter domains of fixed values, trace preservation).
  Circuit& bit_flip(Angle p, int64_t q) { return channel(kBitFlip, {q}, {p}); }
  Circuit& phase_flip(Angle p, int64_t q) { return channel(kPhaseFlip, {q}, {p}); }
  Circuit& bit_phase_flip(Angle p, int64_t q) { return channel(kBitPhaseFlip, {q}, {p}); }
  Circuit& amplitude_damping(Angle gamma, int64_t q) { return channel(kAmplitudeDamping, {q}, {gamma}); }
  Circuit& generalized_amplitude_damping(Angle gamma, Angle p, int64_t q) {
    return channel(kGeneralizedAmplitudeDamping, {q}, {gamma, p});
  }
  Circuit& phase_damping(Angle gamma, int64_t q) { return channel(kPhaseDamping, {q}, {gamma}); }
  Circuit& depolarizing(Angle p, int64_t q) { return channel(kDepolarizing, {q}, {p}); }
  Circuit& pauli_channel(Angle px, Angle py, Angle pz, int64_t q) { return channel(kPauliChannel, {q}, {px, py, pz}); }
  Circuit& reset(Angle p0, Angle p1, int64_t q) { return channel(kReset, {q}, {p0, p1}); }
  /// T1, T2 and t in one unit; T2 <= 2 T1.
  Circuit& thermal_relaxation(Angle t1, Angle t2, Angle time, int64_t q) {
    return channel(kThermalRelaxation, {q}, {t1, t2, time});
  }
  /// (1 - p) rho + p tr_Q(rho) (x) I/2^k on the k = 1..3 qubits together.
  Circuit& generalized_depolarizing(Angle p, const std::vector<int64_t>& qubits) {
    return channel(kGeneralizedDepolarizing, qubits, {p});
  }
  /// sum_k K_k rho K_k^+ (row-major 2^k x 2^k operators; qubits[0] is local bit 0).
  Circuit& kraus(const std::vector<std::vector<complex128>>& ops, const std::vector<int64_t>& qubits);
  /// sum_m p_m U_m rho U_m^+.
  Circuit& mixed_unitary(const std::vector<std::vector<complex128>>& unitaries, const std::vector<double>& probs,
                         const std::vector<int64_t>& qubits);
  /// The channel of the Choi matrix J = sum_ij |i><j| (x) E(|i><j|) (4^k x 4^k, input factor first).
  Circuit& choi(const std::vector<complex128>& choi_matrix, const std::vector<int64_t>& qubits);
  /// rho after the circuit (complex128 [2^n, 2^n]) via op quantum::density_matrix (differentiable).
  Tensor density_matrix(const Tensor& params) const;
  /// tr(H rho) via op quantum::dm_expectation (differentiable, adjoint method over channels).
  Tensor dm_expectation(const Tensor& params, const std::vector<int64_t>& paulis, const std::vector<double>& coeffs) const;

  /// The encoding the quantum ops take (circuit.h) and its constants.
  const std::vector<int64_t>& encoding() const { return enc_; }
  const std::vector<double>& constants() const { return constants_; }
  /// Number of gates, and the depth (each gate starts after the last gate on any of its qubits).
  int64_t size() const { return static_cast<int64_t>(gate_qubits_.size()); }
  int64_t depth() const;

  /// The state circuit(params)|0...0> (complex128 [2^n]) via op quantum::statevector. params:
  /// float64 [P] with P >= n_params() (an empty tensor when nothing is trainable).
  Tensor state(const Tensor& params) const;
  /// <psi|H|psi> via op quantum::expectation (differentiable in params, adjoint method). paulis:
  /// n_qubits codes per term (0 = I, 1 = X, 2 = Y, 3 = Z), coeffs: one per term.
  Tensor expectation(const Tensor& params, const std::vector<int64_t>& paulis, const std::vector<double>& coeffs) const;

 private:
  Circuit& fixed(Opcode op, std::vector<int64_t> qubits);
  Circuit& rotation(Opcode op, std::vector<int64_t> qubits, const std::vector<Angle>& angles);
  Circuit& channel(ChannelOpcode op, const std::vector<int64_t>& qubits, const std::vector<Angle>& values);
  Circuit& matrix_channel(ChannelOpcode op, int64_t m, const std::vector<int64_t>& qubits,
                          const std::vector<double>& numbers);
  // Validates `gate`, whose fixed values are local (slot -j-1 reads values[j], an offset indexes
  // values), with check_gate and appends it, its values moved to the end of constants().
  Circuit& append(std::vector<int64_t> gate, const std::vector<double>& values, std::vector<int64_t> qubits);
  std::vector<int64_t> fragment(int64_t op, const std::vector<int64_t>& qubits, const std::vector<Angle>& values,
                                std::vector<double>& local) const;

  int64_t n_;
  int64_t n_params_ = 0;
  std::vector<int64_t> enc_;
  std::vector<double> constants_;
  std::vector<std::vector<int64_t>> gate_qubits_;
};

}  // namespace sampan::quantum
