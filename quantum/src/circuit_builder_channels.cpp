// sampan quantum: noise channels and density-matrix runs of the C++ circuit builder
// (circuit_builder.h). Every channel is validated when added, by check_gate (decoding it as the ops will).
#include <cmath>

#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/circuit_builder.h"

namespace sampan::quantum {

Circuit& Circuit::channel(ChannelOpcode op, const std::vector<int64_t>& qubits, const std::vector<Angle>& values) {
  std::vector<double> local;
  std::vector<int64_t> gate = fragment(op, qubits, values, local);
  return append(std::move(gate), local, qubits);
}

Circuit& Circuit::matrix_channel(ChannelOpcode op, int64_t m, const std::vector<int64_t>& qubits,
                                 const std::vector<double>& numbers) {
  std::vector<int64_t> gate = {op, static_cast<int64_t>(qubits.size())};
  if (gate_spec(op).layout == Layout::kMatrixTerms) gate.push_back(m);
  gate.insert(gate.end(), qubits.begin(), qubits.end());
  gate.push_back(0);  // the numbers at local offset 0
  return append(std::move(gate), numbers, qubits);
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
