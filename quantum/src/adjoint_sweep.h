// sampan quantum (internal): the backward sweep of the adjoint method, shared by the CPU
// (circuit.cpp, state_gradient.cpp) and the GPU (circuit_cuda.cpp); only the state kernels differ.
#pragma once

#include <complex>
#include <vector>

#include "gate_apply.h"

namespace sampan::quantum {

/// On entry phi is the circuit's final state and lam the cotangent state (H psi for an
/// expectation, the state's cotangent for a state vjp). Walks the gates backwards, un-applying
/// each to both and adding weight * Re <lam| dU/dtheta_j |phi> to grad[slot j] of every
/// parameterised slot. apply(state, gate, resolved, adjoint) and inner(lam, phi, derivative)
/// -> std::complex<double> run on the states' device.
template <class Amp, class Apply, class Inner>
void adjoint_sweep(Amp* phi, Amp* lam, const double* params, const std::vector<Gate>& gates,
                   const std::vector<double>& constants, double weight, double* grad, Apply&& apply, Inner&& inner) {
  for (size_t k = gates.size(); k-- > 0;) {
    const Gate& g = gates[k];
    const Resolved r = resolve(g, params, constants);
    apply(phi, g, r, true);
    for (size_t j = 0; j < g.slots.size(); ++j) {
      if (g.slots[j] < 0) continue;
      const Resolved d = resolve(g, params, constants, static_cast<int>(j));
      grad[g.slots[j]] += weight * std::complex<double>(inner(lam, phi, d)).real();
    }
    apply(lam, g, r, true);
  }
}

}  // namespace sampan::quantum
