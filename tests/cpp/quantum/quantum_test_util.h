// Helpers for the quantum tests: random states and the explicit dense reference.
#pragma once

#include <complex>
#include <cstdint>
#include <random>
#include <vector>

namespace sampan::quantum::test {

using C = std::complex<double>;
using Mat = std::vector<C>;  // row-major, dim x dim

inline std::vector<C> random_state(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<C> v(size_t(1) << n);
  double s = 0;
  for (auto& x : v) { x = {g(rng), g(rng)}; s += std::norm(x); }
  for (auto& x : v) x /= std::sqrt(s);
  return v;
}

inline Mat random_matrix(int dim, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  Mat m(static_cast<size_t>(dim * dim));
  for (auto& x : m) x = {g(rng), g(rng)};
  return m;
}

inline Mat kron(const Mat& a, int da, const Mat& b, int db) {
  Mat r(static_cast<size_t>(da * db * da * db));
  for (int i = 0; i < da; ++i)
    for (int j = 0; j < da; ++j)
      for (int k = 0; k < db; ++k)
        for (int l = 0; l < db; ++l) r[static_cast<size_t>((i * db + k) * da * db + j * db + l)] = a[i * da + j] * b[k * db + l];
  return r;
}

inline Mat identity(int dim) {
  Mat r(static_cast<size_t>(dim * dim));
  for (int i = 0; i < dim; ++i) r[static_cast<size_t>(i * dim + i)] = 1;
  return r;
}

/// I x ... x m (at qubit t) x ... x I with qubit n-1 leftmost (qubit 0 is the low bit).
inline Mat kron_1q(const Mat& m, int n, int t) {
  Mat r = {1};
  int d = 1;
  for (int q = n - 1; q >= 0; --q) {
    r = kron(r, d, q == t ? m : identity(2), 2);
    d *= 2;
  }
  return r;
}

/// The full 2^n matrix of `m` (2^k x 2^k, local bit j = qubits[j]) acting where every control is 1.
inline Mat embed(const Mat& m, int n, const std::vector<int>& qubits, const std::vector<int>& controls = {}) {
  const int N = 1 << n, k = static_cast<int>(qubits.size());
  uint64_t tmask = 0, cmask = 0;
  for (int q : qubits) tmask |= uint64_t(1) << q;
  for (int c : controls) cmask |= uint64_t(1) << c;
  auto local = [&](int i) { int b = 0; for (int j = 0; j < k; ++j) b |= ((i >> qubits[j]) & 1) << j; return b; };
  Mat r(static_cast<size_t>(N) * N);
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      if ((static_cast<uint64_t>(j) & cmask) != cmask) { r[static_cast<size_t>(i) * N + j] = (i == j); continue; }
      if ((i & ~tmask) != (j & ~tmask)) continue;
      r[static_cast<size_t>(i) * N + j] = m[static_cast<size_t>(local(i) * (1 << k) + local(j))];
    }
  return r;
}

inline std::vector<C> matvec(const Mat& m, const std::vector<C>& v) {
  const size_t N = v.size();
  std::vector<C> r(N);
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) r[i] += m[i * N + j] * v[j];
  return r;
}

inline Mat matmul(const Mat& a, const Mat& b, size_t N) {
  Mat r(N * N);
  for (size_t i = 0; i < N; ++i)
    for (size_t k = 0; k < N; ++k)
      for (size_t j = 0; j < N; ++j) r[i * N + j] += a[i * N + k] * b[k * N + j];
  return r;
}

inline double max_diff(const std::vector<C>& a, const std::vector<C>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

}  // namespace sampan::quantum::test
