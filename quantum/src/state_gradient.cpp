// sampan quantum: the vjp of the state vector with respect to the circuit parameters.
#include <algorithm>

#include "kernels/gates.h"
#include "sampan/quantum/circuit.h"

namespace sampan::quantum {

namespace {

using C = complex128;

void apply_matrix(C* a, int n, const GateMatrix& g, const std::vector<C>& m) {
  if (g.targets.size() == 1) kernels::apply_1q(a, n, g.targets[0], m.data(), g.cmask);
  else if (g.targets.size() == 2) kernels::apply_2q(a, n, g.targets[0], g.targets[1], m.data(), g.cmask);
  else kernels::apply_kq(a, n, g.targets, m.data(), g.cmask);
}

std::vector<C> adjoint_of(const std::vector<C>& m, size_t dim) {
  std::vector<C> r(m.size());
  for (size_t i = 0; i < dim; ++i)
    for (size_t j = 0; j < dim; ++j) r[i * dim + j] = std::conj(m[j * dim + i]);
  return r;
}

}  // namespace

void statevector_vjp(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                     const std::vector<double>& constants, int n, const C* cotangent, double* grad) {
  std::fill(grad, grad + n_params, 0.0);
  const size_t N = size_t(1) << n;
  std::vector<C> phi(N), lam(cotangent, cotangent + N);
  simulate(params, gates, constants, n, phi.data());
  // psi = U_K ... U_1 |0>: d Re<g, psi>/d theta_k = Re<lam_k, dU_k phi_{k-1}> with
  // lam_k = U_{k+1}^+ ... U_K^+ g and phi_{k-1} the state before gate k (un-applied on the way back).
  for (size_t k = gates.size(); k-- > 0;) {
    const Gate& g = gates[k];
    const GateMatrix u = gate_matrix(g, params, constants);
    const std::vector<C> ud = adjoint_of(u.m, size_t(1) << u.targets.size());
    apply_matrix(phi.data(), n, u, ud);
    for (size_t j = 0; j < g.slots.size(); ++j) {
      if (g.slots[j] < 0) continue;
      const GateMatrix d = gate_matrix(g, params, constants, static_cast<int>(j));
      const C ip = d.targets.size() == 1
                       ? kernels::inner_1q(lam.data(), phi.data(), n, d.targets[0], d.m.data(), d.cmask)
                       : kernels::inner_2q(lam.data(), phi.data(), n, d.targets[0], d.targets[1], d.m.data(), d.cmask);
      grad[g.slots[j]] += ip.real();
    }
    apply_matrix(lam.data(), n, u, ud);
  }
}

}  // namespace sampan::quantum
