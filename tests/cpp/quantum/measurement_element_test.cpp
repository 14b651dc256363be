// The per-output bodies of the measurement ops' GPU twins (quantum/src/kernels/
// measurement_element.h), run on the CPU: the enumeration of the basis states of one outcome, the
// fixed partition of a large marginal, and every probability and gradient element against the CPU
// ops (a density matrix's probabilities and both gradients: its bits; a state vector's
// probabilities: to rounding, libstdc++'s |a|^2 being abs(a)^2); and measure's GPU twin, its
// formulas as ops over the projector's diagonal (measure_by_ops.h), run here on the CPU against
// the CPU kernels.
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <vector>

#include "../../../quantum/src/kernels/measurement_element.h"
#include "../../../quantum/src/measure_by_ops.h"
#include "quantum/quantum_test_util.h"
#include "sampan/op.h"
#include "sampan/ops.h"

using namespace sampan;
namespace qk = sampan::quantum::kernels;
using Amp = sampan::kernels::ComplexElement<double>;
using C = std::complex<double>;
using IntList = std::vector<int64_t>;

namespace {

qk::MeasuredQubits measured(int n, const std::vector<int>& q, bool dm) {
  qk::MeasuredQubits mq;
  mq.n = n;
  mq.m = static_cast<int>(q.size());
  mq.density_matrix = dm;
  for (int j = 0; j < mq.m; ++j) {
    mq.q[j] = q[static_cast<size_t>(j)];
    mq.mask |= uint64_t(1) << q[static_cast<size_t>(j)];
  }
  return mq;
}

Tensor complex_tensor(const std::vector<C>& v, const Shape& shape) {
  Tensor t = Tensor::empty(shape, DType::Complex128);
  std::memcpy(t.raw_data(), v.data(), v.size() * sizeof(C));
  return t;
}

// p[b] through the element functions with `parts` parts per outcome.
std::vector<double> marginal_by_parts(const Tensor& state, const qk::MeasuredQubits& mq, uint64_t parts) {
  const Amp* a = static_cast<const Amp*>(state.raw_data());
  std::vector<double> p(size_t(1) << mq.m);
  for (uint64_t b = 0; b < p.size(); ++b) {
    double s = 0.0;
    for (uint64_t part = 0; part < parts; ++part) s += qk::marginal_part(a, mq, b, part, parts);
    p[b] = s;
  }
  return p;
}

}  // namespace

TEST(QuantumMeasurementElements, EachOutcomesBasisStatesAreEnumeratedInIncreasingOrder) {
  const qk::MeasuredQubits mq = measured(6, {4, 1, 3}, false);
  for (uint64_t b = 0; b < 8; ++b) {
    std::vector<uint64_t> want;
    for (uint64_t i = 0; i < 64; ++i)
      if (qk::outcome_bits(i, mq) == b) want.push_back(i);
    ASSERT_EQ(want.size(), 8u);
    for (uint64_t k = 0; k < 8; ++k) EXPECT_EQ(qk::index_with_outcome(b, k, mq), want[k]) << b << " " << k;
  }
}

TEST(QuantumMeasurementElements, TheLargeMarginalsPartitionIsFixedAndCoversEveryTerm) {
  EXPECT_EQ(qk::marginal_parts(15, 0), 1u);   // 2^15 terms: one part, the CPU's order
  EXPECT_EQ(qk::marginal_parts(20, 1), 128u);  // 2^19 terms in parts of 2^12
  EXPECT_EQ(qk::marginal_parts(30, 10), 64u);  // capped: 2^16 parts over the 2^10 outcomes
  EXPECT_EQ(qk::marginal_parts(40, 20), 1u);
  // Parts of a ones-weight state count their terms: they cover all 2^(n-m), once each.
  const int n = 17;
  std::vector<C> ones(size_t(1) << n, C(1.0, 0.0));
  const Tensor s = complex_tensor(ones, {int64_t(1) << n});
  const qk::MeasuredQubits mq = measured(n, {5}, false);
  const uint64_t parts = qk::marginal_parts(n, 1);
  ASSERT_GT(parts, 1u);
  double total = 0.0;
  for (uint64_t part = 0; part < parts; ++part) {
    const double terms = qk::marginal_part(static_cast<const Amp*>(s.raw_data()), mq, 1, part, parts);
    EXPECT_GE(terms, 4096.0) << part;
    total += terms;
  }
  EXPECT_EQ(total, double(uint64_t(1) << (n - 1)));
}

