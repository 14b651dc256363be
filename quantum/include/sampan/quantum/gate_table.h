// sampan quantum: the one table of gates and noise channels. Every fact about a gate that more
// than one place needs (its name, its opcode, how many qubits, controls and parameters it takes,
// whether it is a channel, how it is laid out in the circuit encoding of circuit.h) is written
// here once; the decoder (decode_circuit), the C++ builder (circuit_builder.h), the ops'
// docstrings and Python's sampan.quantum.Circuit (through sp._C.quantum_gate_table) read it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace sampan::quantum {

/// How one gate's entries are laid out in the circuit encoding (circuit.h). A slot s >= 0 reads
/// params[s], s < 0 reads constants[-s - 1]; an offset is where a matrix starts in constants.
enum class Layout {
  kFixed,        // [op, qubit x n_qubits, slot x n_params]
  kUnitary,      // [op, n_controls, k, controls..., targets..., offset]   (UNITARY)
  kQubitList,    // [op, k, q_1..q_k, slot x n_params]                    (GENERALIZED_DEPOLARIZING)
  kMatrixTerms,  // [op, k, m, q_1..q_k, offset]                          (MIXED_UNITARY, KRAUS)
  kMatrix,       // [op, k, q_1..q_k, offset]                             (CHOI)
};
/// "fixed", "unitary", "qubit_list", "matrix_terms", "matrix".
const char* layout_name(Layout layout);

struct GateSpec {
  const char* name;    // the encoding's name, used in error messages: "CNOT", "KRAUS"
  const char* method;  // the gate's name in sampan.quantum.Circuit (its method, Circuit.gates()): "cnot", "kraus_repr"
  int64_t opcode;
  int n_qubits;        // -1: variable, carried by the encoding (k)
  int n_params;        // parameter slots (0 for fixed gates and matrix channels)
  int n_controls;      // leading control qubits; -1: carried by the encoding (UNITARY)
  bool channel;        // a noise channel: density-matrix simulation only
  Layout layout;
};

/// Every gate (opcodes 0 ...) then every channel (opcodes 100 ...), in opcode order.
const std::vector<GateSpec>& gate_table();
/// The entry of an opcode; ValueError naming the valid ranges for an unknown one.
const GateSpec& gate_spec(int64_t opcode);
/// The entry whose `method` is `method`, or nullptr.
const GateSpec* find_gate(std::string_view method);

}  // namespace sampan::quantum
