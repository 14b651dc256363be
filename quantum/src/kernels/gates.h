// sampan quantum: in-place gate kernels on a state vector of 2^n amplitudes.
//
// Qubit convention (used everywhere in sampan.quantum): qubit q is bit q of the amplitude index,
// so qubit 0 is the least significant bit. A k-qubit matrix acting on qubits (q_0, ..., q_{k-1})
// is indexed by the local index b = bit(q_0) + 2 bit(q_1) + ... (q_0 is again the low bit).
//
// Kernels are plain functions over an amplitude pointer; no Tensor, no checks (the callers
// validate qubits). `cmask` is a bit mask of control qubits: the gate acts only on the
// amplitudes whose control bits are all 1. Single-qubit kernels walk the pairs as blocks (outer
// loop over blocks of 2^(t+1), inner contiguous loop over 2^t) so memory access stays streaming
// for every target; OpenMP splits the collapsed loop above kParallelAmps amplitudes.
//
// Two implementations: the portable templates in namespace `portable` (any T, any CPU; also the
// reference the SIMD tests compare against) and the AVX2+FMA kernels of gates_avx2.h, chosen at
// run time per call for complex64/complex128 when the CPU has them (n >= 3). The functions of
// this namespace dispatch; callers use them.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/gate_element.h"
#include "kernels/gates_avx2.h"
#include "kernels/index_runs.h"

