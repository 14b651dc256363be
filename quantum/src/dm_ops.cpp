// sampan quantum ops on density matrices: quantum::density_matrix (rho after a noisy circuit),
// quantum::dm_expectation (tr(H rho)), and their adjoint-method gradient ops. Circuits may hold
// noise channels (encoding in sampan/quantum/circuit.h).
#include <string>

#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/density_matrix.h"

#include "op_samples.h"

namespace sampan::quantum {

namespace {

using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

void validate_dm(const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
                 const char* who) {
  SAMPAN_CHECK(params.dtype == DType::Float64, TypeError, who, ": params must be float64, got ", dtype_name(params.dtype));
  SAMPAN_CHECK(params.dim() == 1, ValueError, who, ": params must be 1-D [P], got shape ", shape_str(params.shape));
  check_density_matrix_fits(n, DType::Complex128, who);
  decode_circuit(circuit, params.shape[0], constants, n, who, true);
}

Tensor dense(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

void density_matrix_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                        Tensor& out) {
  const Tensor p = dense(params);
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::density_matrix", true);
  simulate_density_matrix(p.data<double>(), gates, constants, static_cast<int>(n), out.data<complex128>());
}

void density_matrix_vjp_cpu(const Tensor& params, const Tensor& cotangent, const IntList& circuit,
                            const FloatList& constants, int64_t n, Tensor& out) {
  const Tensor p = dense(params);
  const Tensor g = dense(cast(cotangent, DType::Complex128));
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::density_matrix_vjp", true);
  dm_adjoint_gradient(p.data<double>(), p.numel(), gates, constants, static_cast<int>(n), g.data<complex128>(),
                      out.data<double>());
}

void dm_expectation_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                        const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const char* who = "quantum::dm_expectation";
  const Tensor p = dense(params);
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, who, true);
  const auto h = decode_hamiltonian(paulis, coeffs, n, who);
  std::vector<complex128> rho(size_t(1) << (2 * n));
  simulate_density_matrix(p.data<double>(), gates, constants, static_cast<int>(n), rho.data());
  out.data<double>()[0] = dm_expectation_value(rho.data(), h, static_cast<int>(n));
}

void dm_expectation_grad_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                             const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const char* who = "quantum::dm_expectation_grad";
  const Tensor p = dense(params);
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, who, true);
  const auto h = decode_hamiltonian(paulis, coeffs, n, who);
  std::vector<complex128> hm(size_t(1) << (2 * n));
  hamiltonian_matrix(h, static_cast<int>(n), hm.data());
  dm_adjoint_gradient(p.data<double>(), p.numel(), gates, constants, static_cast<int>(n), hm.data(),
                      out.data<double>());
}

// n from a [2^n, 2^n] complex matrix.
int64_t dm_qubits(const TensorSpec& rho, const char* who) {
  SAMPAN_CHECK(rho.dtype == DType::Complex128 || rho.dtype == DType::Complex64, TypeError, who,
               ": rho must be complex64 or complex128, got ", dtype_name(rho.dtype));
  SAMPAN_CHECK(rho.dim() == 2 && rho.shape[0] == rho.shape[1] && rho.shape[0] >= 2 &&
                   (rho.shape[0] & (rho.shape[0] - 1)) == 0,
               ValueError, who, ": rho must be [2^n, 2^n], got shape ", shape_str(rho.shape));
  int64_t n = 0;
  while ((int64_t(1) << n) < rho.shape[0]) ++n;
  return n;
}

void evolve_cpu(const Tensor& params, const Tensor& rho, const IntList& circuit, const FloatList& constants, Tensor& out) {
  const int64_t n = dm_qubits(TensorSpec(rho), "quantum::evolve_density_matrix");
  const Tensor p = dense(params);
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::evolve_density_matrix", true);
  const Tensor r = dense(cast(rho, DType::Complex128));
  complex128* o = out.data<complex128>();
  std::copy(r.data<complex128>(), r.data<complex128>() + r.numel(), o);
  for (const auto& g : gates) apply_to_density_matrix(o, static_cast<int>(n), g, p.data<double>(), constants);
}

