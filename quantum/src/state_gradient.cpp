// sampan quantum: the vjp of the state vector with respect to the circuit parameters.
#include <algorithm>

#include "adjoint_sweep.h"
#include "sampan/quantum/circuit.h"

namespace sampan::quantum {

using C = complex128;

void statevector_vjp(const double* params, int64_t n_params, const std::vector<Gate>& gates,
                     const std::vector<double>& constants, int n, const C* cotangent, double* grad) {
  std::fill(grad, grad + n_params, 0.0);
  const size_t N = size_t(1) << n;
  std::vector<C> phi(N), lam(cotangent, cotangent + N);
  simulate(params, gates, constants, n, phi.data());
  // psi = U_K ... U_1 |0>: d Re<g, psi>/d theta_k = Re<lam_k, dU_k phi_{k-1}> with
  // lam_k = U_{k+1}^+ ... U_K^+ g and phi_{k-1} the state before gate k (un-applied on the way back).
  adjoint_sweep(phi.data(), lam.data(), params, gates, constants, 1.0, grad,
                [n](C* a, const Gate& g, const Resolved& r, bool adj) { apply(a, n, g, r, adj); },
                [n](const C* l, const C* p, const Resolved& d) { return inner_on_cpu(l, p, n, d); });
}

}  // namespace sampan::quantum
