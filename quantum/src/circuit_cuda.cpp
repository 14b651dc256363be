// sampan quantum: circuits on a GPU state vector (circuit_cuda.h).
#if defined(SAMPAN_CUDA_KERNELS)
#include "circuit_cuda.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "adjoint_sweep.h"
#include "fusion.h"
#include "kernels/gates_cuda.h"
#include "run_on_device.h"
#include "sampan/error.h"
#include "sampan/ops.h"
#include "sampan/quantum/runtime.h"

namespace sampan::quantum {

namespace {

using C = complex128;
using kernels::DeviceAmp;

DeviceAmp* amps(Tensor& t) { return reinterpret_cast<DeviceAmp*>(t.data<C>()); }
const DeviceAmp* amps(const Tensor& t) { return reinterpret_cast<const DeviceAmp*>(t.data<C>()); }


void apply_matrix(DeviceAmp* a, int n, const std::vector<int>& targets, uint64_t cmask, const std::vector<C>& m) {
  const int k = static_cast<int>(targets.size());
  SAMPAN_CHECK(k <= kernels::kMaxCudaGateTargets, NotImplementedError, "quantum: a gate on ", k,
               " target qubits has no CUDA kernel (at most ", kernels::kMaxCudaGateTargets,
               "); simulate this circuit on the CPU");
  on_device([&] { kernels::apply_dense_cuda(a, n, targets.data(), k, cmask, m.data()); });
}

void apply_resolved(DeviceAmp* a, int n, const Resolved& r, bool adjoint) {
  apply_matrix(a, n, r.targets, r.cmask, adjoint ? adjoint_matrix(r.m) : r.m);
}

C inner(const DeviceAmp* lam, const DeviceAmp* phi, int n, const Resolved& d) {
  return on_device([&] {
    return kernels::inner_cuda(lam, phi, n, d.targets.data(), static_cast<int>(d.targets.size()), d.cmask, d.m.data());
  });
}

Tensor device_state(int n, const Device& device) { return Tensor::empty({int64_t(1) << n}, DType::Complex128, device); }

// The adjoint sweep on two GPU states.
void sweep(Tensor& phi, Tensor& lam, const double* params, const std::vector<Gate>& gates,
           const std::vector<double>& constants, int n, double weight, double* grad) {
  adjoint_sweep(amps(phi), amps(lam), params, gates, constants, weight, grad,
                [n](DeviceAmp* a, const Gate&, const Resolved& r, bool adj) { apply_resolved(a, n, r, adj); },
                [n](const DeviceAmp* l, const DeviceAmp* p, const Resolved& d) { return inner(l, p, n, d); });
}

}  // namespace

void simulate_cuda(const double* params, const std::vector<Gate>& gates, const std::vector<double>& constants, int n,
                   Tensor& out) {
  DeviceAmp* a = amps(out);
  on_device([&] { kernels::zero_state_cuda(a, n); });
  // The CPU's fusion pass (its blocks are matrices on at most 2 qubits); the GPU has no cache
  // blocking: its memory is one level.
  if (!fusion_enabled()) {
    for (const Gate& g : gates) apply_resolved(a, n, resolve(g, params, constants), false);
    return;
  }
  for (const FusedBlock& b : fuse_gates(gates, params, constants, fusion_max_qubits())) {
    if (b.single()) apply_resolved(a, n, resolve(gates[b.members[0]], params, constants), false);
    else apply_matrix(a, n, b.qubits, 0, b.m);
  }
}

double expectation_value_cuda(const Tensor& psi, const std::vector<PauliTerm>& h, int n) {
  double e = 0;
  for (const PauliTerm& t : h)
    e += pauli_term_value(t, on_device([&] { return kernels::pauli_term_cuda(amps(psi), n, t.xmask, t.zmask); }));
  return e;
}

void adjoint_gradient_cuda(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                           const std::vector<double>& constants, const std::vector<PauliTerm>& h, int n, double* grad) {
  std::fill(grad, grad + n_params, 0.0);
  const Device gpu = Device::parse("cuda");
  Tensor phi = device_state(n, gpu), lam = zeros({int64_t(1) << n}, DType::Complex128, gpu);
  simulate_cuda(params, gates, constants, n, phi);
  for (const PauliTerm& t : h)
    on_device([&] { kernels::add_pauli_term_cuda(amps(phi), amps(lam), n, t.xmask, t.zmask, pauli_term_phase(t)); });
  sweep(phi, lam, params, gates, constants, n, 2.0, grad);
}

void statevector_vjp_cuda(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                          const std::vector<double>& constants, int n, const Tensor& cotangent, double* grad) {
  std::fill(grad, grad + n_params, 0.0);
  Tensor phi = device_state(n, cotangent.device()), lam = cotangent.clone();
  simulate_cuda(params, gates, constants, n, phi);
  sweep(phi, lam, params, gates, constants, n, 1.0, grad);
}

}  // namespace sampan::quantum
#endif  // SAMPAN_CUDA_KERNELS