void evolve_vjp_cpu(const Tensor& params, const Tensor& rho, const Tensor& cotangent, const IntList& circuit,
                    const FloatList& constants, Tensor& grad_params, Tensor& grad_rho) {
  const int64_t n = dm_qubits(TensorSpec(rho), "quantum::evolve_density_matrix_vjp");
  const Tensor p = dense(params);
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::evolve_density_matrix_vjp", true);
  const Tensor r = dense(cast(rho, DType::Complex128)), g = dense(cast(cotangent, DType::Complex128));
  Tensor gr = Tensor::empty(rho.shape(), DType::Complex128);
  dm_adjoint_gradient(p.data<double>(), p.numel(), gates, constants, static_cast<int>(n), g.data<complex128>(),
                      grad_params.data<double>(), r.data<complex128>(), gr.data<complex128>());
  grad_rho = cast(gr, rho.dtype());
}

const char* kDmDoc =
    " rho is 2^n x 2^n row-major, qubit q is bit q of the row and column index (qubit 0 least significant). "
    "circuit: the gate encoding of quantum::expectation plus noise channels (opcodes 100 BIT_FLIP, "
    "PHASE_FLIP, BIT_PHASE_FLIP, AMPLITUDE_DAMPING, GENERALIZED_AMPLITUDE_DAMPING, PHASE_DAMPING, "
    "DEPOLARIZING, PAULI_CHANNEL, RESET, THERMAL_RELAXATION = 109 as [op, qubit, slots...]; "
    "GENERALIZED_DEPOLARIZING = 110 [op, k, qubits..., slot]; MIXED_UNITARY = 111 and KRAUS = 112 "
    "[op, k, m, qubits..., offset]; CHOI = 113 [op, k, qubits..., offset]; see "
    "sampan/quantum/circuit.h). Channel parameters read from params are differentiated too.";

}  // namespace

SAMPAN_OP(quantum, density_matrix)
    .doc(std::string("The density matrix (complex128 [2^n, 2^n]) after a circuit of gates and noise channels "
                     "applied to |0...0><0...0|. Differentiable in params (quantum::density_matrix_vjp: the "
                     "adjoint method over channels, rho kept at each channel); once differentiable.") + kDmDoc)
    .args("params", "circuit", "constants", "n_qubits")
    .outputs("rho")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n) {
      validate_dm(params, circuit, constants, n, "quantum::density_matrix");
      const int64_t N = int64_t(1) << n;
      return TensorSpec{{N, N}, DType::Complex128, params.device};
    })
    .cpu(density_matrix_cpu)
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::density_matrix_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.attr<IntList>(1), c.attr<FloatList>(2), c.attr<int64_t>(3))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::noisy_circuit(0); });

SAMPAN_OP(quantum, density_matrix_vjp)
    .doc(std::string("d Re<cotangent, rho(params)>/dparams [P] (float64) for quantum::density_matrix, with "
                     "<A, B> = sum conj(A) B (PyTorch's complex convention). Adjoint method: forward keeping rho "
                     "before each channel, then the Hermitian part of the cotangent carried backwards through "
                     "un-applied gates and adjoint channels. Not differentiable itself.") + kDmDoc)
    .args("params", "cotangent", "circuit", "constants", "n_qubits")
    .outputs("grad")
    .shape([](const TensorSpec& params, const TensorSpec& cot, const IntList& circuit, const FloatList& constants,
              int64_t n) {
      validate_dm(params, circuit, constants, n, "quantum::density_matrix_vjp");
      const int64_t N = int64_t(1) << n;
      SAMPAN_CHECK(cot.shape == Shape({N, N}), ValueError, "quantum::density_matrix_vjp: the cotangent must be [", N,
                   ", ", N, "], got ", shape_str(cot.shape));
      return TensorSpec{params.shape, DType::Float64, params.device};
    })
    .cpu(density_matrix_vjp_cpu)
    .nondifferentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::noisy_circuit(2); });

