// sampan quantum: the C++ circuit builder (see circuit_builder.h) and check_gate, the one
// validation of a gate that the builder and Python's sampan.quantum.Circuit share.
#include "sampan/quantum/circuit_builder.h"

#include <algorithm>
#include <cmath>

#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

void check_gate(const std::vector<int64_t>& gate, const std::vector<double>& constants, int64_t n,
                const std::string& who) {
  SAMPAN_CHECK(!gate.empty(), ValueError, who, ": the gate's encoding is empty");
  const GateSpec& spec = gate_spec(gate[0]);
  // Fixed values first, in the words of the caller's arguments: they are the last n_params entries.
  if ((spec.layout == Layout::kFixed || spec.layout == Layout::kQubitList) && spec.n_params > 0 &&
      gate.size() >= 1 + static_cast<size_t>(spec.n_params)) {
    for (size_t j = gate.size() - static_cast<size_t>(spec.n_params); j < gate.size(); ++j) {
      const int64_t s = gate[j];
      if (s >= 0 || static_cast<size_t>(-s - 1) >= constants.size()) continue;  // decode_gate names these
      const double v = constants[static_cast<size_t>(-s - 1)];
      SAMPAN_CHECK(std::isfinite(v), ValueError, who, ": the ", spec.channel ? "parameter " : "angle ", v,
                   " is not finite");
    }
  }
  Gate g;
  const size_t used = decode_gate(gate, 0, -1, constants, n, who, g);
  SAMPAN_CHECK(used == gate.size(), ValueError, who, ": the gate takes ", used, " encoding entries, got ",
               gate.size());
}

Angle::Angle(Param p) : slot_(p.index), value_(0) {
  SAMPAN_CHECK(p.index >= 0, ValueError, "quantum::Circuit: a parameter slot must be >= 0, got ", p.index);
}

Circuit::Circuit(int64_t n_qubits) : n_(n_qubits) {
  SAMPAN_CHECK(n_qubits >= 1 && n_qubits <= 60, ValueError, "quantum::Circuit: n_qubits must be in [1, 60], got ",
               n_qubits);
}

std::vector<int64_t> Circuit::fragment(int64_t op, const std::vector<int64_t>& qubits, const std::vector<Angle>& values,
                                       std::vector<double>& local) const {
  std::vector<int64_t> gate = {op};
  if (gate_spec(op).layout == Layout::kQubitList) gate.push_back(static_cast<int64_t>(qubits.size()));
  gate.insert(gate.end(), qubits.begin(), qubits.end());
  for (const Angle& a : values) {
    if (a.trainable()) {
      gate.push_back(a.slot());
    } else {
      local.push_back(a.value());
      gate.push_back(-static_cast<int64_t>(local.size()));  // slot -k-1 reads local[k]
    }
  }
  return gate;
}

Circuit& Circuit::append(std::vector<int64_t> gate, const std::vector<double>& values, std::vector<int64_t> qubits) {
  const GateSpec& spec = gate_spec(gate[0]);
  check_gate(gate, values, n_, "quantum::Circuit: gate " + std::to_string(size()) + " (" + spec.name + ")");
  const int64_t base = static_cast<int64_t>(constants_.size());
  if (spec.layout == Layout::kFixed || spec.layout == Layout::kQubitList) {
    for (size_t j = gate.size() - static_cast<size_t>(spec.n_params); j < gate.size(); ++j) {
      if (gate[j] < 0) gate[j] -= base;  // local -k-1 -> -(base + k)-1
      else n_params_ = std::max(n_params_, gate[j] + 1);
    }
  } else {
    gate.back() += base;  // the matrix offset
  }
  constants_.insert(constants_.end(), values.begin(), values.end());
  enc_.insert(enc_.end(), gate.begin(), gate.end());
  gate_qubits_.push_back(std::move(qubits));
  return *this;
}

Circuit& Circuit::fixed(Opcode op, std::vector<int64_t> qubits) {
  return rotation(op, std::move(qubits), {});
}

Circuit& Circuit::rotation(Opcode op, std::vector<int64_t> qubits, const std::vector<Angle>& angles) {
  std::vector<double> local;
  std::vector<int64_t> gate = fragment(op, qubits, angles, local);
  return append(std::move(gate), local, std::move(qubits));
}

Circuit& Circuit::unitary(const std::vector<complex128>& matrix, const std::vector<int64_t>& targets,
                          const std::vector<int64_t>& controls) {
  const size_t k = targets.size();
  if (k >= 1 && k <= 10) {  // otherwise check_gate names k
    const size_t dim = size_t(1) << k;
    SAMPAN_CHECK(matrix.size() == dim * dim, ValueError, "quantum::Circuit: gate ", size(), " (UNITARY): a matrix on ",
                 k, " qubit(s) has ", dim, "x", dim, " = ", dim * dim, " entries, got ", matrix.size());
  }
  std::vector<int64_t> qubits(controls);
  qubits.insert(qubits.end(), targets.begin(), targets.end());
  std::vector<int64_t> gate = {kUnitary, static_cast<int64_t>(controls.size()), static_cast<int64_t>(k)};
  gate.insert(gate.end(), qubits.begin(), qubits.end());
  gate.push_back(0);  // the matrix at local offset 0
  std::vector<double> values;
  for (const complex128& v : matrix) {
    values.push_back(v.real());
    values.push_back(v.imag());
  }
  return append(std::move(gate), values, std::move(qubits));
}

int64_t Circuit::depth() const {
  std::vector<int64_t> level(static_cast<size_t>(n_), 0);
  int64_t depth = 0;
  for (const auto& qs : gate_qubits_) {
    int64_t d = 0;
    for (int64_t q : qs) d = std::max(d, level[static_cast<size_t>(q)]);
    for (int64_t q : qs) level[static_cast<size_t>(q)] = d + 1;
    depth = std::max(depth, d + 1);
  }
  return depth;
}

Tensor Circuit::state(const Tensor& params) const {
  static OpHandle op("quantum::statevector");
  return op(params, enc_, constants_, n_)[0];
}

Tensor Circuit::expectation(const Tensor& params, const std::vector<int64_t>& paulis,
                            const std::vector<double>& coeffs) const {
  static OpHandle op("quantum::expectation");
  return op(params, enc_, constants_, n_, paulis, coeffs)[0];
}

}  // namespace sampan::quantum
