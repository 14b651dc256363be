// sampan quantum: the state vector and the qubit checks shared by every quantum op.
//
// Qubit convention (used everywhere in sampan.quantum): qubit q is bit q of the amplitude index,
// so qubit 0 is the least significant bit; |q_{n-1} ... q_1 q_0> has index sum q_j 2^j.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "sampan/tensor.h"

namespace sampan::quantum {

/// Bytes a state of 2^n amplitudes of `dtype` (complex64 or complex128) needs. Throws ValueError
/// for n < 1 or n > 60, and, before anything is allocated, when the bytes exceed the physical
/// memory available now (sysconf), stating the bytes needed and available.
uint64_t check_state_fits(int64_t n_qubits, DType dtype, const char* who = "quantum");

/// Throws IndexError naming the qubit and n when a qubit is outside [0, n), and (with distinct, as
/// for the qubits of one gate) ValueError when one appears twice. Errors are prefixed by `who`.
void check_qubits(const std::vector<int64_t>& qubits, int64_t n_qubits, const char* who, bool distinct = true);

/// A pure state of n qubits as a contiguous complex tensor [2^n], starting in |0...0>.
class StateVector {
 public:
  explicit StateVector(int64_t n_qubits, DType dtype = DType::Complex128);
  int64_t n_qubits() const { return n_; }
  DType dtype() const { return tensor_.dtype(); }
  /// The amplitudes (shares storage).
  const Tensor& tensor() const { return tensor_; }
  /// Dense 2^k x 2^k row-major matrix on `qubits` (k >= 1, local bit j is qubits[j]), acting only
  /// where every qubit of `controls` is 1.
  void apply_matrix(const std::vector<int64_t>& qubits, const std::vector<complex128>& matrix,
                    const std::vector<int64_t>& controls = {});
  /// Sum of |amplitude|^2.
  double norm2() const;

 private:
  int64_t n_;
  Tensor tensor_;
};

}  // namespace sampan::quantum
