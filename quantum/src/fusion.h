// sampan quantum (internal): gate fusion at execution time.
//
// Consecutive gates (in the sense of the circuit's dependency order: gates on disjoint qubits
// commute) whose qubits, controls included, fit in `max_qubits` qubits are multiplied into one
// dense matrix and applied in one pass over the state, instead of one pass per gate. The state
// vector is memory-bound, so a fused 2-qubit block costs about one gate's time. A block of a
// single gate is applied as that gate (its fast kernel). Gates on more than max_qubits qubits are
// never fused.
//
// Toggle: SAMPAN_QUANTUM_FUSION=0 in the environment, or set_fusion_enabled(false); the block
// size comes from SAMPAN_QUANTUM_FUSION_MAX_QUBITS (1 or 2; default 2, the AVX2 dense 2-qubit
// kernel; larger blocks cost more arithmetic than they save in memory traffic on AVX2).
#pragma once

#include <vector>

#include "sampan/quantum/circuit.h"
#include "sampan/quantum/runtime.h"

namespace sampan::quantum {

int fusion_max_qubits();

/// One unit of the fused schedule: gate index `single` applied as is, or a dense matrix `m` on
/// `qubits` (local bit j = qubits[j]) standing for gates[members...] in order.
struct FusedBlock {
  std::vector<int> qubits;
  std::vector<complex128> m;
  std::vector<size_t> members;
  bool single() const { return members.size() == 1; }
};

/// The fused schedule of a decoded circuit (matrices resolved with params/constants).
std::vector<FusedBlock> fuse_gates(const std::vector<Gate>& gates, const double* params,
                                   const std::vector<double>& constants, int max_qubits);

/// Applies the circuit to the 2^n amplitudes `a` through the fused schedule.
void apply_fused(complex128* a, int n, const std::vector<Gate>& gates, const double* params,
                 const std::vector<double>& constants, int max_qubits);

}  // namespace sampan::quantum
