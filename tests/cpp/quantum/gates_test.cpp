// Gate kernels (quantum/src/kernels/gates.h) and StateVector against the explicit dense matrix
// on random 6-qubit states, for every target and target/control combination.
#include <gtest/gtest.h>

#include "kernels/gates.h"
#include "quantum/quantum_test_util.h"
#include "sampan/error.h"
#include "sampan/quantum/state_vector.h"

using namespace sampan;
using namespace sampan::quantum;
using namespace sampan::quantum::test;
namespace k = sampan::quantum::kernels;

namespace {
constexpr int n = 6;
const double r2 = M_SQRT1_2;
const C I(0, 1);

template <class F> void check_1q(const Mat& m, F apply, const char* what) {
  for (int t = 0; t < n; ++t) {
    auto psi = random_state(n, 11 + t);
    auto ref = matvec(kron_1q(m, n, t), psi);
    apply(psi, t);
    EXPECT_LT(max_diff(psi, ref), 1e-12) << what << " target " << t;
  }
}

template <class F> void check_controlled(const Mat& m, F apply, const char* what) {
  for (int t = 0; t < n; ++t)
    for (int c = 0; c < n; ++c) {
      if (c == t) continue;
      auto psi = random_state(n, 100 + 7 * t + c);
      auto ref = matvec(embed(m, n, {t}, {c}), psi);
      apply(psi, t, uint64_t(1) << c);
      EXPECT_LT(max_diff(psi, ref), 1e-12) << what << " target " << t << " control " << c;
    }
}
}  // namespace

TEST(QuantumKernels, Dense1qEveryTargetMatchesKronecker) {
  Mat m = random_matrix(2, 3);
  check_1q(m, [&](std::vector<C>& a, int t) { k::apply_1q(a.data(), n, t, m.data()); }, "dense 1q");
}

TEST(QuantumKernels, FastPathsMatchTheirMatrices) {
  check_1q({0, 1, 1, 0}, [](std::vector<C>& a, int t) { k::apply_x(a.data(), n, t); }, "X");
  check_1q({1, 0, 0, -1}, [](std::vector<C>& a, int t) { k::apply_z(a.data(), n, t); }, "Z");
  check_1q({r2, r2, r2, -r2}, [](std::vector<C>& a, int t) { k::apply_h(a.data(), n, t); }, "H");
  check_1q({1, 0, 0, I}, [](std::vector<C>& a, int t) { k::apply_phase(a.data(), n, t, I); }, "S");
  const C d0 = std::polar(1.0, 0.3), d1 = std::polar(1.0, -1.1);
  check_1q({d0, 0, 0, d1}, [&](std::vector<C>& a, int t) { k::apply_diag_1q(a.data(), n, t, d0, d1); }, "diag");
}

TEST(QuantumKernels, ControlledGatesEveryPair) {
  Mat m = random_matrix(2, 5);
  check_controlled(m, [&](std::vector<C>& a, int t, uint64_t c) { k::apply_1q(a.data(), n, t, m.data(), c); }, "C-dense");
  check_controlled({0, 1, 1, 0}, [](std::vector<C>& a, int t, uint64_t c) { k::apply_x(a.data(), n, t, c); }, "CNOT");
  check_controlled({1, 0, 0, -1}, [](std::vector<C>& a, int t, uint64_t c) { k::apply_z(a.data(), n, t, c); }, "CZ");
  const C p = std::polar(1.0, 0.7);
  check_controlled({1, 0, 0, p}, [&](std::vector<C>& a, int t, uint64_t c) { k::apply_phase(a.data(), n, t, p, c); }, "CP");
}

TEST(QuantumKernels, ToffoliTwoControls) {
  for (int t = 0; t < n; ++t)
    for (int c1 = 0; c1 < n; ++c1)
      for (int c2 = c1 + 1; c2 < n; ++c2) {
        if (c1 == t || c2 == t) continue;
        auto psi = random_state(n, 3 + t + 10 * c1 + 100 * c2);
        auto ref = matvec(embed({0, 1, 1, 0}, n, {t}, {c1, c2}), psi);
        k::apply_x(psi.data(), n, t, (uint64_t(1) << c1) | (uint64_t(1) << c2));
        EXPECT_LT(max_diff(psi, ref), 1e-12) << t << " " << c1 << " " << c2;
      }
}