namespace sampan::quantum::kernels {

namespace portable {

// Calls f(i0, i1) for every pair of indices differing in bit t (i0 has the bit clear) whose
// control bits are set. Block structure: no per-amplitude bit insertion.
template <class F>
inline void for_each_pair(int n, int t, uint64_t cmask, F&& f) {
  const uint64_t N = uint64_t(1) << n, half = uint64_t(1) << t;
  const int64_t nblocks = static_cast<int64_t>(N >> (t + 1)), inner = static_cast<int64_t>(half);
#pragma omp parallel for collapse(2) if (N >= kParallelAmps) schedule(static)
  for (int64_t b = 0; b < nblocks; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      const uint64_t i0 = (static_cast<uint64_t>(b) << (t + 1)) | static_cast<uint64_t>(i);
      if ((i0 & cmask) != cmask) continue;
      f(i0, i0 | half);
    }
}

// Calls f(base) for every index whose bits at the (sorted) `sorted_qubits` are 0 and whose
// control bits are set; used by multi-qubit kernels (bit insertion per group of 2^k amplitudes).
template <class F>
inline void for_each_group(int n, const std::vector<int>& sorted_qubits, uint64_t cmask, F&& f) {
  const int k = static_cast<int>(sorted_qubits.size());
  const int64_t groups = static_cast<int64_t>(uint64_t(1) << (n - k));
  const uint64_t N = uint64_t(1) << n;
#pragma omp parallel for if (N >= kParallelAmps) schedule(static)
  for (int64_t g = 0; g < groups; ++g) {
    const uint64_t base = group_base(static_cast<uint64_t>(g), sorted_qubits.data(), k);
    if ((base & cmask) != cmask) continue;
    f(base);
  }
}

/// Dense 2x2 matrix m (row-major) on target t.
template <class T>
void apply_1q(std::complex<T>* a, int n, int t, const std::complex<T>* m, uint64_t cmask = 0) {
  const std::complex<T> mm[4] = {m[0], m[1], m[2], m[3]};
  for_each_pair(n, t, cmask, [&](uint64_t i0, uint64_t i1) { dense_pair(a, i0, i1, mm); });
}

/// Diagonal 1-qubit gate diag(d0, d1) on target t.
template <class T>
void apply_diag_1q(std::complex<T>* a, int n, int t, std::complex<T> d0, std::complex<T> d1, uint64_t cmask = 0) {
  for_each_pair(n, t, cmask, [=](uint64_t i0, uint64_t i1) {
    a[i0] *= d0;
    a[i1] *= d1;
  });
}

/// Phase gate diag(1, p) (Z: p = -1, S: p = i, T: p = e^{i pi/4}); with controls CZ / CP.
template <class T>
void apply_phase(std::complex<T>* a, int n, int t, std::complex<T> p, uint64_t cmask = 0) {
  for_each_pair(n, t, cmask, [=](uint64_t, uint64_t i1) { a[i1] *= p; });
}

/// Pauli X (with controls: CNOT, Toffoli ...).
template <class T>
void apply_x(std::complex<T>* a, int n, int t, uint64_t cmask = 0) {
  for_each_pair(n, t, cmask, [=](uint64_t i0, uint64_t i1) { std::swap(a[i0], a[i1]); });
}

/// Pauli Z.
template <class T>
void apply_z(std::complex<T>* a, int n, int t, uint64_t cmask = 0) {
  for_each_pair(n, t, cmask, [=](uint64_t, uint64_t i1) { a[i1] = -a[i1]; });
}

/// Hadamard.
template <class T>
void apply_h(std::complex<T>* a, int n, int t, uint64_t cmask = 0) {
  const T r = static_cast<T>(0.70710678118654752440);
  for_each_pair(n, t, cmask, [=](uint64_t i0, uint64_t i1) {
    const std::complex<T> x = a[i0], y = a[i1];
    a[i0] = r * (x + y);
    a[i1] = r * (x - y);
  });
}

/// SWAP of qubits q0 and q1 (q0 != q1).
template <class T>
void apply_swap(std::complex<T>* a, int n, int q0, int q1, uint64_t cmask = 0) {
  std::vector<int> s = {std::min(q0, q1), std::max(q0, q1)};
  const uint64_t b0 = uint64_t(1) << q0, b1 = uint64_t(1) << q1;
  for_each_group(n, s, cmask, [=](uint64_t base) { std::swap(a[base | b0], a[base | b1]); });
}

/// Dense 4x4 matrix on (q0, q1): local index bit(q0) + 2 bit(q1).
template <class T>
void apply_2q(std::complex<T>* a, int n, int q0, int q1, const std::complex<T>* m, uint64_t cmask = 0) {
  std::vector<int> s = {std::min(q0, q1), std::max(q0, q1)};
  const uint64_t b0 = uint64_t(1) << q0, b1 = uint64_t(1) << q1;
  const uint64_t off[4] = {0, b0, b1, b0 | b1};
  for_each_group(n, s, cmask, [&](uint64_t base) {
    std::complex<T> v[4];
    dense_group(a, base, off, 4, m, v);
  });
}

/// Dense 2^k x 2^k matrix on `qubits` (distinct; local bit j is qubits[j]); k <= 10.
template <class T>
void apply_kq(std::complex<T>* a, int n, const std::vector<int>& qubits, const std::complex<T>* m,
              uint64_t cmask = 0) {
  const int k = static_cast<int>(qubits.size());
  const int dim = 1 << k;
  std::vector<int> s = qubits;
  std::sort(s.begin(), s.end());
  std::vector<uint64_t> offs(dim, 0);
  for (int b = 0; b < dim; ++b)
    for (int j = 0; j < k; ++j)
      if (b >> j & 1) offs[b] |= uint64_t(1) << qubits[j];
  const uint64_t* off = offs.data();
  for_each_group(n, s, cmask, [=](uint64_t base) {
    std::complex<T> v[1 << 10];
    dense_group(a, base, off, dim, m, v);
  });
}

}  // namespace portable

// True when the AVX2 kernels take a call on 2^n amplitudes.
inline bool use_avx2(int n) { return n >= 3 && avx2::available(); }

/// Dense 2x2 matrix m (row-major) on target t, where the control bits of cmask are 1.
template <class T>
void apply_1q(std::complex<T>* a, int n, int t, const std::complex<T>* m, uint64_t cmask = 0) {
  if (use_avx2(n)) avx2::dense_1q(a, n, t, m, cmask);
  else portable::apply_1q(a, n, t, m, cmask);
}

/// diag(d0, d1) on target t.
template <class T>
void apply_diag_1q(std::complex<T>* a, int n, int t, std::complex<T> d0, std::complex<T> d1, uint64_t cmask = 0) {
  if (use_avx2(n)) avx2::diag_1q(a, n, t, d0, d1, cmask);
  else portable::apply_diag_1q(a, n, t, d0, d1, cmask);
}

/// diag(1, p) (Z: p = -1, S: p = i, T: p = e^{i pi/4}); with controls CZ / CP. The AVX2 kernel
/// touches only the amplitudes with the target bit set.
template <class T>
void apply_phase(std::complex<T>* a, int n, int t, std::complex<T> p, uint64_t cmask = 0) {
  if (use_avx2(n)) avx2::diag_1q(a, n, t, std::complex<T>(1), p, cmask);
  else portable::apply_phase(a, n, t, p, cmask);
}

/// Pauli X (with controls: CNOT, Toffoli ...).
template <class T>
void apply_x(std::complex<T>* a, int n, int t, uint64_t cmask = 0) {
  if (use_avx2(n)) {
    avx2::x_1q(a, n, t, cmask);
  } else {
    portable::apply_x(a, n, t, cmask);
  }
}

/// Pauli Z.
template <class T>
void apply_z(std::complex<T>* a, int n, int t, uint64_t cmask = 0) {
  apply_phase(a, n, t, std::complex<T>(-1), cmask);
}

/// Hadamard.
template <class T>
void apply_h(std::complex<T>* a, int n, int t, uint64_t cmask = 0) {
  if (use_avx2(n)) {
    avx2::h_1q(a, n, t, cmask);
  } else {
    portable::apply_h(a, n, t, cmask);
  }
}

/// Dense 4x4 matrix on (q0, q1): local index bit(q0) + 2 bit(q1).
template <class T>
void apply_2q(std::complex<T>* a, int n, int q0, int q1, const std::complex<T>* m, uint64_t cmask = 0) {
  if (use_avx2(n)) avx2::dense_2q(a, n, q0, q1, m, cmask);
  else portable::apply_2q(a, n, q0, q1, m, cmask);
}

/// SWAP of qubits q0 and q1 (q0 != q1), as a 4x4 permutation on the AVX2 path (streams memory).
template <class T>
void apply_swap(std::complex<T>* a, int n, int q0, int q1, uint64_t cmask = 0) {
  if (use_avx2(n)) {
    const std::complex<T> m[16] = {T(1), T(0), T(0), T(0), T(0), T(0), T(1), T(0),
                                   T(0), T(1), T(0), T(0), T(0), T(0), T(0), T(1)};
    avx2::dense_2q(a, n, q0, q1, m, cmask);
  } else {
    portable::apply_swap(a, n, q0, q1, cmask);
  }
}

/// Dense 2^k x 2^k matrix on `qubits` (local bit j is qubits[j]); k <= 10.
template <class T>
void apply_kq(std::complex<T>* a, int n, const std::vector<int>& qubits, const std::complex<T>* m,
              uint64_t cmask = 0) {
  if (qubits.size() == 1) apply_1q(a, n, qubits[0], m, cmask);
  else if (qubits.size() == 2) apply_2q(a, n, qubits[0], qubits[1], m, cmask);
  else portable::apply_kq(a, n, qubits, m, cmask);
}

/// sum over controlled pairs of conj(lam) . (m phi) restricted to target t: <lam| C(m) |phi>
/// with C(m) acting as m where the controls are set and as 0 elsewhere (a gate derivative).
template <class T>
std::complex<double> inner_1q(const std::complex<T>* lam, const std::complex<T>* phi, int n, int t,
                              const std::complex<T>* m, uint64_t cmask) {
  const uint64_t half = uint64_t(1) << t;
  const int64_t pairs = static_cast<int64_t>(uint64_t(1) << (n - 1));
  double re = 0, im = 0;
#pragma omp parallel for reduction(+ : re, im) if ((uint64_t(1) << n) >= kParallelAmps) schedule(static)
  for (int64_t k = 0; k < pairs; ++k) {
    const uint64_t kk = static_cast<uint64_t>(k);
    const uint64_t i0 = insert_zero_bit(kk, t);
    if ((i0 & cmask) != cmask) continue;
    const std::complex<T> s = inner_pair(lam, phi, i0, i0 | half, m);
    re += s.real();
    im += s.imag();
  }
  return {re, im};
}

/// <lam| C(m) |phi> for a 4x4 m on (q0, q1), zero outside the controls.
template <class T>
std::complex<double> inner_2q(const std::complex<T>* lam, const std::complex<T>* phi, int n, int q0, int q1,
                              const std::complex<T>* m, uint64_t cmask) {
  const int sorted[2] = {std::min(q0, q1), std::max(q0, q1)};
  const uint64_t b0 = uint64_t(1) << q0, b1 = uint64_t(1) << q1, off[4] = {0, b0, b1, b0 | b1};
  const int64_t groups = static_cast<int64_t>(uint64_t(1) << (n - 2));
  double re = 0, im = 0;
#pragma omp parallel for reduction(+ : re, im) if ((uint64_t(1) << n) >= kParallelAmps) schedule(static)
  for (int64_t g = 0; g < groups; ++g) {
    const uint64_t base = group_base(static_cast<uint64_t>(g), sorted, 2);
    if ((base & cmask) != cmask) continue;
    const std::complex<T> s = inner_group(lam, phi, base, off, 4, m);
    re += s.real();
    im += s.imag();
  }
  return {re, im};
}

}  // namespace sampan::quantum::kernels