TEST(QuantumMeasurementElements, ProbabilitiesAndTheirGradientsMatchTheCpuOps) {
  const int n = 5;
  for (bool dm : {false, true}) {
    SCOPED_TRACE(dm ? "density matrix" : "state vector");
    const std::vector<C> psi = quantum::test::random_state(n, 11);
    const int64_t N = int64_t(1) << n;
    std::vector<C> rho(size_t(N * N));
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < N; ++j) rho[size_t(i * N + j)] = psi[size_t(i)] * std::conj(psi[size_t(j)]);
    const Tensor state = dm ? complex_tensor(rho, {N, N}) : complex_tensor(psi, {N});
    for (const std::vector<int>& q : std::vector<std::vector<int>>{{0, 1, 2, 3, 4}, {3, 0}, {2}}) {
      const qk::MeasuredQubits mq = measured(n, q, dm);
      const Tensor want = call_op("quantum::probabilities", {state, IntList(q.begin(), q.end())})[0];
      for (uint64_t parts : {uint64_t(1), uint64_t(2)}) {  // one part: the GPU's order here; two: a split sum
        const std::vector<double> got = marginal_by_parts(state, mq, parts);
        for (size_t b = 0; b < got.size(); ++b) {
          if (dm && parts == 1) EXPECT_EQ(got[b], want.data<double>()[b]) << b;
          else EXPECT_NEAR(got[b], want.data<double>()[b], 1e-15) << b;
        }
      }
      std::vector<double> w(size_t(1) << q.size());
      for (size_t b = 0; b < w.size(); ++b) w[b] = 0.3 * double(b) - 0.7;
      const Tensor wt = from_vector(w, {int64_t(w.size())});
      const Tensor grad = call_op("quantum::probabilities_vjp", {state, wt, IntList(q.begin(), q.end())})[0];
      const Amp* a = static_cast<const Amp*>(state.raw_data());
      const Amp* g = static_cast<const Amp*>(grad.raw_data());
      for (int64_t e = 0; e < state.numel(); ++e) {
        const Amp v = qk::probabilities_vjp_at(a, w.data(), mq, uint64_t(e));
        EXPECT_TRUE(v.re == g[e].re && v.im == g[e].im) << e;
      }
    }
  }
}

TEST(QuantumMeasurementElements, MeasureAsOpsOverTheMaskIsTheCpuKernel) {
  const int n = 4;
  const std::vector<C> psi = quantum::test::random_state(n, 13);
  const int64_t N = int64_t(1) << n;
  std::vector<C> rho(static_cast<size_t>(N * N)), g_rho(static_cast<size_t>(N * N)), g_psi(static_cast<size_t>(N));
  for (int64_t i = 0; i < N; ++i) {
    g_psi[size_t(i)] = C(0.1 * double(i) - 0.4, 0.05 * double(i % 3));
    for (int64_t j = 0; j < N; ++j) {
      rho[size_t(i * N + j)] = psi[size_t(i)] * std::conj(psi[size_t(j)]);
      g_rho[size_t(i * N + j)] = C(0.02 * double(i - j), 0.01 * double(i + j));
    }
  }
  const std::vector<int> q = {2, 0};
  const IntList qubits(q.begin(), q.end()), outcome = {1, 0};
  for (bool dm : {false, true}) {
    SCOPED_TRACE(dm ? "density matrix" : "state vector");
    const Tensor state = dm ? complex_tensor(rho, {N, N}) : complex_tensor(psi, {N});
    const Tensor g_state = dm ? complex_tensor(g_rho, {N, N}) : complex_tensor(g_psi, {N});
    const qk::MeasuredQubits mq = measured(n, q, dm);
    Tensor m = Tensor::empty({N}, DType::Float64);
    for (int64_t i = 0; i < N; ++i) m.data<double>()[i] = qk::outcome_mask_at(mq, 1, uint64_t(i));  // q2 = 1, q0 = 0
    const auto want = call_op("quantum::measure", {state, qubits, outcome});
    const auto [post, prob] = quantum::detail::measure_by_ops(state, m);
    EXPECT_NEAR(prob.item(), want[1].item(), 1e-15);
    EXPECT_LE(amax(abs(sub(post, want[0]))).item(), 1e-14);
    const Tensor gp = from_vector({0.7}, {});
    const Tensor want_grad = call_op("quantum::measure_vjp", {state, g_state, gp, qubits, outcome})[0];
    EXPECT_LE(amax(abs(sub(quantum::detail::measure_vjp_by_ops(state, g_state, gp, m), want_grad))).item(), 1e-13);
  }
}