TEST(QuantumKernels, TwoQubitDenseAndSwapEveryPair) {
  Mat m = random_matrix(4, 9);
  const Mat swap = {1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
  for (int q0 = 0; q0 < n; ++q0)
    for (int q1 = 0; q1 < n; ++q1) {
      if (q0 == q1) continue;
      auto psi = random_state(n, 17 + q0 * 8 + q1), psi2 = psi;
      auto ref = matvec(embed(m, n, {q0, q1}), psi);
      k::apply_2q(psi.data(), n, q0, q1, m.data());
      EXPECT_LT(max_diff(psi, ref), 1e-12) << "2q " << q0 << " " << q1;
      auto ref2 = matvec(embed(swap, n, {q0, q1}), psi2);
      k::apply_swap(psi2.data(), n, q0, q1);
      EXPECT_LT(max_diff(psi2, ref2), 1e-12) << "swap " << q0 << " " << q1;
    }
}

TEST(QuantumKernels, KQubitDenseWithControl) {
  Mat m = random_matrix(8, 21);
  const std::vector<std::vector<int>> sets = {{0, 1, 2}, {5, 2, 0}, {3, 5, 1}};
  for (const auto& qs : sets) {
    auto psi = random_state(n, 31);
    auto ref = matvec(embed(m, n, qs, {4}), psi);
    k::apply_kq(psi.data(), n, qs, m.data(), uint64_t(1) << 4);
    EXPECT_LT(max_diff(psi, ref), 1e-12) << qs[0] << qs[1] << qs[2];
  }
}

TEST(QuantumKernels, Complex64Kernels) {
  Mat m = random_matrix(2, 3);
  std::vector<std::complex<float>> mf(m.begin(), m.end());
  for (int t = 0; t < n; ++t) {
    auto psi = random_state(n, 40 + t);
    std::vector<std::complex<float>> pf(psi.begin(), psi.end());
    auto ref = matvec(kron_1q(m, n, t), psi);
    k::apply_1q(pf.data(), n, t, mf.data());
    std::vector<C> back(pf.begin(), pf.end());
    EXPECT_LT(max_diff(back, ref), 1e-5) << t;
  }
}

TEST(QuantumKernels, LargeStateParallelPathMatchesSerialReference) {
  const int big = 15;  // above kParallelAmps: the OpenMP branch
  auto psi = random_state(big, 5);
  auto ref = psi;
  Mat m = random_matrix(2, 77);
  for (int t : {0, 7, 14}) {
    k::apply_1q(psi.data(), big, t, m.data());
    const uint64_t h = uint64_t(1) << t;
    for (uint64_t i = 0; i < ref.size(); ++i)
      if (!(i & h)) {
        C x = ref[i], y = ref[i | h];
        ref[i] = m[0] * x + m[1] * y;
        ref[i | h] = m[2] * x + m[3] * y;
      }
  }
  EXPECT_LT(max_diff(psi, ref), 1e-10);
}

TEST(StateVector, UnitaryGatesPreserveNorm) {
  for (DType dt : {DType::Complex128, DType::Complex64}) {
    StateVector sv(n, dt);
    EXPECT_NEAR(sv.norm2(), 1.0, 1e-12);
    const double c = std::cos(0.4), s = std::sin(0.4);
    for (int t = 0; t < n; ++t) sv.apply_matrix({t}, {r2, r2, r2, -r2});
    for (int t = 0; t + 1 < n; ++t) sv.apply_matrix({t}, {c, -s, s, c}, {t + 1});
    sv.apply_matrix({0, 3}, {c, 0, 0, -s, 0, c, -s, 0, 0, s, c, 0, s, 0, 0, c});
    EXPECT_NEAR(sv.norm2(), 1.0, dt == DType::Complex128 ? 1e-12 : 1e-5);
  }
}

TEST(StateVector, Errors) {
  StateVector sv(3);
  try {
    sv.apply_matrix({3}, {1, 0, 0, 1});
    FAIL();
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("qubit 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3 qubits"), std::string::npos) << e.what();
  }
  try {
    sv.apply_matrix({1}, {0, 1, 1, 0}, {1});
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("qubit 1 appears twice"), std::string::npos) << e.what();
  }
  EXPECT_THROW(sv.apply_matrix({0, 1}, {1, 0, 0, 1}), ValueError);  // 4 entries for a 4x4
  EXPECT_THROW(StateVector(61), ValueError);
  EXPECT_THROW(StateVector(0), ValueError);
  try {
    StateVector huge(55);  // 2^55 * 16 bytes: more than any test machine has
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("576460752303423488 bytes"), std::string::npos) << e.what();
  }
}
