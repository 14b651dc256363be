// Observables on states: probabilities (GHZ and Bell values, marginals, qubit order), partial
// measurement with post-selection (Bell collapse, pure and mixed agree), seeded sampling
// (reproducible, frequencies within 5 sigma of the probabilities), and gradients through
// circuit -> state -> probabilities / measurement against finite differences.
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/autograd.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"

using namespace sampan;
using namespace sampan::quantum;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;
using C = std::complex<double>;

namespace {

Tensor state(const IntList& circuit, const FloatList& params, int64_t n, bool dm, const FloatList& constants = {}) {
  const Tensor p = from_vector(params, {int64_t(params.size())});
  return call_op(dm ? "quantum::density_matrix" : "quantum::statevector", {p, circuit, constants, n})[0];
}
std::vector<double> doubles(const Tensor& t) {
  const Tensor c = t.contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

}  // namespace

TEST(QuantumMeasurement, ProbabilitiesOfGhzAndMarginals) {
  const IntList ghz = {kH, 0, kCNOT, 0, 1, kCNOT, 1, 2, kX, 2};  // (|011> + |100>)/sqrt 2 after X on qubit 2
  for (bool dm : {false, true}) {
    const Tensor s = state(ghz, {}, 3, dm);
    auto p = doubles(call_op("quantum::probabilities", {s, IntList{}})[0]);
    ASSERT_EQ(p.size(), 8u);
    // index = q0 + 2 q1 + 4 q2: |q2 q1 q0> = |100> -> 4 (q0 = q1 = 0), |011> -> 3.
    for (size_t i = 0; i < 8; ++i) EXPECT_NEAR(p[i], (i == 3 || i == 4) ? 0.5 : 0.0, 1e-14) << i;
    // Outcome order follows the qubit list: qubits [2, 0] -> b = q2 + 2 q0.
    p = doubles(call_op("quantum::probabilities", {s, IntList{2, 0}})[0]);
    EXPECT_NEAR(p[1], 0.5, 1e-14);  // q2 = 1, q0 = 0
    EXPECT_NEAR(p[2], 0.5, 1e-14);  // q2 = 0, q0 = 1
    EXPECT_NEAR(p[0] + p[3], 0.0, 1e-14);
  }
}

TEST(QuantumMeasurement, BellCollapseAndNoisyProbability) {
  const IntList bell = {kH, 0, kCNOT, 0, 1};
  for (bool dm : {false, true}) {
    auto r = call_op("quantum::measure", {state(bell, {}, 2, dm), IntList{0}, IntList{1}});
    EXPECT_NEAR(r[1].item(), 0.5, 1e-14);
    const Tensor post = r[0].contiguous();
    const C* a = post.data<C>();
    // The partner collapses: |11> (index 3).
    if (dm) EXPECT_NEAR(std::abs(a[3 * 4 + 3] - C(1)), 0.0, 1e-14);
    else EXPECT_NEAR(std::abs(a[3]), 1.0, 1e-14);
  }
  // Bit flip p on qubit 1 of the Bell state: P(q0 != q1) = p.
  const double p = 0.2;
  const Tensor rho = state({kH, 0, kCNOT, 0, 1, kBitFlip, 1, -1}, {}, 2, true, {p});
  auto probs = doubles(call_op("quantum::probabilities", {rho, IntList{}})[0]);
  EXPECT_NEAR(probs[1] + probs[2], p, 1e-14);
  EXPECT_THROW(call_op("quantum::measure", {state({kX, 0}, {}, 1, false), IntList{0}, IntList{0}}), ValueError);
  EXPECT_THROW(call_op("quantum::measure", {state(bell, {}, 2, false), IntList{0}, IntList{2}}), ValueError);
  EXPECT_THROW(call_op("quantum::probabilities", {state(bell, {}, 2, false), IntList{0, 0}}), ValueError);
}

TEST(QuantumMeasurement, SeededSamplingIsReproducibleAndFollowsProbabilities) {
  const IntList circ = {kRY, 0, 0, kRY, 1, 1, kCNOT, 0, 2};
  const Tensor s = state(circ, {1.1, 2.3}, 3, false);
  const auto p = doubles(call_op("quantum::probabilities", {s, IntList{}})[0]);
  const int64_t shots = 20000;
  const Tensor a = call_op("quantum::sample", {s, IntList{}, shots, int64_t(42), int64_t(0)})[0];
  const Tensor b = call_op("quantum::sample", {s, IntList{}, shots, int64_t(42), int64_t(0)})[0];
  const Tensor c = call_op("quantum::sample", {s, IntList{}, shots, int64_t(42), int64_t(1)})[0];
  ASSERT_EQ(a.dtype(), DType::Int64);
  std::vector<double> freq(8, 0.0);
  int same = 0, differ = 0;
  for (int64_t i = 0; i < shots; ++i) {
    freq[static_cast<size_t>(a.data<int64_t>()[i])] += 1.0 / shots;
    same += a.data<int64_t>()[i] == b.data<int64_t>()[i];
    differ += a.data<int64_t>()[i] != c.data<int64_t>()[i];
  }
  EXPECT_EQ(same, shots);
  EXPECT_GT(differ, shots / 10);
  for (size_t k = 0; k < 8; ++k) {
    const double sigma = std::sqrt(p[k] * (1 - p[k]) / shots);
    EXPECT_NEAR(freq[k], p[k], 5 * sigma + 1e-12) << "outcome " << k;
    if (p[k] < 1e-15) EXPECT_EQ(freq[k], 0.0) << "an impossible outcome was sampled";
  }
}

TEST(QuantumMeasurement, GradientsFlowFromProbabilitiesAndMeasurementToParameters) {
  // L(theta) through circuit -> state -> probabilities / measure, against finite differences.
  const IntList circ = {kRY, 0, 0, kRX, 1, 1, kCNOT, 0, 1, kRZ, 1, 2, kH, 1, kAmplitudeDamping, 0, -1};
  const FloatList consts = {0.3};
  const FloatList theta = {0.7, -1.2, 0.4};
  const FloatList w = {0.5, -1.0, 2.0, 0.25};
  for (bool dm : {false, true}) {
    IntList c = circ;
    if (!dm) c.resize(c.size() - 3);  // no channel for the state-vector path
    auto loss = [&](const Tensor& params) {
      Tensor s = call_op(dm ? "quantum::density_matrix" : "quantum::statevector", {params, c, consts, int64_t(2)})[0];
      Tensor pr = call_op("quantum::probabilities", {s, IntList{}})[0];
      auto m = call_op("quantum::measure", {s, IntList{1}, IntList{1}});
      Tensor post_pr = call_op("quantum::probabilities", {m[0], IntList{0}})[0];
      // sum w p + 3 P(q1 = 1) + 1.5 P(q0 = 1 | q1 = 1)
      return add(add(sum(mul(pr, from_vector(w, {4}))), mul(m[1], from_vector({3.0}, {}))),
                 mul(sum(mul(post_pr, from_vector({0.0, 1.5}, {2}))), from_vector({1.0}, {})));
    };
    Tensor params = from_vector(theta, {3});
    params.requires_grad_(true);
    const auto g = sampan::grad({loss(params)}, {params})[0];
    for (size_t i = 0; i < theta.size(); ++i) {
      FloatList plus = theta, minus = theta;
      plus[i] += 1e-6;
      minus[i] -= 1e-6;
      const double fd = (loss(from_vector(plus, {3})).item() - loss(from_vector(minus, {3})).item()) / 2e-6;
      EXPECT_NEAR(g.data<double>()[i], fd, 1e-7) << (dm ? "density matrix" : "state vector") << ", parameter " << i;
    }
  }
}
