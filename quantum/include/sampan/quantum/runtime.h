// sampan quantum: run-time switches of the state-vector simulator (all on by default).
//
//   fusion: consecutive gates on at most two qubits are multiplied into one dense block before
//           they touch the state (quantum/src/fusion.h); SAMPAN_QUANTUM_FUSION=0 turns it off.
//   cache blocking: a state of more than 2^b amplitudes runs the circuit in stages, each applied
//           block by block while a block of 2^b amplitudes sits in the cache, with qubit swaps
//           bringing high qubits down (quantum/src/cache_blocking.h); SAMPAN_QUANTUM_CACHE_BLOCKING=0
//           turns it off, SAMPAN_QUANTUM_BLOCK_QUBITS=b sets the block size (default 15).
//   simd:   the AVX2+FMA kernels when the CPU has them (quantum/src/kernels/gates_avx2.h);
//           SAMPAN_QUANTUM_SIMD=0 forces the portable kernels.
#pragma once

namespace sampan::quantum {

bool fusion_enabled();
/// Returns the previous setting.
bool set_fusion_enabled(bool enabled);
/// Whether the simulator runs states larger than a cache block block by block.
bool cache_blocking_enabled();
/// Returns the previous setting.
bool set_cache_blocking_enabled(bool enabled);
/// log2 of the amplitudes per cache block: set_cache_block_qubits' value, else
/// SAMPAN_QUANTUM_BLOCK_QUBITS, else 15.
int cache_block_qubits();
/// Sets it (2 to 30; 0 goes back to the environment's value or the default); returns the previous value.
int set_cache_block_qubits(int b);
/// Whether the AVX2 kernels run (CPU support and the switch).
bool simd_enabled();
/// Asks for the AVX2 kernels (granted only where the CPU has AVX2+FMA); returns the previous setting.
bool set_simd_enabled(bool enabled);

}  // namespace sampan::quantum
