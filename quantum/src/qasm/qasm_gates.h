// The gates of OpenQASM 2.0's qelib1.inc as calls of the C++ circuit builder, with Qiskit's
// matrices (the same table as python/sampan/quantum/qasm_gates.py; the reasons are written there).
#pragma once

#include <string>
#include <vector>

#include "sampan/quantum/circuit_builder.h"

namespace sampan::quantum::qasm {

struct BuiltinGate {
  int n_params = 0, n_qubits = 0;
  bool in_paper = false;  // in the paper's qelib1.inc: a program may not redefine it
};

/// The built-in gate `name` (qelib1.inc, U, CX, and the extension ryy), or nullptr.
const BuiltinGate* builtin_gate(const std::string& name);
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
