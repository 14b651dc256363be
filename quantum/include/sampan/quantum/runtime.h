// sampan quantum: run-time switches of the state-vector simulator (both on by default).
//
//   fusion: consecutive gates on at most two qubits are multiplied into one dense block before
//           they touch the state (quantum/src/fusion.h); SAMPAN_QUANTUM_FUSION=0 turns it off.
//   simd:   the AVX2+FMA kernels when the CPU has them (quantum/src/kernels/gates_avx2.h);
//           SAMPAN_QUANTUM_SIMD=0 forces the portable kernels.
#pragma once

namespace sampan::quantum {

bool fusion_enabled();
/// Returns the previous setting.
bool set_fusion_enabled(bool enabled);
/// Whether the AVX2 kernels run (CPU support and the switch).
bool simd_enabled();
/// Asks for the AVX2 kernels (granted only where the CPU has AVX2+FMA); returns the previous setting.
bool set_simd_enabled(bool enabled);

}  // namespace sampan::quantum
