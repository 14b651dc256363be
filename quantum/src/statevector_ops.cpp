// sampan quantum ops: quantum::statevector (the state after a circuit, differentiable) and its
// vjp op quantum::statevector_vjp (adjoint method).
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

using C = complex128;

void statevector_cpu(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                     Tensor& out) {
  const Tensor p = contiguous_params(params);
  auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::statevector");
  simulate(p.data<double>(), gates, constants, static_cast<int>(n), out.data<complex128>());
}

#if defined(SAMPAN_CUDA_KERNELS)
// The GPU twins: parameters come to the host (the gate matrices are built there), amplitudes stay
// on the GPU (circuit_cuda.h).
void statevector_on_cuda(const Tensor& params, const IntList& circuit, const FloatList& constants, int64_t n,
                      Tensor& out) {
  const Tensor p = host_params(params);
  auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::statevector");
  simulate_cuda(p.data<double>(), gates, constants, static_cast<int>(n), out);
}

void statevector_vjp_on_cuda(const Tensor& params, const Tensor& cot, const IntList& circuit, const FloatList& constants,
                          int64_t n, Tensor& out) {
  const Tensor p = host_params(params);
  const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::statevector_vjp");
  std::vector<double> grad(static_cast<size_t>(p.numel()));
  statevector_vjp_cuda(p.data<double>(), p.numel(), gates, constants, static_cast<int>(n), as_c128(cot), grad.data());
  cuda::copy_bytes(out.data<double>(), true, grad.data(), false, sizeof(double) * grad.size());
}
#endif

}  // namespace

SAMPAN_OP(quantum, statevector)
    .doc(std::string("The state circuit(params)|0...0> as complex128 [2^n_qubits]. Differentiable in params "
                     "(quantum::statevector_vjp, adjoint method); once differentiable.") + encoding_doc())
    .args("params", "circuit", "constants", "n_qubits")
    .outputs("state")
    .shape([](const TensorSpec& params, const IntList& circuit, const FloatList& constants, int64_t n) {
      validate_circuit(params, circuit, constants, n, "quantum::statevector");
      return TensorSpec{{int64_t(1) << n}, DType::Complex128, params.device};
    })
    .cpu(statevector_cpu)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(statevector_on_cuda)
    .cuda_rounds_differently()  // the CPU's AVX2 gate kernels contract products into FMAs
#endif
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::statevector_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.attr<IntList>(1), c.attr<FloatList>(2), c.attr<int64_t>(3))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::circuit(false); });

SAMPAN_OP(quantum, statevector_vjp)
    .doc("d Re<cotangent, psi(params)>/dparams [P] (float64) for quantum::statevector, <a, b> = sum conj(a) b "
         "(PyTorch's complex convention), by the adjoint method (one forward, one backward sweep, two state "
         "copies). Not differentiable itself. Arguments as quantum::statevector plus the complex128 cotangent [2^n].")
    .args("params", "cotangent", "circuit", "constants", "n_qubits")
    .outputs("grad")
    .shape([](const TensorSpec& params, const TensorSpec& cot, const IntList& circuit, const FloatList& constants,
              int64_t n) {
      const char* who = "quantum::statevector_vjp";
      SAMPAN_CHECK(params.dtype == DType::Float64 && params.dim() == 1, TypeError, who,
                   ": params must be float64 [P], got ", dtype_name(params.dtype), " ", shape_str(params.shape));
      check_state_fits(n, DType::Complex128, who);
      decode_circuit(circuit, params.shape[0], constants, n, who);
      SAMPAN_CHECK(cot.shape == Shape({int64_t(1) << n}), ValueError, who, ": the cotangent must be [",
                   int64_t(1) << n, "], got ", shape_str(cot.shape));
      return TensorSpec{params.shape, DType::Float64, params.device};
    })
    .cpu([](const Tensor& params, const Tensor& cot, const IntList& circuit, const FloatList& constants, int64_t n,
            Tensor& out) {
      const Tensor p = params.contiguous();
      const Tensor g = as_c128(cot);
      const auto gates = decode_circuit(circuit, p.numel(), constants, n, "quantum::statevector_vjp");
      statevector_vjp(p.data<double>(), p.numel(), gates, constants, static_cast<int>(n), g.data<C>(),
                      out.data<double>());
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(statevector_vjp_on_cuda)
    .cuda_rounds_differently()
#endif
    .nondifferentiable()
    .dtypes({DType::Float64})
    .sample([] { return samples::statevector_vjp(); });

}  // namespace sampan::quantum
