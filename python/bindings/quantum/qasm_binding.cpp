// sampan Python bindings of the OpenQASM 2.0 reader and writer (sampan/quantum/qasm.h), used by
// Circuit.from_qasm / to_qasm (python/sampan/quantum/qasm.py decodes and encodes the circuit).
#include <tuple>

#include "bindings.h"
#include "sampan/quantum/qasm.h"

namespace sampan::python {

namespace {

py::dict parse_qasm(const std::string& text) {
  const quantum::QasmProgram p = quantum::parse_qasm(text);
  py::list mid;
  for (const auto& m : p.mid_measurements) mid.append(py::make_tuple(m.gate, m.qubit, m.clbits));
  py::dict out;
  out["n_qubits"] = p.circuit.n_qubits();
  out["encoding"] = p.circuit.encoding();
  out["constants"] = p.circuit.constants();
  out["cregs"] = p.cregs;
  out["measurements"] = p.measurements;
  out["mid_measurements"] = mid;
  py::list conditions;
  for (const auto& k : p.conditions)
    conditions.append(py::make_tuple(k.gate_begin, k.gate_end, k.clbit_offset, k.n_bits, k.value));
  out["conditions"] = conditions;
  return out;
}

std::string to_qasm(int64_t n_qubits, const std::vector<int64_t>& encoding, const std::vector<double>& constants,
                    const std::vector<double>& params, const std::vector<std::pair<std::string, int64_t>>& cregs,
                    const std::vector<std::pair<int64_t, int64_t>>& measurements,
                    const std::vector<std::tuple<int64_t, int64_t, std::vector<int64_t>>>& mid,
                    const std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>>& conditions) {
  std::vector<quantum::QasmMidMeasurement> m;
  for (const auto& [gate, qubit, bits] : mid) m.push_back({gate, qubit, bits});
  std::vector<quantum::QasmCondition> k;
  for (const auto& [b, e, off, n, v] : conditions) k.push_back({b, e, off, n, v});
  return quantum::to_qasm(n_qubits, encoding, constants, params, cregs, measurements, m, k);
}

py::dict builtin_gates() {
  py::dict out;
  for (const auto& g : quantum::qasm_builtin_gates()) out[py::str(g.name)] = py::make_tuple(g.n_params, g.n_qubits, g.in_paper);
  return out;
}

void init_quantum_qasm(py::module_& m) {
  m.def("quantum_qasm_builtin_gates", &builtin_gates,
        "{name: (n_params, n_qubits, in the paper's qelib1.inc)} of the gates the QASM reader knows without a definition.");
  m.def("quantum_parse_qasm", &parse_qasm, py::arg("text"),
        "The C++ OpenQASM 2.0 reader: {n_qubits, encoding, constants, cregs, measurements (qubit, clbit), "
        "mid_measurements (gate, qubit, clbits), conditions (gate_begin, gate_end, clbit_offset, n_bits, value)}; ValueError with line and column when malformed.");
  m.def("quantum_to_qasm", &to_qasm, py::arg("n_qubits"), py::arg("encoding"), py::arg("constants"),
        py::arg("params"), py::arg("cregs"), py::arg("measurements"), py::arg("mid_measurements"),
        py::arg("conditions") = std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>>{},
        "The C++ OpenQASM 2.0 writer for an encoded circuit (see Circuit._encode) and its registers.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(quantum_qasm, init_quantum_qasm);

}  // namespace sampan::python
