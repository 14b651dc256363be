// sampan quantum: AVX2+FMA gate kernels on interleaved complex amplitudes, selected at run time.
//
// The library is built for baseline x86-64, so these kernels carry their own target attribute
// (gates_avx2.cpp) and the callers (kernels/gates.h) take them only when available() says the
// CPU has AVX2 and FMA and SAMPAN_QUANTUM_SIMD is not "0" (the portable kernels are then the
// fallback and the reference the tests compare against). On other architectures available() is
// false. Same conventions as gates.h: qubit q is bit q of the index; m is row-major; cmask is the
// bit mask of control qubits. Every function needs n >= 3.
#pragma once

#include <complex>
#include <cstdint>

namespace sampan::quantum::kernels::avx2 {

/// True when the AVX2 kernels may run (CPU support, checked once; SAMPAN_QUANTUM_SIMD=0 disables).
bool available();
/// Forces the choice (tests and benchmarks compare both paths); returns the previous setting.
bool set_enabled(bool enabled);

/// Dense 2x2 matrix m on target t, acting where the control bits of cmask are all 1.
void dense_1q(std::complex<double>* a, int n, int t, const std::complex<double>* m, uint64_t cmask);
void dense_1q(std::complex<float>* a, int n, int t, const std::complex<float>* m, uint64_t cmask);

/// Pauli X (with controls: CNOT, Toffoli) and Hadamard on target t, without a matrix product.
void x_1q(std::complex<double>* a, int n, int t, uint64_t cmask);
void x_1q(std::complex<float>* a, int n, int t, uint64_t cmask);
void h_1q(std::complex<double>* a, int n, int t, uint64_t cmask);
void h_1q(std::complex<float>* a, int n, int t, uint64_t cmask);

/// diag(d0, d1) on target t, where the control bits are all 1.
void diag_1q(std::complex<double>* a, int n, int t, std::complex<double> d0, std::complex<double> d1,
             uint64_t cmask);
void diag_1q(std::complex<float>* a, int n, int t, std::complex<float> d0, std::complex<float> d1, uint64_t cmask);

/// Dense 4x4 matrix m on (q0, q1) (local index bit(q0) + 2 bit(q1)), where the control bits are 1.
void dense_2q(std::complex<double>* a, int n, int q0, int q1, const std::complex<double>* m, uint64_t cmask);
void dense_2q(std::complex<float>* a, int n, int q0, int q1, const std::complex<float>* m, uint64_t cmask);

}  // namespace sampan::quantum::kernels::avx2
