// sampan quantum: OpenQASM 2.0 import and export for the C++ circuit builder, and the reader and
// writer behind Python's Circuit.from_qasm / to_qasm (python/sampan/quantum/qasm.py, through the
// bindings sp._C.quantum_parse_qasm / quantum_to_qasm). Language covered and conventions: the
// README's OpenQASM paragraph.
//
//   QasmProgram p = parse_qasm(text);      // ValueError "from_qasm: line L, column C: ..." when malformed
//   Tensor psi = p.circuit.state(params);   // state before the terminal measurements
//   std::string text2 = to_qasm(p);         // gates, cregs, measurements, resets
//
// qregs are laid out in declaration order (the second qreg's qubit 0 follows the first qreg) and
// qubit q is bit q of the amplitude index: Qiskit's little-endian layout, so states agree with
// qiskit.quantum_info.Statevector of the same text without reordering. Gates have Qiskit's
// matrices, global phase included (rz = exp(-i phi Z/2), cu's fourth angle a phase on the control).
// Terminal measurements are recorded in `measurements`; a measurement followed by a gate or reset on
// its qubit is mid-circuit: the circuit gets the non-selective measurement channel (Kraus
// {|0><0|, |1><1|}) there, so it runs on density matrices. `reset` is the reset channel (dropped for
// a qubit nothing touched yet). `if (creg == n) qop;` (qop a gate, measure or reset) is recorded
// in `conditions`: the gates, measurement channel or reset channel of that statement form a
// conditional range (one per broadcast instance, as Qiskit reads it); measurements into that
// register before it become mid-circuit, and a conditional measurement is always mid-circuit.
// `opaque` is refused.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sampan/quantum/circuit_builder.h"
#include "sampan/quantum/classical.h"

namespace sampan::quantum {

using QasmMidMeasurement = MidMeasurement;  // see classical.h
/// The state-vector and density-matrix ops cannot run a circuit with conditions (they would apply
/// the gates unconditionally); Python's Circuit.counts and the shot-branching runner
/// (distributed.h: run_measured_circuit) follow the branches.
using QasmCondition = ClassicalCondition;

struct QasmProgram {
  Circuit circuit{1};
  std::vector<std::pair<std::string, int64_t>> cregs;   // classical registers in declaration order
  std::vector<std::pair<int64_t, int64_t>> measurements; // terminal (qubit, classical bit), by bit
  std::vector<QasmMidMeasurement> mid_measurements;
  std::vector<QasmCondition> conditions;
};

/// A gate the reader knows without a definition: qelib1.inc's (with U and CX) and the extension ryy.
struct QasmGateInfo {
  std::string name;
  int n_params, n_qubits;
  bool in_paper;  // in the paper's qelib1.inc (Qiskit's default reader knows only these)
};
std::vector<QasmGateInfo> qasm_builtin_gates();

/// Parses OpenQASM 2.0 text (see the header comment). Every error is a ValueError naming the line
/// and column (inside a gate body, also where the gate was used).
QasmProgram parse_qasm(const std::string& text);

/// OpenQASM 2.0 text of a circuit with its registers and measurements; trainable angles take their
/// values from params (ValueError when a slot has none). Gates that the paper's qelib1.inc lacks
/// are written with exact `gate` definitions, so Qiskit's default qasm2.loads reads the text. Matrix
/// gates: fixed qelib1 gates by name, other 1-qubit matrices as u3 (up to a global phase) or with
/// one control as cu; other matrices and noise channels (but reset and mid-circuit measurement)
/// are a ValueError.
std::string to_qasm(const QasmProgram& program, const std::vector<double>& params = {});
std::string to_qasm(const Circuit& circuit, const std::vector<double>& params = {});
/// The same from a circuit's encoding (circuit.h) and constants, as Python's Circuit._encode() gives.
std::string to_qasm(int64_t n_qubits, const std::vector<int64_t>& encoding, const std::vector<double>& constants,
                    const std::vector<double>& params, const std::vector<std::pair<std::string, int64_t>>& cregs,
                    const std::vector<std::pair<int64_t, int64_t>>& measurements,
                    const std::vector<QasmMidMeasurement>& mid_measurements,
                    const std::vector<QasmCondition>& conditions = {});

}  // namespace sampan::quantum
