// sampan quantum: density matrices, noisy circuit simulation and its adjoint gradient.
//
// Layout: rho on n qubits is a 2^n x 2^n row-major complex matrix, rho[r][c] at r * 2^n + c, with
// the qubit convention of the state vector (qubit q is bit q of r and of c).
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "sampan/quantum/circuit.h"
#include "sampan/tensor.h"

namespace sampan::quantum {

/// Bytes a density matrix of n qubits (4^n entries of `dtype`) needs. Throws ValueError for n < 1
/// or n > 28, and, before anything is allocated, when the bytes exceed the memory available now,
/// stating the bytes needed and available. `copies` multiplies the need (e.g. the gradient's).
uint64_t check_density_matrix_fits(int64_t n_qubits, DType dtype, const char* who, uint64_t copies = 1);

/// A mixed state of n qubits: a contiguous complex tensor [2^n, 2^n] starting in |0...0><0...0|.
class DensityMatrix {
 public:
  explicit DensityMatrix(int64_t n_qubits, DType dtype = DType::Complex128);
  /// |psi><psi| for a state vector tensor [2^n] (complex64/128); the result has its dtype.
  static DensityMatrix from_state(const Tensor& psi);
  /// A copy of a [2^n, 2^n] complex tensor (not checked to be a state).
  static DensityMatrix from_tensor(const Tensor& rho);
  int64_t n_qubits() const { return n_; }
  DType dtype() const { return tensor_.dtype(); }
  /// The matrix (shares storage).
  const Tensor& tensor() const { return tensor_; }
  /// rho <- U rho U^+ for a dense 2^k x 2^k matrix on `qubits` (local bit j is qubits[j]) acting
  /// where every qubit of `controls` is 1.
  void apply_matrix(const std::vector<int64_t>& qubits, const std::vector<complex128>& matrix,
                    const std::vector<int64_t>& controls = {});
  /// rho <- sum_k K_k rho K_k^+ (1 <= k <= 3 qubits); ValueError unless sum_k K_k^+ K_k = I to 1e-10.
  void apply_kraus(const std::vector<int64_t>& qubits, const std::vector<std::vector<complex128>>& kraus);
  /// rho <- E(rho) for a superoperator (channels.h layout), not validated.
  void apply_superop(const std::vector<int64_t>& qubits, const std::vector<complex128>& superop);
  /// Runs a circuit (gates and channels, encoding of circuit.h) on this state.
  void apply_circuit(const std::vector<int64_t>& circuit, const std::vector<double>& params,
                     const std::vector<double>& constants);
  /// tr(rho).
  double trace() const;
  /// tr(H rho) for a Hamiltonian in the encoding of circuit.h.
  double expectation(const std::vector<int64_t>& paulis, const std::vector<double>& coeffs) const;

 private:
  int64_t n_;
  Tensor tensor_;
};

/// The density matrix after the circuit (gates and channels) from |0...0><0...0| (4^n entries).
void simulate_density_matrix(const double* params, const std::vector<Gate>& gates,
                             const std::vector<double>& constants, int n_qubits, complex128* rho);
/// Applies one gate or channel to rho in place (adjoint: U^+ . U, or the adjoint channel).
void apply_to_density_matrix(complex128* rho, int n_qubits, const Gate& g, const double* params,
                             const std::vector<double>& constants, bool adjoint = false);
/// tr(H rho).
double dm_expectation_value(const complex128* rho, const std::vector<PauliTerm>& h, int n_qubits);
/// The dense 2^n x 2^n matrix of H (row-major) written into out.
void hamiltonian_matrix(const std::vector<PauliTerm>& h, int n_qubits, complex128* out);
/// d Re<lambda, rho(params)> / dparams (<A, B> = tr(A^+ B)) by the adjoint method over channels:
/// rho is kept at every channel boundary (one copy per channel; when those do not fit in memory,
/// only at every s-th channel with s = ceil(sqrt(channels)), the rest recomputed segment by
/// segment: one extra forward pass), lambda is carried backwards
/// through the adjoint channels and un-applied gates. Written into grad (n_params entries).
/// lambda (2^n x 2^n) need not be Hermitian: only its Hermitian part matters for a Hermitian rho.
/// With `initial` (2^n x 2^n, any complex matrix) the circuit starts from it instead of
/// |0...0><0...0|: no Hermitian shortcut is taken, and grad_initial (when given) receives
/// d Re<lambda, rho>/d initial = E^+(lambda), the cotangent carried back through the whole circuit.
void dm_adjoint_gradient(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                         const std::vector<double>& constants, int n_qubits, const complex128* lambda, double* grad,
                         const complex128* initial = nullptr, complex128* grad_initial = nullptr);
/// Forces the checkpoint stride of dm_adjoint_gradient (keep rho before every stride-th channel);
/// 0 (the default) chooses it from the memory available. For tests and memory tuning.
void set_density_matrix_checkpoint_stride(int64_t stride);

}  // namespace sampan::quantum
