// sampan quantum ops: quantum::expectation <psi|H|psi> (differentiable, adjoint method) and its
// gradient op quantum::expectation_grad. Circuits and Hamiltonians arrive in the compact encodings
// of sampan/quantum/circuit.h.
#include <string>

#include "op_args.h"
#include "op_samples.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "circuit_cuda.h"
#include "sampan/cuda.h"
#endif

namespace sampan::quantum {

using namespace op_args;

namespace {

// What the kernels of both devices read: the parameters on the host (the gate matrices are built
// there), the decoded circuit and Hamiltonian.
struct ExpectationInputs {
  Tensor params;
  std::vector<Gate> gates;
  std::vector<PauliTerm> h;
};

ExpectationInputs decoded(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                          const IntList& paulis, const FloatList& coeffs, const char* who) {
  ExpectationInputs in;
  in.params = host_params(params);
  in.gates = decode_circuit(circuit, in.params.numel(), constants, n, who);
  in.h = decode_hamiltonian(paulis, coeffs, n, who);
  return in;
}

void expectation_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                     const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const auto in = decoded(params, circuit, constants, n, paulis, coeffs, "quantum::expectation");
  std::vector<complex128> psi(size_t(1) << n);
  simulate(in.params.data<double>(), in.gates, constants, static_cast<int>(n), psi.data());
  out.data<double>()[0] = expectation_value(psi.data(), in.h, static_cast<int>(n));
}

void expectation_grad_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                          const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const auto in = decoded(params, circuit, constants, n, paulis, coeffs, "quantum::expectation_grad");
  adjoint_gradient(in.params.data<double>(), in.params.numel(), in.gates, constants, in.h, static_cast<int>(n),
                   out.data<double>());
}

#if defined(SAMPAN_CUDA_KERNELS)
// The GPU twins (circuit_cuda.h): the state on the GPU, the parameters and the result through the host.
void expectation_on_cuda(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                         const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const auto in = decoded(params, circuit, constants, n, paulis, coeffs, "quantum::expectation");
  Tensor psi = Tensor::empty({int64_t(1) << n}, DType::Complex128, out.device());
  simulate_cuda(in.params.data<double>(), in.gates, constants, static_cast<int>(n), psi);
  const double e = expectation_value_cuda(psi, in.h, static_cast<int>(n));
  cuda::copy_bytes(out.data<double>(), true, &e, false, sizeof e);
}

void expectation_grad_on_cuda(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                              const IntList& paulis, const FloatList& coeffs, Tensor& out) {
  const auto in = decoded(params, circuit, constants, n, paulis, coeffs, "quantum::expectation_grad");
  std::vector<double> grad(static_cast<size_t>(in.params.numel()));
  adjoint_gradient_cuda(in.params.data<double>(), in.params.numel(), in.gates, constants, in.h, static_cast<int>(n),
                        grad.data());
  cuda::copy_bytes(out.data<double>(), true, grad.data(), false, sizeof(double) * grad.size());
}
#endif

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
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(expectation_on_cuda)
    .cuda_rounds_differently()  // the CPU's AVX2 gate kernels contract products; the sums fold in another order
#endif
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
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(expectation_grad_on_cuda)
    .cuda_rounds_differently()
#endif
    .nondifferentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::circuit(true); });

/// Referenced by executables that must load this library even when they call no other symbol.
extern "C" int sampan_quantum_registered() { return 1; }

}  // namespace sampan::quantum
