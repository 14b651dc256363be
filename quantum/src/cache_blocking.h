// sampan quantum (internal): cache-blocked execution of a circuit on a state larger than the cache.
//
// A full pass over a large state costs the same memory traffic whatever the gate does, so the
// executor cuts the number of passes. The (fused) schedule is split into stages; within a stage
// every unit's targets are "local": physical qubits below b, where a block of 2^b amplitudes
// (16 * 2^b bytes) fits the cache. A stage runs block by block: each block gets all the stage's
// units while it sits in the cache, so one stage costs one pass over memory. Controls may be
// anywhere: above b they are fixed within a block, which then takes the unit or skips it.
//
// Qubits above b that the next stage needs are brought down by a swap pass
// (kernels/qubit_swap.h), which exchanges them with the top local qubits. The executor keeps a
// logical -> physical qubit map; before a swap pass the previous stage (still block by block,
// in the cache) permutes the local qubits so that the ones to give away sit on top. At the end
// the map is undone (one swap pass, plus one local permutation pass when the low qubits came back
// permuted), so callers see the usual ordering. Invariant kept by the planner: a physical
// position >= b holds its own logical qubit or a logical qubit < b, so one swap pass always sends
// every high qubit home.
//
// From |0...0> (simulate()), any qubit permutation of the state is the state itself: the first
// swaps are free relabelings, and the first stage touches only block 0 (every other block is zero
// and stays zero: a unit acts within blocks, and block 0's high bits are all 0).
//
// Toggle: SAMPAN_QUANTUM_CACHE_BLOCKING=0 or set_cache_blocking_enabled(false); the block size
// SAMPAN_QUANTUM_BLOCK_QUBITS (or set_cache_block_qubits). Used only for n > b: a state that
// fits one block keeps the one-pass-per-unit path.
#pragma once

#include <cstdint>
#include <vector>

#include "sampan/quantum/circuit.h"
#include "sampan/quantum/runtime.h"

namespace sampan::quantum {

/// Whether simulate() takes the blocked path for a state of n qubits.
bool use_cache_blocking(int n);

/// What the planner made of a circuit: counted by the tests and the benchmark.
struct BlockedPlanSummary {
  int blocked_stages = 0;   // passes that run units block by block
  int swap_passes = 0;      // passes of kernels::swap_top_qubits
  int global_units = 0;     // units with more targets than b, applied to the whole state
  int local_swaps = 0;      // in-cache SWAPs that permute the local qubits
};

/// Applies the circuit to the 2^n amplitudes `a` (n > b) stage by stage in blocks of 2^b
/// amplitudes. fusion_max_qubits = 0: every gate is its own unit, else the fused schedule
/// (fusion.h). zero_state: `a` holds |0...0> on entry (enables the free first swaps and the
/// block-0-only first stage).
BlockedPlanSummary apply_blocked(complex128* a, int n, const std::vector<Gate>& gates, const double* params,
                                 const std::vector<double>& constants, int fusion_max_qubits, int b,
                                 bool zero_state);

}  // namespace sampan::quantum
