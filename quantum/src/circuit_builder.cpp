// sampan quantum: the C++ circuit builder (see circuit_builder.h).
#include "sampan/quantum/circuit_builder.h"

#include <algorithm>
#include <cmath>

#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

Angle::Angle(Param p) : slot_(p.index), value_(0) {
  SAMPAN_CHECK(p.index >= 0, ValueError, "quantum::Circuit: a parameter slot must be >= 0, got ", p.index);
}

Circuit::Circuit(int64_t n_qubits) : n_(n_qubits) {
  SAMPAN_CHECK(n_qubits >= 1 && n_qubits <= 60, ValueError, "quantum::Circuit: n_qubits must be in [1, 60], got ",
               n_qubits);
}

void Circuit::check(Opcode op, const std::vector<int64_t>& qubits) const {
  const std::string who = "quantum::Circuit: gate " + std::to_string(size()) + " (" + gate_info(op).name + ")";
  check_qubits(qubits, n_, who.c_str());
}

Circuit& Circuit::fixed(Opcode op, std::vector<int64_t> qubits) {
  return rotation(op, std::move(qubits), {});
}

Circuit& Circuit::rotation(Opcode op, std::vector<int64_t> qubits, const std::vector<Angle>& angles) {
  check(op, qubits);
  for (const Angle& a : angles)
    SAMPAN_CHECK(a.trainable() || std::isfinite(a.value()), ValueError, "quantum::Circuit: gate ", size(), " (",
                 gate_info(op).name, "): the angle ", a.value(), " is not finite");
  enc_.push_back(op);
  enc_.insert(enc_.end(), qubits.begin(), qubits.end());
  for (const Angle& a : angles) {
    if (a.trainable()) {
      enc_.push_back(a.slot());
      n_params_ = std::max(n_params_, a.slot() + 1);
    } else {
      constants_.push_back(a.value());
      enc_.push_back(-static_cast<int64_t>(constants_.size()));  // slot -k-1 reads constants[k]
    }
  }
  gate_qubits_.push_back(std::move(qubits));
  return *this;
}

Circuit& Circuit::unitary(const std::vector<complex128>& matrix, const std::vector<int64_t>& targets,
                          const std::vector<int64_t>& controls) {
  const std::string who = "quantum::Circuit: gate " + std::to_string(size()) + " (UNITARY)";
  const size_t k = targets.size();
  SAMPAN_CHECK(k >= 1 && k <= 10, ValueError, who, ": expected 1 to 10 target qubits, got ", k);
  const size_t dim = size_t(1) << k;
  SAMPAN_CHECK(matrix.size() == dim * dim, ValueError, who, ": a matrix on ", k, " qubit(s) has ", dim, "x", dim,
               " = ", dim * dim, " entries, got ", matrix.size());
  std::vector<int64_t> qubits(controls);
  qubits.insert(qubits.end(), targets.begin(), targets.end());
  check_qubits(qubits, n_, who.c_str());
  const double dev = unitarity_deviation(matrix.data(), dim);
  SAMPAN_CHECK(dev <= 1e-10, ValueError, who, ": the ", dim, "x", dim, " matrix is not unitary: max |U^+ U - I| = ",
               dev, " (tolerance 1e-10)");
  const int64_t offset = static_cast<int64_t>(constants_.size());
  for (const complex128& v : matrix) {
    constants_.push_back(v.real());
    constants_.push_back(v.imag());
  }
  enc_.push_back(kUnitary);
  enc_.push_back(static_cast<int64_t>(controls.size()));
  enc_.push_back(static_cast<int64_t>(k));
  enc_.insert(enc_.end(), qubits.begin(), qubits.end());
  enc_.push_back(offset);
  gate_qubits_.push_back(std::move(qubits));
  return *this;
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
