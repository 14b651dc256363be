// The AVX2 gate kernels (quantum/src/kernels/gates_avx2.cpp) against the portable reference
// kernels (kernels::portable, themselves checked against explicit Kronecker matrices in
// gates_test.cpp): every target, every target pair, controls below and above the vector width
// (lane bits 0-1 and out-lane bits), complex128 and complex64, random matrices and states.
// A large state exercises the OpenMP split and the run units (runs longer than kRunUnit).
#include <gtest/gtest.h>

#include <random>

#include "kernels/gates.h"
#include "quantum/quantum_test_util.h"

using namespace sampan::quantum;
using namespace sampan::quantum::test;
namespace k = sampan::quantum::kernels;

namespace {

template <class T>
std::vector<std::complex<T>> random_amps(int n, uint64_t seed) {
  auto v = random_state(n, seed);
  return std::vector<std::complex<T>>(v.begin(), v.end());
}

template <class T>
double diff(const std::vector<std::complex<T>>& a, const std::vector<std::complex<T>>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i)
    d = std::max(d, std::abs(std::complex<double>(a[i]) - std::complex<double>(b[i])));
  return d;
}

// complex128: 1e-14 (amplitudes of a normalised state are <= 1; FMA rounding differs from the
// portable products only in the last bits). complex64: a few float ulps.
template <class T> double tol() { return sizeof(T) == 8 ? 1e-14 : 2e-6; }

// Control sets worth covering for a gate on `targets` of n qubits: none, each single qubit not a
// target, and a pair (one low, one high) when available.
std::vector<uint64_t> control_masks(int n, const std::vector<int>& targets) {
  std::vector<uint64_t> masks = {0};
  std::vector<int> free;
  for (int q = 0; q < n; ++q)
    if (std::find(targets.begin(), targets.end(), q) == targets.end()) free.push_back(q);
  for (int q : free) masks.push_back(uint64_t(1) << q);
  if (free.size() >= 2) masks.push_back((uint64_t(1) << free.front()) | (uint64_t(1) << free.back()));
  return masks;
}

struct SimdOn {
  bool previous;
  SimdOn() : previous(k::avx2::set_enabled(true)) {}
  ~SimdOn() { k::avx2::set_enabled(previous); }
};

template <class T>
void check_1q_all(int n, uint64_t seed) {
  const auto m64 = random_matrix(2, seed);
  const std::vector<std::complex<T>> m(m64.begin(), m64.end());
  const std::complex<T> d0(std::polar(1.0, 0.4)), d1(std::polar(1.0, -1.3));
  for (int t = 0; t < n; ++t)
    for (uint64_t c : control_masks(n, {t})) {
      auto a = random_amps<T>(n, seed + t), b = a;
      k::avx2::dense_1q(a.data(), n, t, m.data(), c);
      k::portable::apply_1q(b.data(), n, t, m.data(), c);
      EXPECT_LT(diff(a, b), tol<T>()) << "dense n=" << n << " t=" << t << " cmask=" << c;
      a = b;
      k::avx2::diag_1q(a.data(), n, t, d0, d1, c);
      k::portable::apply_diag_1q(b.data(), n, t, d0, d1, c);
      EXPECT_LT(diff(a, b), tol<T>()) << "diag n=" << n << " t=" << t << " cmask=" << c;
      a = b;
      k::avx2::x_1q(a.data(), n, t, c);
      k::portable::apply_x(b.data(), n, t, c);
      EXPECT_LT(diff(a, b), tol<T>()) << "X n=" << n << " t=" << t << " cmask=" << c;
      a = b;
      k::avx2::h_1q(a.data(), n, t, c);
      k::portable::apply_h(b.data(), n, t, c);
      EXPECT_LT(diff(a, b), tol<T>()) << "H n=" << n << " t=" << t << " cmask=" << c;
      a = b;
      k::avx2::diag_1q(a.data(), n, t, std::complex<T>(1), d1, c);  // the phase-gate path
      k::portable::apply_phase(b.data(), n, t, d1, c);
      EXPECT_LT(diff(a, b), tol<T>()) << "phase n=" << n << " t=" << t << " cmask=" << c;
    }
}

template <class T>
void check_2q_all(int n, uint64_t seed) {
  const auto m64 = random_matrix(4, seed);
  const std::vector<std::complex<T>> m(m64.begin(), m64.end());
  for (int q0 = 0; q0 < n; ++q0)
    for (int q1 = 0; q1 < n; ++q1) {
      if (q0 == q1) continue;
      for (uint64_t c : control_masks(n, {q0, q1})) {
        auto a = random_amps<T>(n, seed + 31 * q0 + q1), b = a;
        k::avx2::dense_2q(a.data(), n, q0, q1, m.data(), c);
        k::portable::apply_2q(b.data(), n, q0, q1, m.data(), c);
        EXPECT_LT(diff(a, b), tol<T>()) << "2q n=" << n << " q=(" << q0 << "," << q1 << ") cmask=" << c;
      }
    }
}

}  // namespace

