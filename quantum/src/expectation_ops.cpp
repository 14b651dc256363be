// sampan quantum ops: quantum::expectation <psi|H|psi> (differentiable, adjoint method) and its
// gradient op quantum::expectation_grad. Circuits and Hamiltonians arrive in the compact encodings
// of sampan/quantum/circuit.h.
#include <string>

#include "op_args.h"
#include "op_samples.h"

namespace sampan::quantum {

using namespace op_args;

namespace {

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

}  // namespace

// The forward op's vjp calls the adjoint-method gradient op. That op has no derivative of its
// own (a Hessian would need a second adjoint sweep per parameter), so expectation is marked
// once_differentiable: the first-order gradient is exact and a second derivative raises.
SAMPAN_OP(quantum, expectation)
    .doc(std::string("<psi|H|psi> (float64 scalar) for psi = circuit(params)|0...0> with H a weighted sum of "
                     "Pauli strings. Differentiable in params by the adjoint method (one backward sweep, two "
                     "state copies); once differentiable: a second derivative raises.") + encoding_doc())
    .args("params", "circuit", "constants", "n_qubits", "paulis", "coeffs")
    .outputs("energy")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const IntList& paulis, const FloatList& coeffs) {
      validate_circuit(params, circuit, constants, n, "quantum::expectation");
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
    .dtypes({DType::Float64})
    .sample([] { return samples::circuit(true); });

// Nondifferentiable: it is only reached through expectation's vjp, which runs once (see above).
SAMPAN_OP(quantum, expectation_grad)
    .doc(std::string("dE/dparams [P] (float64) of quantum::expectation by the adjoint method: simulate "
                     "psi, set lambda = H psi, then walk the gates backwards un-applying each to both states "
                     "and accumulating 2 Re <lambda|dU/dtheta|phi>. Not differentiable itself.") + encoding_doc())
    .args("params", "circuit", "constants", "n_qubits", "paulis", "coeffs")
    .outputs("grad")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n,
              const IntList& paulis, const FloatList& coeffs) {
      validate_circuit(params, circuit, constants, n, "quantum::expectation_grad");
      decode_hamiltonian(paulis, coeffs, n, "quantum::expectation_grad");
      return TensorSpec{params.shape, DType::Float64, params.device};
    })
    .cpu(expectation_grad_cpu)
    .nondifferentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::circuit(true); });

/// Referenced by executables that must load this library even when they call no other symbol.
extern "C" int sampan_quantum_registered() { return 1; }

}  // namespace sampan::quantum
