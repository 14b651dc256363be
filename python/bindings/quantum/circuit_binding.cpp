// sampan Python bindings of the gate table (sampan/quantum/gate_table.h) and of the checks every
// gate passes (check_gate in sampan/quantum/circuit_builder.h): sampan.quantum.Circuit reads its
// gates, opcodes and encoding layouts from the table at import, and validates each gate it adds
// with the C++ builder's own check (IndexError / ValueError, as raised in C++).
#include "bindings.h"
#include "sampan/quantum/circuit_builder.h"
#include "sampan/quantum/gate_table.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::python {

namespace {

py::list gate_table() {
  py::list out;
  for (const quantum::GateSpec& g : quantum::gate_table()) {
    py::dict d;
    d["name"] = g.name;
    d["method"] = g.method;
    d["opcode"] = g.opcode;
    d["n_qubits"] = g.n_qubits;
    d["n_params"] = g.n_params;
    d["n_controls"] = g.n_controls;
    d["channel"] = g.channel;
    d["layout"] = quantum::layout_name(g.layout);
    out.append(d);
  }
  return out;
}

void init_quantum_circuit(py::module_& m) {
  m.def("quantum_gate_table", &gate_table,
        "Every gate then every noise channel of the circuit encoding, in opcode order: [{name (as in error "
        "messages, 'CNOT'), method (sampan.quantum.Circuit's, 'cnot'), opcode, n_qubits (-1: variable), n_params, "
        "n_controls (-1: in the encoding), channel, layout ('fixed', 'unitary', 'qubit_list', 'matrix_terms', "
        "'matrix')}] (sampan/quantum/gate_table.h).");
  m.def("quantum_check_gate",
        [](const std::vector<int64_t>& gate, const std::vector<double>& constants, int64_t n_qubits,
           const std::string& who) { quantum::check_gate(gate, constants, n_qubits, who); },
        py::arg("gate"), py::arg("constants"), py::arg("n_qubits"), py::arg("who"),
        "Validates one gate or channel given as an encoding fragment (slots >= 0 trainable, s < 0 reading "
        "constants[-s-1], offsets into constants) as the C++ builder does; raises IndexError or ValueError "
        "prefixed by `who`.");
  m.def("quantum_check_qubits",
        [](const std::vector<int64_t>& qubits, int64_t n_qubits, const std::string& who, bool distinct) {
          quantum::check_qubits(qubits, n_qubits, who.c_str(), distinct);
        },
        py::arg("qubits"), py::arg("n_qubits"), py::arg("who"), py::arg("distinct") = true,
        "IndexError unless every qubit is in [0, n_qubits); with distinct, ValueError when one repeats.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(quantum_circuit, init_quantum_circuit);

}  // namespace sampan::python
