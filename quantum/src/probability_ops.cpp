// sampan quantum ops: quantum::probabilities (Z-basis outcome probabilities of some qubits of a
// state vector or density matrix, differentiable) and its vjp op quantum::probabilities_vjp.
#include <string>

#include "kernels/measurement.h"
#include "op_args.h"
#include "op_samples.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "kernels/measurement_cuda.h"
#include "run_on_device.h"
#endif

namespace sampan::quantum {

using namespace op_args;

namespace {

using C = complex128;

void probabilities_cpu(const Tensor& state, const IntList& qubits, Tensor& out) {
  const auto k = state_kind(TensorSpec(state), "quantum::probabilities");
  const auto q = measured(qubits, k.n, "quantum::probabilities");
  const Tensor s = as_c128(state);
  kernels::marginal_probabilities(s.data<C>(), k.n, k.density_matrix, q, out.data<double>());
}

// d/dstate of sum_b w_b p_b (PyTorch convention): 2 w_b(i) psi_i, or diag(w_b(i)) for rho.
void probabilities_vjp_cpu(const Tensor& state, const Tensor& cotangent, const IntList& qubits, Tensor& out) {
  const auto k = state_kind(TensorSpec(state), "quantum::probabilities_vjp");
  const auto q = measured(qubits, k.n, "quantum::probabilities_vjp");
  const Tensor s = as_c128(state), w = cast(cotangent, DType::Float64).contiguous();
  const double* wp = w.data<double>();
  const uint64_t N = uint64_t(1) << k.n;
  Tensor g = zeros(state.shape(), DType::Complex128);
  C* gp = g.data<C>();
  for (uint64_t i = 0; i < N; ++i) {
    const double wi = wp[kernels::outcome_of(i, q)];
    if (k.density_matrix) gp[i * N + i] = wi;
    else gp[i] = 2.0 * wi * s.data<C>()[i];
  }
  out = cast(g, state.dtype());
}

#if defined(SAMPAN_CUDA_KERNELS)
// The GPU twins (kernels/measurement_cuda.cu).
using Amp = sampan::kernels::ComplexElement<double>;

void probabilities_cuda(const Tensor& state, const IntList& qubits, Tensor& out) {
  const auto mq = measured_qubits(TensorSpec(state), qubits, "quantum::probabilities");
  const Tensor s = as_c128(state);
  const int64_t parts = static_cast<int64_t>(kernels::marginal_parts(mq.n, mq.m)) << mq.m;
  Tensor scratch = Tensor::empty({parts}, DType::Float64, state.device());
  on_device([&] {
    kernels::marginal_probabilities_cuda(static_cast<const Amp*>(s.raw_data()), mq,
                                         static_cast<double*>(scratch.raw_data()), static_cast<double*>(out.raw_data()));
  });
}

void probabilities_vjp_cuda(const Tensor& state, const Tensor& cotangent, const IntList& qubits, Tensor& out) {
  const auto mq = measured_qubits(TensorSpec(state), qubits, "quantum::probabilities_vjp");
  const Tensor s = as_c128(state), w = cast(cotangent, DType::Float64).contiguous();
  Tensor g = Tensor::empty(state.shape(), DType::Complex128, state.device());
  on_device([&] {
    kernels::probabilities_vjp_cuda(static_cast<const Amp*>(s.raw_data()), static_cast<const double*>(w.raw_data()), mq,
                                    static_cast<Amp*>(g.raw_data()));
  });
  out = cast(g, state.dtype());
}
#endif

}  // namespace

SAMPAN_OP(quantum, probabilities)
    .doc(std::string("Probabilities (float64 [2^m]) of the Z-basis outcomes of the m measured qubits: "
                     "p_b = sum of |psi_i|^2 (or rho_ii) over basis states i with outcome b. Differentiable in the "
                     "state (quantum::probabilities_vjp); once differentiable.") + kStateDoc)
    .args("state", "qubits")
    .outputs("probabilities")
    .shape([](const TensorSpec& state, const IntList& qubits) {
      const auto k = state_kind(state, "quantum::probabilities");
      const auto q = measured(qubits, k.n, "quantum::probabilities");
      return TensorSpec{{int64_t(1) << q.size()}, DType::Float64, state.device};
    })
    .cpu(probabilities_cpu)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(probabilities_cuda)
    .cuda_rounds_differently()  // parts of a large sum; libstdc++'s norm is abs()^2
#endif
    .vjp([](const VjpContext& c) -> Grads {
      if (!c.needs_grad(0)) return Grads(1);
      static OpHandle vjp_op("quantum::probabilities_vjp");
      return {vjp_op(c.input(0), c.grad_output(0), c.attr<IntList>(1))[0]};
    })
    .once_differentiable()
    .dtypes({DType::Complex128, DType::Complex64})
    .sample([] { return Values{samples::state(false), IntList{2, 0}}; })
    .sample([] { return Values{samples::state(true), IntList{1, 2}}; })
    .sample([] { return Values{samples::state(false), IntList{}}; });

SAMPAN_OP(quantum, probabilities_vjp)
    .doc(std::string("The state gradient of sum_b cotangent_b p_b for quantum::probabilities: 2 w_b(i) psi_i for "
                     "a state vector, diag(w_b(i)) for a density matrix (state's shape and dtype). Not "
                     "differentiable itself.") + kStateDoc)
    .args("state", "cotangent", "qubits")
    .outputs("grad")
    .shape([](const TensorSpec& state, const TensorSpec& cot, const IntList& qubits) {
      const auto k = state_kind(state, "quantum::probabilities_vjp");
      const auto q = measured(qubits, k.n, "quantum::probabilities_vjp");
      SAMPAN_CHECK(cot.shape == Shape({int64_t(1) << q.size()}), ValueError,
                   "quantum::probabilities_vjp: the cotangent must be [", int64_t(1) << q.size(), "], got ",
                   shape_str(cot.shape));
      return TensorSpec{state.shape, state.dtype, state.device};
    })
    .cpu(probabilities_vjp_cpu)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(probabilities_vjp_cuda)  // the CPU's bits: 2 w_b(i) psi_i
#endif
    .nondifferentiable()
    .dtypes({DType::Complex128, DType::Complex64})
    .sample([] { return Values{samples::state(false), from_vector({0.3, -1.1, 0.8, 0.25}, {4}), IntList{2, 0}}; })
    .sample([] { return Values{samples::state(true), from_vector({0.3, -1.1, 0.8, 0.25}, {4}), IntList{1, 2}}; });

}  // namespace sampan::quantum
