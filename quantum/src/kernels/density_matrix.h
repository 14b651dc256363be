// sampan quantum: in-place density-matrix kernels.
//
// Layout: rho on n qubits is 2^n x 2^n row-major, rho[r * 2^n + c]. Read as a vector of 2n
// qubits, column bit q is bit q of the flat index and row bit q is bit q + n. Hence
// U rho U^+ is U on bits (q + n) followed by conj(U) on bits q: the state-vector kernels of
// gates.h applied twice, no transposes (the vectorisation identity vec(A X B^T) = (A (x) B) vec X
// for row-major vec). A channel E(rho) = sum_k K_k rho K_k^+ on qubits (q_1..q_k) is one dense
// 4^k x 4^k superoperator S on the 2k bits (q_1..q_k, q_1+n..q_k+n):
//   S[(r', c'), (r, c)] = sum_k K_k[r', r] conj(K_k[c', c]),  local index c + 2^k r,
// and its adjoint channel E^+(X) = sum_k K_k^+ X K_k has superoperator S^+ (the Hilbert-Schmidt
// adjoint). Plain functions over pointers; callers validate qubits.
#pragma once

#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/gates.h"

namespace sampan::quantum::kernels {

/// rho <- U rho U^+ for a 2^k x 2^k matrix m on `targets` (local bit j = targets[j]) acting where
/// every bit of cmask (a mask over qubits 0..n-1) is set.
template <class T>
void dm_apply_matrix(std::complex<T>* rho, int n, const std::vector<int>& targets, const std::complex<T>* m,
                     uint64_t cmask) {
  const size_t dim = size_t(1) << targets.size();
  std::vector<std::complex<T>> mc(dim * dim);
  for (size_t i = 0; i < dim * dim; ++i) mc[i] = std::conj(m[i]);
  std::vector<int> rows(targets);
  for (int& q : rows) q += n;
  const int n2 = 2 * n;
  if (dim == 2) {
    apply_1q(rho, n2, rows[0], m, cmask << n);
    apply_1q(rho, n2, targets[0], mc.data(), cmask);
  } else if (dim == 4) {
    apply_2q(rho, n2, rows[0], rows[1], m, cmask << n);
    apply_2q(rho, n2, targets[0], targets[1], mc.data(), cmask);
  } else {
    apply_kq(rho, n2, rows, m, cmask << n);
    apply_kq(rho, n2, targets, mc.data(), cmask);
  }
}

/// The 2k bits a k-qubit superoperator acts on: (q_1..q_k, q_1+n..q_k+n).
inline std::vector<int> superop_bits(const std::vector<int>& qubits, int n) {
  std::vector<int> b(qubits);
  for (int q : qubits) b.push_back(q + n);
  return b;
}

/// rho <- E(rho) for the 4^k x 4^k superoperator s on `qubits` (see the file comment).
template <class T>
void dm_apply_superop(std::complex<T>* rho, int n, const std::vector<int>& qubits, const std::complex<T>* s) {
  const std::vector<int> bits = superop_bits(qubits, n);
  if (bits.size() == 2) apply_2q(rho, 2 * n, bits[0], bits[1], s);
  else apply_kq(rho, 2 * n, bits, s);
}

/// <lam| M |phi> for a dense 2^k x 2^k matrix m on `bits` (local bit j = bits[j]) of a vector of
/// n_bits bits; any k (the k = 1, 2 cases of gates.h are faster).
template <class T>
std::complex<double> inner_kq(const std::complex<T>* lam, const std::complex<T>* phi, int n_bits,
                              const std::vector<int>& bits, const std::complex<T>* m) {
  const int k = static_cast<int>(bits.size());
  const int dim = 1 << k;
  std::vector<int> sorted(bits);
  std::sort(sorted.begin(), sorted.end());
  std::vector<uint64_t> off(static_cast<size_t>(dim), 0);
  for (int b = 0; b < dim; ++b)
    for (int j = 0; j < k; ++j)
      if (b >> j & 1) off[static_cast<size_t>(b)] |= uint64_t(1) << bits[static_cast<size_t>(j)];
  const int64_t groups = static_cast<int64_t>(uint64_t(1) << (n_bits - k));
  double re = 0, im = 0;
#pragma omp parallel for reduction(+ : re, im) if ((uint64_t(1) << n_bits) >= kParallelAmps) schedule(static)
  for (int64_t g = 0; g < groups; ++g) {
    uint64_t base = static_cast<uint64_t>(g);
    for (int q : sorted) base = ((base >> q) << (q + 1)) | (base & ((uint64_t(1) << q) - 1));
    std::complex<double> s = 0;
    for (int r = 0; r < dim; ++r) {
      std::complex<double> acc = 0;
      for (int c = 0; c < dim; ++c)
        acc += std::complex<double>(m[static_cast<size_t>(r) * dim + c]) * std::complex<double>(phi[base | off[c]]);
      s += std::conj(std::complex<double>(lam[base | off[r]])) * acc;
    }
    re += s.real();
    im += s.imag();
  }
  return {re, im};
}

/// tr(rho) (real part; rho is Hermitian).
template <class T>
double dm_trace(const std::complex<T>* rho, int n) {
  const int64_t N = int64_t(1) << n;
  double t = 0;
  for (int64_t i = 0; i < N; ++i) t += static_cast<double>(rho[i * N + i].real());
  return t;
}

/// tr(P rho) for the Pauli string P |u> = i^{n_y} (-1)^{|u & zmask|} |u ^ xmask>:
/// tr(P rho) = i^{n_y} sum_v (-1)^{|v & z|} rho[v, v ^ x].
template <class T>
std::complex<double> dm_pauli_trace(const std::complex<T>* rho, int n, uint64_t xmask, uint64_t zmask, int n_y) {
  const int64_t N = int64_t(1) << n;
  double re = 0, im = 0;
#pragma omp parallel for reduction(+ : re, im) if (uint64_t(N) >= kParallelAmps) schedule(static)
  for (int64_t v = 0; v < N; ++v) {
    const uint64_t u = static_cast<uint64_t>(v);
    const double sign = (__builtin_popcountll(u & zmask) & 1) ? -1.0 : 1.0;
    const std::complex<T> x = rho[u * static_cast<uint64_t>(N) + (u ^ xmask)];
    re += sign * static_cast<double>(x.real());
    im += sign * static_cast<double>(x.imag());
  }
  static const std::complex<double> kIPow[4] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
  return kIPow[n_y & 3] * std::complex<double>(re, im);
}

/// x <- (x + x^+) / 2 in place (2^n x 2^n).
template <class T>
void hermitize(std::complex<T>* x, int n) {
  const int64_t N = int64_t(1) << n;
  for (int64_t i = 0; i < N; ++i)
    for (int64_t j = i; j < N; ++j) {
      const std::complex<T> a = x[i * N + j], b = x[j * N + i];
      const std::complex<T> h = (a + std::conj(b)) * static_cast<T>(0.5);
      x[i * N + j] = h;
      x[j * N + i] = std::conj(h);
    }
}

}  // namespace sampan::quantum::kernels
