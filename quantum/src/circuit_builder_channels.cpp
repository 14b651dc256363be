// sampan quantum: noise channels and density-matrix runs of the C++ circuit builder
// (circuit_builder.h). Every channel is validated when added, by decoding it as the ops will.
#include <cmath>

#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/circuit_builder.h"

namespace sampan::quantum {

void Circuit::append_channel(std::vector<int64_t> fragment, std::vector<double> constants, std::vector<int64_t> qubits) {
  Gate g{fragment[0], {}, {}};
  const std::string where = "quantum::Circuit: gate " + std::to_string(size());
  decode_channel(fragment, 0, -1, constants, n_, where, g);  // throws with the gate and values named
  enc_.insert(enc_.end(), fragment.begin(), fragment.end());
  constants_ = std::move(constants);
  gate_qubits_.push_back(std::move(qubits));
}

Circuit& Circuit::channel(ChannelOpcode op, const std::vector<int64_t>& qubits, const std::vector<Angle>& values) {
  std::vector<int64_t> frag = {op};
  if (op == kGeneralizedDepolarizing) frag.push_back(static_cast<int64_t>(qubits.size()));
  SAMPAN_CHECK(op != kGeneralizedDepolarizing || (qubits.size() >= 1 && qubits.size() <= 3), ValueError,
               "quantum::Circuit: gate ", size(), " (GENERALIZED_DEPOLARIZING) acts on 1 to 3 qubits, got ",
               qubits.size());
  frag.insert(frag.end(), qubits.begin(), qubits.end());
  std::vector<double> constants = constants_;
  int64_t max_slot = -1;
  for (const Angle& a : values) {
    if (a.trainable()) {
      frag.push_back(a.slot());
      max_slot = std::max(max_slot, a.slot());
    } else {
      SAMPAN_CHECK(std::isfinite(a.value()), ValueError, "quantum::Circuit: gate ", size(), " (",
                   channel_info(op).name, "): the parameter ", a.value(), " is not finite");
      constants.push_back(a.value());
      frag.push_back(-static_cast<int64_t>(constants.size()));
    }
  }
  append_channel(std::move(frag), std::move(constants), qubits);
  n_params_ = std::max(n_params_, max_slot + 1);
  return *this;
}

Circuit& Circuit::matrix_channel(ChannelOpcode op, int64_t m, const std::vector<int64_t>& qubits,
                                 const std::vector<double>& numbers) {
  std::vector<int64_t> frag = {op, static_cast<int64_t>(qubits.size())};
  if (op != kChoi) frag.push_back(m);
  frag.insert(frag.end(), qubits.begin(), qubits.end());
  std::vector<double> constants = constants_;
  frag.push_back(static_cast<int64_t>(constants.size()));
  constants.insert(constants.end(), numbers.begin(), numbers.end());
  append_channel(std::move(frag), std::move(constants), qubits);
  return *this;
}

namespace {
// Appends a 2^k x 2^k matrix as (re, im) pairs after checking its size.
void push_matrix(std::vector<double>& out, const std::vector<complex128>& m, size_t dim, const char* what, size_t i) {
  SAMPAN_CHECK(m.size() == dim * dim, ValueError, "quantum::Circuit: ", what, " ", i, " must have ", dim * dim,
               " entries (", dim, "x", dim, "), got ", m.size());
  for (const complex128& v : m) {
    out.push_back(v.real());
    out.push_back(v.imag());
  }
}
}  // namespace

Circuit& Circuit::kraus(const std::vector<std::vector<complex128>>& ops, const std::vector<int64_t>& qubits) {
  const size_t d = size_t(1) << std::min<size_t>(qubits.size(), 3);
  std::vector<double> numbers;
  for (size_t i = 0; i < ops.size(); ++i) push_matrix(numbers, ops[i], d, "Kraus operator", i);
  return matrix_channel(kKraus, static_cast<int64_t>(ops.size()), qubits, numbers);
}

Circuit& Circuit::mixed_unitary(const std::vector<std::vector<complex128>>& unitaries, const std::vector<double>& probs,
                                const std::vector<int64_t>& qubits) {
  SAMPAN_CHECK(unitaries.size() == probs.size(), ValueError, "quantum::Circuit: mixed_unitary has ", unitaries.size(),
               " unitaries but ", probs.size(), " probabilities");
  const size_t d = size_t(1) << std::min<size_t>(qubits.size(), 3);
  std::vector<double> numbers(probs);
  for (size_t i = 0; i < unitaries.size(); ++i) push_matrix(numbers, unitaries[i], d, "unitary", i);
  return matrix_channel(kMixedUnitary, static_cast<int64_t>(unitaries.size()), qubits, numbers);
}

Circuit& Circuit::choi(const std::vector<complex128>& choi_matrix, const std::vector<int64_t>& qubits) {
  const size_t d = size_t(1) << (2 * std::min<size_t>(qubits.size(), 3));
  std::vector<double> numbers;
  push_matrix(numbers, choi_matrix, d, "Choi matrix", 0);
  return matrix_channel(kChoi, 0, qubits, numbers);
}

Tensor Circuit::density_matrix(const Tensor& params) const {
  static OpHandle op("quantum::density_matrix");
  return op(params, enc_, constants_, n_)[0];
}

Tensor Circuit::dm_expectation(const Tensor& params, const std::vector<int64_t>& paulis,
                               const std::vector<double>& coeffs) const {
  static OpHandle op("quantum::dm_expectation");
  return op(params, enc_, constants_, n_, paulis, coeffs)[0];
}

}  // namespace sampan::quantum