SAMPAN_OP(quantum, dm_expectation)
    .doc(std::string("tr(H rho) (float64 scalar) for rho = quantum::density_matrix(params, ...) and H a weighted "
                     "sum of Pauli strings (paulis: n codes per term 0=I 1=X 2=Y 3=Z; coeffs). Differentiable in "
                     "params (quantum::dm_expectation_grad, adjoint method over channels); once differentiable.") +
         kDmDoc)
    .args("params", "circuit", "constants", "n_qubits", "paulis", "coeffs")
    .outputs("energy")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const IntList& paulis, const FloatList& coeffs) {
      validate_dm(params, circuit, constants, n, "quantum::dm_expectation");
      decode_hamiltonian(paulis, coeffs, n, "quantum::dm_expectation");
      return TensorSpec{{}, DType::Float64, params.device};
    })
    .cpu(dm_expectation_cpu)
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle grad_op("quantum::dm_expectation_grad");
      Tensor g = grad_op(c.input(0), c.attr<IntList>(1), c.attr<FloatList>(2), c.attr<int64_t>(3), c.attr<IntList>(4),
                         c.attr<FloatList>(5))[0];
      return {mul(g, c.grad_output(0))};
    })
    .once_differentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::noisy_circuit(1); });

SAMPAN_OP(quantum, dm_expectation_grad)
    .doc(std::string("d tr(H rho)/dparams [P] (float64) of quantum::dm_expectation by the adjoint method over "
                     "channels (rho kept at each channel boundary, H carried backwards through adjoint channels). "
                     "Not differentiable itself.") + kDmDoc)
    .args("params", "circuit", "constants", "n_qubits", "paulis", "coeffs")
    .outputs("grad")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const IntList& paulis, const FloatList& coeffs) {
      validate_dm(params, circuit, constants, n, "quantum::dm_expectation_grad");
      decode_hamiltonian(paulis, coeffs, n, "quantum::dm_expectation_grad");
      return TensorSpec{params.shape, DType::Float64, params.device};
    })
    .cpu(dm_expectation_grad_cpu)
    .nondifferentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::noisy_circuit(1); });

SAMPAN_OP(quantum, evolve_density_matrix)
    .doc(std::string("E(rho) (complex128 [2^n, 2^n]): the circuit of gates and noise channels applied to a given "
                     "density matrix rho (any complex [2^n, 2^n] matrix; n from its shape). Differentiable in params "
                     "and in rho (quantum::evolve_density_matrix_vjp: the same adjoint sweep, the cotangent carried "
                     "back through the whole circuit is rho's gradient); once differentiable.") + kDmDoc)
    .args("params", "rho", "circuit", "constants")
    .outputs("rho_out")
    .shape([](const TensorSpec& params, const TensorSpec& rho, const IntList& circuit, const FloatList& constants) {
      const int64_t n = dm_qubits(rho, "quantum::evolve_density_matrix");
      validate_dm(params, circuit, constants, n, "quantum::evolve_density_matrix");
      return TensorSpec{rho.shape, DType::Complex128, rho.device};
    })
    .cpu(evolve_cpu)
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0) && !c.needs_grad(1)) return Grads(2);
      static OpHandle vjp_op("quantum::evolve_density_matrix_vjp");
      auto g = vjp_op(c.input(0), c.input(1), c.grad_output(0), c.attr<IntList>(2), c.attr<FloatList>(3));
      return {g[0], g[1]};
    })
    .once_differentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::evolve(false); });

SAMPAN_OP(quantum, evolve_density_matrix_vjp)
    .doc(std::string("(d/dparams, d/drho) of Re<cotangent, E(rho)> for quantum::evolve_density_matrix. Not "
                     "differentiable itself.") + kDmDoc)
    .args("params", "rho", "cotangent", "circuit", "constants")
    .outputs("grad_params", "grad_rho")
    .shape([](const TensorSpec& params, const TensorSpec& rho, const TensorSpec& cot, const IntList& circuit,
              const FloatList& constants) {
      const int64_t n = dm_qubits(rho, "quantum::evolve_density_matrix_vjp");
      validate_dm(params, circuit, constants, n, "quantum::evolve_density_matrix_vjp");
      SAMPAN_CHECK(cot.shape == rho.shape, ValueError, "quantum::evolve_density_matrix_vjp: the cotangent must be ",
                   shape_str(rho.shape), ", got ", shape_str(cot.shape));
      return std::vector<TensorSpec>{TensorSpec{params.shape, DType::Float64, params.device},
                                     TensorSpec{rho.shape, rho.dtype, rho.device}};
    })
    .cpu(evolve_vjp_cpu)
    .nondifferentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::evolve(true); });

}  // namespace sampan::quantum
