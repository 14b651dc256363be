// sampan quantum ops: quantum::expectation (differentiable, adjoint-method gradient),
// quantum::expectation_grad and quantum::statevector (differentiable; its vjp op lives in
// measurement_ops.cpp). Circuits and Hamiltonians arrive in the
// compact encodings of sampan/quantum/circuit.h.
#include <string>

#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

namespace {

using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

void check_params(const TensorSpec& p, const char* who) {
  SAMPAN_CHECK(p.dtype == DType::Float64, TypeError, who, ": params must be float64, got ", dtype_name(p.dtype));
  SAMPAN_CHECK(p.dim() == 1, ValueError, who, ": params must be 1-D [P], got shape ", shape_str(p.shape));
}

// Everything the shape functions can validate without data: the state fits, the circuit and the
// Hamiltonian decode against params' length.
void validate(const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const char* who) {
  check_params(params, who);
  check_state_fits(n, DType::Complex128, who);
  decode_circuit(circuit, params.shape[0], constants, n, who);
}

Tensor contiguous_params(const Tensor& p) { return p.is_contiguous() ? p : p.contiguous(); }

void expectation_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                     const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const char* who = "quantum::expectation";
  const Tensor p = contiguous_params(params);
  auto gates = decode_circuit(circuit, p.numel(), constants, n, who);
  auto h = decode_hamiltonian(paulis, coeffs, n, who);
  std::vector<complex128> psi(size_t(1) << n);
  simulate(p.data<double>(), gates, constants, static_cast<int>(n), psi.data());
  out.data<double>()[0] = expectation_value(psi.data(), h, static_cast<int>(n));
}

void expectation_grad_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                          const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const char* who = "quantum::expectation_grad";
  const Tensor p = contiguous_params(params);
  auto gates = decode_circuit(circuit, p.numel(), constants, n, who);
  auto h = decode_hamiltonian(paulis, coeffs, n, who);
  adjoint_gradient(p.data<double>(), p.numel(), gates, constants, h, static_cast<int>(n), out.data<double>());
}

void statevector_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                     Tensor& out) {
  const Tensor p = contiguous_params(params);
  auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::statevector");
  simulate(p.data<double>(), gates, constants, static_cast<int>(n), out.data<complex128>());
}

const char* kEncodingDoc =
    " Qubit q is bit q of the amplitude index (qubit 0 least significant). circuit: per gate "
    "[opcode, qubits..., slots...] (opcodes H=0 X Y Z S Sdg T Tdg P RX RY RZ U3 CNOT CY CZ SWAP CP CRX "
    "CRY CRZ RXX RYY RZZ CCX CU MS CSWAP UNITARY=28; controls first; UNITARY is [28, n_controls, k, controls..., targets..., offset] with its 2^k x 2^k matrix at constants[offset...] as re, im pairs, row-major); a slot s >= 0 reads params[s], s < 0 reads "
    "constants[-s-1]. paulis: n_qubits codes per term (0=I 1=X 2=Y 3=Z), coeffs: one per term.";

}  // namespace

// The forward op's vjp calls the adjoint-method gradient op. That op has no derivative of its
// own (a Hessian would need a second adjoint sweep per parameter), so expectation is marked
// once_differentiable: the first-order gradient is exact and a second derivative raises.
SAMPAN_OP(quantum, expectation)
    .doc(std::string("<psi|H|psi> (float64 scalar) for psi = circuit(params)|0...0> with H a weighted sum of "
                     "Pauli strings. Differentiable in params by the adjoint method (one backward sweep, two "
                     "state copies); once differentiable: a second derivative raises.") + kEncodingDoc)
    .args("params", "circuit", "constants", "n_qubits", "paulis", "coeffs")
    .outputs("energy")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const IntList& paulis, const FloatList& coeffs) {
      validate(params, circuit, constants, n, "quantum::expectation");
      decode_hamiltonian(paulis, coeffs, n, "quantum::expectation");
      return TensorSpec{{}, DType::Float64, params.device};
    })
    .cpu(expectation_cpu)
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle grad_op("quantum::expectation_grad");
      Tensor g = grad_op(c.input(0), c.attr<IntList>(1), c.attr<FloatList>(2), c.attr<int64_t>(3),
                         c.attr<IntList>(4), c.attr<FloatList>(5))[0];
      return {mul(g, c.grad_output(0))};
    })
    .once_differentiable()
    .dtypes({DType::Float64});

// Nondifferentiable: it is only reached through expectation's vjp, which runs once (see above).
SAMPAN_OP(quantum, expectation_grad)
    .doc(std::string("dE/dparams [P] (float64) of quantum::expectation by the adjoint method: simulate "
                     "psi, set lambda = H psi, then walk the gates backwards un-applying each to both states "
                     "and accumulating 2 Re <lambda|dU/dtheta|phi>. Not differentiable itself.") + kEncodingDoc)
    .args("params", "circuit", "constants", "n_qubits", "paulis", "coeffs")
    .outputs("grad")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const IntList& paulis, const FloatList& coeffs) {
      validate(params, circuit, constants, n, "quantum::expectation_grad");
      decode_hamiltonian(paulis, coeffs, n, "quantum::expectation_grad");
      return TensorSpec{params.shape, DType::Float64, params.device};
    })
    .cpu(expectation_grad_cpu)
    .nondifferentiable()
    .dtypes({DType::Float64});

SAMPAN_OP(quantum, statevector)
    .doc(std::string("The state circuit(params)|0...0> as complex128 [2^n_qubits]. Differentiable in params "
                     "(quantum::statevector_vjp, adjoint method); once differentiable.") + kEncodingDoc)
    .args("params", "circuit", "constants", "n_qubits")
    .outputs("state")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n) {
      validate(params, circuit, constants, n, "quantum::statevector");
      return TensorSpec{{int64_t(1) << n}, DType::Complex128, params.device};
    })
    .cpu(statevector_cpu)
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::statevector_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.attr<IntList>(1), c.attr<FloatList>(2), c.attr<int64_t>(3))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Float64});

/// Referenced by executables that must load this library even when they call no other symbol.
extern "C" int sampan_quantum_registered() { return 1; }

}  // namespace sampan::quantum
