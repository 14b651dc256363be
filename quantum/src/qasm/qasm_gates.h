// The gates of OpenQASM 2.0's qelib1.inc as calls of the C++ circuit builder, with Qiskit's matrices.
//
// qelib1.inc (Cross et al., arXiv:1707.03429, and the later additions Qiskit ships: p, cp, u, sx,
// sxdg, csx, cu, rxx, rzz, rccx, rc3x, c3x, c3sqrtx, c4x, u0) defines each gate by a body whose
// global phase is sometimes lost (rz = u1 differs from exp(-i phi Z/2) by e^{-i phi/2}). A reader
// that means to agree with other tools must pick one reading: we take the matrices of Qiskit's
// standard gates (RZ = diag(e^{-i phi/2}, e^{i phi/2}), SX = [[1+i, 1-i], [1-i, 1+i]]/2, CU with its
// fourth angle as a phase on the control, ...), so an imported state equals
// qiskit.quantum_info.Statevector of qiskit.qasm2.loads of the same text, global phase included
// (bench/quantum/qasm_roundtrip.py). Native gates map to builder methods; sx, sxdg, ch, csx, c3x,
// c4x and c3sqrtx become fixed (controlled) matrix gates; rccx and rc3x their defining sequences of
// H, T, Tdg and CNOT (the relative-phase Toffolis are defined by those); id and u0 are identities.
#pragma once

#include <string>
#include <vector>

#include "sampan/quantum/circuit_builder.h"
#include "sampan/quantum/qasm.h"

namespace sampan::quantum::qasm {

struct BuiltinGate {
  int n_params = 0, n_qubits = 0;
  bool in_paper = false;  // in the paper's qelib1.inc: a program may not redefine it
};

/// The built-in gate `name` (qelib1.inc, U, CX, and the extension ryy), or nullptr.
const BuiltinGate* builtin_gate(const std::string& name);
/// Every built-in gate (qasm.h's qasm_builtin_gates).
std::vector<QasmGateInfo> builtin_gate_list();
/// Appends the built-in gate to the circuit (angles and qubits already checked for count).
void emit_builtin(Circuit& c, const std::string& name, const std::vector<double>& a, const std::vector<int64_t>& q);

/// Fixed matrices by name for export: (name, number of controls, 2x2 matrix).
struct NamedMatrix {
  const char* name;
  int n_controls;
  std::vector<complex128> matrix;
};
const std::vector<NamedMatrix>& named_matrices();

/// (theta, phi, lam, gamma) with u = e^{i gamma} U3(theta, phi, lam) for a 2x2 unitary (row-major).
std::vector<double> zyz_angles(const std::vector<complex128>& u);

}  // namespace sampan::quantum::qasm
