// CUDA twins of the state-vector kernels (gates.h), over the per-amplitude bodies of
// gate_element.h, defined in gates.cu and compiled only where nvcc exists (SAMPAN_CUDA_KERNELS).
// States are device pointers to complex128 amplitudes (std::complex's layout); matrices, qubit
// lists and the results of the sums are on the host. Every call runs on the default stream, in
// order, and the sums return synchronously. Errors leave as std::runtime_error.
#pragma once

#include <complex>
#include <cstdint>

#include "sampan/complex_element.h"

namespace sampan::quantum::kernels {

using DeviceAmp = sampan::kernels::ComplexElement<double>;

/// The largest gate (targets, controls not counted) the CUDA kernels apply: its matrix travels
/// as a kernel argument (64 complex128 entries).
constexpr int kMaxCudaGateTargets = 3;

/// |0...0> on 2^n amplitudes.
void zero_state_cuda(DeviceAmp* a, int n);

/// The 2^k x 2^k matrix m (row-major, local bit j = targets[j]) on `targets` where the bits of
/// cmask are set; 1 <= k <= kMaxCudaGateTargets.
void apply_dense_cuda(DeviceAmp* a, int n, const int* targets, int k, uint64_t cmask, const std::complex<double>* m);

/// <lam| C(m) |phi> for m on k = 1 or 2 targets (zero where the controls are not all set).
std::complex<double> inner_cuda(const DeviceAmp* lam, const DeviceAmp* phi, int n, const int* targets, int k,
                                uint64_t cmask, const std::complex<double>* m);

/// sum_u conj(psi[u ^ x]) psi[u] (-1)^{|u & z|}: <psi| X^x Z^z |psi> without the i^{n_y} phase.
std::complex<double> pauli_term_cuda(const DeviceAmp* psi, int n, uint64_t xmask, uint64_t zmask);

/// out[u ^ x] += phase (-1)^{|u & z|} psi[u] for every u: adds one Pauli term of H psi.
void add_pauli_term_cuda(const DeviceAmp* psi, DeviceAmp* out, int n, uint64_t xmask, uint64_t zmask,
                         std::complex<double> phase);

}  // namespace sampan::quantum::kernels