TEST(QuantumSimdKernels, OneQubitEveryTargetAndControlComplex128) {
  SimdOn on;
  if (!k::avx2::available()) GTEST_SKIP() << "this CPU has no AVX2+FMA: only the portable kernels run";
  for (int n : {3, 4, 5, 6, 7, 9, 12}) check_1q_all<double>(n, 100 + n);
}

TEST(QuantumSimdKernels, OneQubitEveryTargetAndControlComplex64) {
  SimdOn on;
  if (!k::avx2::available()) GTEST_SKIP() << "this CPU has no AVX2+FMA: only the portable kernels run";
  for (int n : {3, 4, 5, 6, 7, 9, 12}) check_1q_all<float>(n, 200 + n);
}

TEST(QuantumSimdKernels, TwoQubitEveryPairAndControlBothDtypes) {
  SimdOn on;
  if (!k::avx2::available()) GTEST_SKIP() << "this CPU has no AVX2+FMA: only the portable kernels run";
  check_2q_all<double>(3, 300);
  check_2q_all<double>(6, 301);
  check_2q_all<float>(3, 302);
  check_2q_all<float>(6, 303);
}

TEST(QuantumSimdKernels, LargeStateParallelRunsMatchPortable) {
  SimdOn on;
  if (!k::avx2::available()) GTEST_SKIP() << "this CPU has no AVX2+FMA: only the portable kernels run";
  const int n = 16;  // 2^16 amplitudes: the OpenMP branch; targets >= 12 make runs of > kRunUnit
  const auto m = random_matrix(2, 9), m4 = random_matrix(4, 10);
  auto a = random_amps<double>(n, 1), b = a;
  for (int t : {0, 1, 5, 11, 12, 15}) {
    k::avx2::dense_1q(a.data(), n, t, m.data(), uint64_t(1) << ((t + 3) % n));
    k::portable::apply_1q(b.data(), n, t, m.data(), uint64_t(1) << ((t + 3) % n));
  }
  for (int t : {0, 1, 2, 7, 12, 15}) {  // X and H: the named kernels, with a control above and below
    k::avx2::x_1q(a.data(), n, t, uint64_t(1) << ((t + 1) % n));
    k::portable::apply_x(b.data(), n, t, uint64_t(1) << ((t + 1) % n));
    k::avx2::h_1q(a.data(), n, t, t ? uint64_t(1) << (t - 1) : 0);
    k::portable::apply_h(b.data(), n, t, t ? uint64_t(1) << (t - 1) : 0);
  }
  k::avx2::dense_2q(a.data(), n, 15, 0, m4.data(), 0);
  k::portable::apply_2q(b.data(), n, 15, 0, m4.data(), 0);
  k::avx2::dense_2q(a.data(), n, 13, 14, m4.data(), uint64_t(1) << 2);
  k::portable::apply_2q(b.data(), n, 13, 14, m4.data(), uint64_t(1) << 2);
  EXPECT_LT(diff(a, b), 1e-12);
}

// The dispatching entry points (what the simulator calls) against the portable reference for
// n = 1..12, every target, no control and a control just above / below the target: n < 3 takes
// the portable path, n >= 3 the AVX2 one. complex128 to 1e-14, complex64 to float rounding.
template <class T>
void check_dispatch_small_n(uint64_t seed) {
  const auto m64 = random_matrix(2, seed);
  const std::vector<std::complex<T>> m(m64.begin(), m64.end());
  const std::complex<T> p(std::polar(1.0, 0.7));
  for (int n = 1; n <= 12; ++n)
    for (int t = 0; t < n; ++t) {
      std::vector<uint64_t> masks = {0};
      if (t + 1 < n) masks.push_back(uint64_t(1) << (t + 1));
      if (t > 0) masks.push_back(uint64_t(1) << (t - 1));
      for (uint64_t c : masks) {
        auto a = random_amps<T>(n, seed + 17 * n + t), b = a;
        k::apply_1q(a.data(), n, t, m.data(), c);
        k::portable::apply_1q(b.data(), n, t, m.data(), c);
        k::apply_h(a.data(), n, t, c);
        k::portable::apply_h(b.data(), n, t, c);
        k::apply_x(a.data(), n, t, c);
        k::portable::apply_x(b.data(), n, t, c);
        k::apply_phase(a.data(), n, t, p, c);
        k::portable::apply_phase(b.data(), n, t, p, c);
        EXPECT_LT(diff(a, b), tol<T>()) << "n=" << n << " t=" << t << " cmask=" << c;
      }
    }
}

TEST(QuantumSimdKernels, DispatchEveryTargetOneToTwelveQubits) {
  SimdOn on;
  check_dispatch_small_n<double>(500);
  check_dispatch_small_n<float>(600);
}

TEST(QuantumSimdKernels, DispatchFollowsTheSwitch) {
  // With the switch off the dispatching kernels must give the portable result bit for bit.
  const bool previous = k::avx2::set_enabled(false);
  EXPECT_FALSE(k::avx2::available());
  const auto m = random_matrix(2, 4);
  auto a = random_amps<double>(5, 2), b = a;
  k::apply_1q(a.data(), 5, 3, m.data());
  k::portable::apply_1q(b.data(), 5, 3, m.data());
  EXPECT_EQ(diff(a, b), 0.0);
  k::avx2::set_enabled(previous);
}
