// sampan quantum (internal): a decoded gate resolved to its matrix, and its in-place application.
// Shared by the simulator (circuit.cpp) and the gate-fusion pass (fusion.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sampan/quantum/circuit.h"

namespace sampan::quantum {

// A gate as the simulator applies it: a 2^k x 2^k matrix on `targets`, active where the bits of
// cmask are set. Parameter-free gates keep `fast` (their opcode) so the fast kernels run.
struct Resolved {
  std::vector<int> targets;
  uint64_t cmask = 0;
  std::vector<complex128> m;  // row-major
  bool fast = false;
};

/// The matrix of gate g, or (derivative = slot index j >= 0) its derivative in parameter j.
Resolved resolve(const Gate& g, const double* params, const std::vector<double>& constants, int derivative = -1);

/// Applies U (or U^dagger) of a resolved gate in place on 2^n amplitudes.
void apply(complex128* a, int n, const Gate& g, const Resolved& r, bool adjoint);

}  // namespace sampan::quantum
