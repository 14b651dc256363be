// Density matrices and noise channels: noiseless circuits against |psi><psi| of the state-vector
// simulator, every named channel against Paddle Quantum's Kraus operators (written out here
// independently), analytic channel physics (amplitude-damping populations, depolarizing Bloch
// shrinking, T1/T2 relaxation), trace preservation on random noisy circuits, and the errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "quantum/quantum_test_util.h"
#include "sampan/error.h"
#include "sampan/ops.h"
#include "sampan/autograd.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/circuit_builder.h"
#include "sampan/quantum/circuit.h"
#include "sampan/quantum/density_matrix.h"

using namespace sampan;
using namespace sampan::quantum;
using namespace sampan::quantum::test;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

namespace {

const C I(0, 1);

struct Encoded {
  IntList circuit;
  FloatList params, constants;
};

// A random circuit over every parametric and fixed gate (not UNITARY), optionally with a random
// named channel after every third gate.
Encoded random_circuit(int n, int n_gates, uint64_t seed, bool channels) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-3, 3), prob(0.05, 0.3);
  Encoded e;
  for (int i = 0; i < 6; ++i) e.params.push_back(u(rng));
  const int64_t ops[] = {kH, kX, kY, kZ, kS, kSdg, kT, kTdg, kP, kRX, kRY, kRZ, kU3, kCNOT, kCY, kCZ, kSWAP,
                         kCP, kCRX, kCRY, kCRZ, kRXX, kRYY, kRZZ, kCCX, kCU, kMS, kCSWAP};
  auto distinct = [&](int k) {
    std::vector<int64_t> q(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) q[static_cast<size_t>(i)] = i;
    std::shuffle(q.begin(), q.end(), rng);
    q.resize(static_cast<size_t>(k));
    return q;
  };
  for (int i = 0; i < n_gates; ++i) {
    int64_t op = ops[rng() % (sizeof(ops) / sizeof(ops[0]))];
    while (gate_info(op).n_qubits > n) op = ops[rng() % (sizeof(ops) / sizeof(ops[0]))];
    const GateInfo& info = gate_info(op);
    e.circuit.push_back(op);
    for (auto q : distinct(info.n_qubits)) e.circuit.push_back(q);
    for (int j = 0; j < info.n_params; ++j) e.circuit.push_back(static_cast<int64_t>(rng() % e.params.size()));
    if (channels && i % 3 == 2) {
      const int64_t ch = kBitFlip + static_cast<int64_t>(rng() % 10);  // the ten one-qubit named channels
      const ChannelInfo& ci = channel_info(ch);
      e.circuit.push_back(ch);
      e.circuit.push_back(static_cast<int64_t>(rng() % static_cast<uint64_t>(n)));
      for (int j = 0; j < ci.n_params; ++j) {
        double v = prob(rng);
        if (ch == kThermalRelaxation) v = j == 0 ? 2.0 : j == 1 ? 1.5 : 0.4;  // T1, T2 <= 2 T1, t
        e.constants.push_back(v);
        e.circuit.push_back(-static_cast<int64_t>(e.constants.size()));
      }
    }
  }
  return e;
}

std::vector<C> run_dm(const Encoded& e, int n) {
  auto gates = decode_circuit(e.circuit, static_cast<int64_t>(e.params.size()), e.constants, n, "test", true);
  std::vector<C> rho(size_t(1) << (2 * n));
  simulate_density_matrix(e.params.data(), gates, e.constants, n, rho.data());
  return rho;
}

// rho of one qubit after `prep` (a U3 with angles a) and then one channel given by its encoding.
std::vector<C> one_qubit(const FloatList& u3, const IntList& channel, const FloatList& constants) {
  Encoded e;
  e.params = u3;
  e.circuit = {kU3, 0, 0, 1, 2};
  e.circuit.insert(e.circuit.end(), channel.begin(), channel.end());
  e.constants = constants;
  return run_dm(e, 1);
}

// Bloch vector (<X>, <Y>, <Z>) of a one-qubit rho [rho00, rho01, rho10, rho11].
std::array<double, 3> bloch(const std::vector<C>& r) {
  return {2 * r[1].real(), -2 * r[1].imag(), (r[0] - r[3]).real()};
}

Mat scaled(Mat m, double s) {
  for (auto& x : m) x *= s;
  return m;
}

}  // namespace

TEST(DensityMatrix, NoiselessCircuitEqualsProjectorOfStateVector) {
  for (int n : {1, 2, 3, 4}) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const Encoded e = random_circuit(n, 30, seed * 31 + static_cast<uint64_t>(n), false);
      auto gates = decode_circuit(e.circuit, static_cast<int64_t>(e.params.size()), e.constants, n, "test");
      std::vector<C> psi(size_t(1) << n);
      simulate(e.params.data(), gates, e.constants, n, psi.data());
      const auto rho = run_dm(e, n);
      const size_t N = psi.size();
      double diff = 0;
      for (size_t r = 0; r < N; ++r)
        for (size_t c = 0; c < N; ++c) diff = std::max(diff, std::abs(rho[r * N + c] - psi[r] * std::conj(psi[c])));
      EXPECT_LT(diff, 1e-12) << "n = " << n << ", seed = " << seed;
    }
  }
}

TEST(DensityMatrix, NamedChannelsMatchPaddleQuantumKrausOperators) {
  // Kraus operators as printed in Paddle Quantum's channel.representation documentation.
  const double p = 0.23, g = 0.37;
  const Mat Id = {1, 0, 0, 1}, X = {0, 1, 1, 0}, Y = {0, -I, I, 0}, Z = {1, 0, 0, -1};
  const double sp = std::sqrt(p), sq = std::sqrt(1 - p), sg = std::sqrt(g), sh = std::sqrt(1 - g);
  struct Case {
    int64_t op;
    FloatList values;
    std::vector<Mat> kraus;
  };
  const double px = 0.1, py = 0.2, pz = 0.15, p0 = 0.3, p1 = 0.25;
  const std::vector<Case> cases = {
      {kBitFlip, {p}, {scaled(Id, sq), scaled(X, sp)}},
      {kPhaseFlip, {p}, {scaled(Id, sq), scaled(Z, sp)}},
      {kBitPhaseFlip, {p}, {scaled(Id, sq), scaled(Y, sp)}},
      {kAmplitudeDamping, {g}, {{1, 0, 0, sh}, {0, sg, 0, 0}}},
      {kGeneralizedAmplitudeDamping, {g, p},
       {scaled({1, 0, 0, sh}, sp), scaled({0, sg, 0, 0}, sp), scaled({sh, 0, 0, 1}, sq), scaled({0, 0, sg, 0}, sq)}},
      {kPhaseDamping, {g}, {{1, 0, 0, sh}, {0, 0, 0, sg}}},
      {kDepolarizing, {p},
       {scaled(Id, std::sqrt(1 - 3 * p / 4)), scaled(X, std::sqrt(p / 4)), scaled(Y, std::sqrt(p / 4)),
        scaled(Z, std::sqrt(p / 4))}},
      {kPauliChannel, {px, py, pz},
       {scaled(Id, std::sqrt(1 - px - py - pz)), scaled(X, std::sqrt(px)), scaled(Y, std::sqrt(py)),
        scaled(Z, std::sqrt(pz))}},
      {kReset, {p0, p1},
       {{std::sqrt(p0), 0, 0, 0}, {0, std::sqrt(p0), 0, 0}, {0, 0, std::sqrt(p1), 0}, {0, 0, 0, std::sqrt(p1)},
        scaled(Id, std::sqrt(1 - p0 - p1))}},
      {kGeneralizedDepolarizing, {p},
       {scaled(Id, std::sqrt(1 - 3 * p / 4)), scaled(X, std::sqrt(p / 4)), scaled(Y, std::sqrt(p / 4)),
        scaled(Z, std::sqrt(p / 4))}},
  };
  for (const auto& cs : cases) {
    Gate gte{cs.op, {0}, {}};
    FloatList constants = cs.values;
    for (size_t j = 0; j < cs.values.size(); ++j) gte.slots.push_back(-static_cast<int64_t>(j) - 1);
    const auto s = channel_superop(gte, nullptr, constants);
    const auto want = kraus_to_superop(cs.kraus, 1);
    EXPECT_LT(max_diff(s, want), 1e-14) << channel_info(cs.op).name;
    EXPECT_LT(trace_preservation_error(s, 1), 1e-14) << channel_info(cs.op).name;
  }
}

TEST(DensityMatrix, AmplitudeDampingPopulationsAndCoherence) {
  // |1> decays to |0> with probability gamma: rho11 = 1 - gamma (Nielsen & Chuang eq. 8.108).
  const double gamma = 0.3;
  auto r = one_qubit({M_PI, 0, 0}, {kAmplitudeDamping, 0, -1}, {gamma});
  EXPECT_NEAR(r[3].real(), 1 - gamma, 1e-14);
  EXPECT_NEAR(r[0].real(), gamma, 1e-14);
  // |+>: coherence scales by sqrt(1 - gamma), populations become (1 + gamma)/2, (1 - gamma)/2.
  r = one_qubit({M_PI / 2, 0, 0}, {kAmplitudeDamping, 0, -1}, {gamma});
  EXPECT_NEAR(r[1].real(), 0.5 * std::sqrt(1 - gamma), 1e-14);
  EXPECT_NEAR(r[0].real(), (1 + gamma) / 2, 1e-14);
}

TEST(DensityMatrix, DepolarizingShrinksBlochVectorByOneMinusP) {
  const double p = 0.35;
  const FloatList u3 = {1.1, 0.7, -0.4};
  const auto before = bloch(one_qubit(u3, {}, {}));
  for (IntList ch : {IntList{kDepolarizing, 0, -1}, IntList{kGeneralizedDepolarizing, 1, 0, -1}}) {
    const auto after = bloch(one_qubit(u3, ch, {p}));
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(after[a], (1 - p) * before[a], 1e-14) << "axis " << a;
  }
  // Pauli channel: <X> scales by 1 - 2(py + pz), <Y> by 1 - 2(px + pz), <Z> by 1 - 2(px + py).
  const double px = 0.1, py = 0.05, pz = 0.2;
  const auto after = bloch(one_qubit(u3, {kPauliChannel, 0, -1, -2, -3}, {px, py, pz}));
  EXPECT_NEAR(after[0], (1 - 2 * (py + pz)) * before[0], 1e-14);
  EXPECT_NEAR(after[1], (1 - 2 * (px + pz)) * before[1], 1e-14);
  EXPECT_NEAR(after[2], (1 - 2 * (px + py)) * before[2], 1e-14);
}

TEST(DensityMatrix, ThermalRelaxationT1AndT2) {
  // Zero-temperature relaxation: P(1) = e^{-t/T1} from |1>, <X> = e^{-t/T2} from |+>.
  const double T1 = 50, T2 = 30, t = 12;
  auto r = one_qubit({M_PI, 0, 0}, {kThermalRelaxation, 0, -1, -2, -3}, {T1, T2, t});
  EXPECT_NEAR(r[3].real(), std::exp(-t / T1), 1e-14);
  r = one_qubit({M_PI / 2, 0, 0}, {kThermalRelaxation, 0, -1, -2, -3}, {T1, T2, t});
  EXPECT_NEAR(bloch(r)[0], std::exp(-t / T2), 1e-14);
  // Phase damping: coherence sqrt(1 - gamma), populations untouched.
  r = one_qubit({M_PI / 2, 0, 0}, {kPhaseDamping, 0, -1}, {0.4});
  EXPECT_NEAR(bloch(r)[0], std::sqrt(0.6), 1e-14);
  EXPECT_NEAR(r[0].real(), 0.5, 1e-14);
}

TEST(DensityMatrix, TwoQubitGeneralizedDepolarizingAndMatrixChannels) {
  // Bell state, then 2-qubit depolarizing: (1 - p) Phi+ + p I/4 (the isotropic state).
  const double p = 0.4;
  Encoded e;
  e.circuit = {kH, 0, kCNOT, 0, 1, kGeneralizedDepolarizing, 2, 0, 1, -1};
  e.constants = {p};
  const auto rho = run_dm(e, 2);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const double bell = ((r == 0 || r == 3) && (c == 0 || c == 3)) ? 0.5 : 0.0;
      EXPECT_NEAR(std::abs(rho[static_cast<size_t>(4 * r + c)] - C((1 - p) * bell + (r == c ? p / 4 : 0.0))), 0, 1e-14);
    }
  // KRAUS, CHOI and MIXED_UNITARY encodings of channels against the named ones.
  const double gamma = 0.3, sh = std::sqrt(1 - gamma), sg = std::sqrt(gamma);
  const Mat K0 = {1, 0, 0, sh}, K1 = {0, sg, 0, 0};
  FloatList consts;
  for (const Mat& K : {K0, K1})
    for (C x : K) { consts.push_back(x.real()); consts.push_back(x.imag()); }
  // Choi J = sum_ij |i><j| (x) E(|i><j|) built from the Kraus operators.
  const Mat s = kraus_to_superop({K0, K1}, 1);
  Mat J(16);
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 2; ++c)
      for (int r1 = 0; r1 < 2; ++r1)
        for (int c1 = 0; c1 < 2; ++c1) J[static_cast<size_t>((r * 2 + r1) * 4 + c * 2 + c1)] = s[static_cast<size_t>((c1 + 2 * r1) * 4 + c + 2 * r)];
  const int64_t choi_off = static_cast<int64_t>(consts.size());
  for (C x : J) { consts.push_back(x.real()); consts.push_back(x.imag()); }
  const FloatList u3 = {1.1, 0.7, -0.4};
  const auto named = one_qubit(u3, {kAmplitudeDamping, 0, -static_cast<int64_t>(consts.size()) - 1},
                               [&] { auto c = consts; c.push_back(gamma); return c; }());
  EXPECT_LT(max_diff(one_qubit(u3, {kKraus, 1, 2, 0, 0}, consts), named), 1e-14);
  EXPECT_LT(max_diff(one_qubit(u3, {kChoi, 1, 0, choi_off}, consts), named), 1e-14);
  // Mixed unitary (1-p) I + p Z equals the phase flip.
  const FloatList mu = {0.8, 0.2, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, -1, 0, 0.2};
  EXPECT_LT(max_diff(one_qubit(u3, {kMixedUnitary, 1, 2, 0, 0}, mu), one_qubit(u3, {kPhaseFlip, 0, -19}, mu)), 1e-14);
}

TEST(DensityMatrix, RandomNoisyCircuitsStayStates) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    const int n = 3;
    const Encoded e = random_circuit(n, 24, seed, true);
    const auto rho = run_dm(e, n);
    const size_t N = size_t(1) << n;
    double tr = 0, herm = 0, min_diag = 1, purity = 0;
    for (size_t r = 0; r < N; ++r) {
      tr += rho[r * N + r].real();
      min_diag = std::min(min_diag, rho[r * N + r].real());
      for (size_t c = 0; c < N; ++c) {
        herm = std::max(herm, std::abs(rho[r * N + c] - std::conj(rho[c * N + r])));
        purity += std::norm(rho[r * N + c]);
      }
    }
    EXPECT_NEAR(tr, 1, 1e-12) << "seed " << seed;
    EXPECT_LT(herm, 1e-13);
    EXPECT_GE(min_diag, -1e-14);
    EXPECT_LT(purity, 1 - 1e-3) << "the channels must have mixed the state";
  }
}

TEST(DensityMatrix, ClassMatchesCircuitAndComplex64) {
  const double gamma = 0.25;
  for (DType dt : {DType::Complex128, DType::Complex64}) {
    DensityMatrix rho(2, dt);
    const double h = M_SQRT1_2;
    rho.apply_matrix({0}, {h, h, h, -h});
    rho.apply_matrix({1}, {0, 1, 1, 0}, {0});  // CNOT 0 -> 1: Bell state
    rho.apply_kraus({1}, {{1, 0, 0, std::sqrt(1 - gamma)}, {0, std::sqrt(gamma), 0, 0}});
    EXPECT_NEAR(rho.trace(), 1, dt == DType::Complex64 ? 1e-6 : 1e-14);
    // <Z0 Z1> of the damped Bell state: (1 - gamma) + gamma * (-1)... from |11> half decays to |10>.
    const double zz = rho.expectation({3, 3}, {1.0});
    EXPECT_NEAR(zz, 0.5 + 0.5 * ((1 - gamma) - gamma), dt == DType::Complex64 ? 1e-6 : 1e-14);
  }
  EXPECT_THROW(DensityMatrix(2).apply_kraus({0}, {{1, 0, 0, 1}, {0, 0.1, 0, 0}}), ValueError);
}

TEST(DensityMatrix, Errors) {
  auto message = [](auto f) {
    try { f(); } catch (const std::exception& ex) { return std::string(ex.what()); }
    return std::string("no error");
  };
  // Not trace preserving: 1.0 * I plus a second operator.
  FloatList bad = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0.1, 0, 0, 0, 0, 0};
  auto m = message([&] { decode_circuit({kKraus, 1, 2, 0, 0}, 0, bad, 1, "test", true); });
  EXPECT_NE(m.find("not trace preserving"), std::string::npos) << m;
  EXPECT_NE(m.find("KRAUS"), std::string::npos) << m;
  // Choi with a negative eigenvalue (J = diag(1, 0, 0, -1)... made TP: diag(1, 0, 0, 1) - 2|03><03|-ish).
  FloatList choi(32, 0.0);
  choi[2 * 0] = 1; choi[2 * 5] = 0; choi[2 * 10] = 0; choi[2 * 15] = 1;  // diag(1, 0, 0, 1): TP
  choi[2 * 3] = 2; choi[2 * 12] = 2;                                    // |00><11| coherence 2 > 1
  m = message([&] { decode_circuit({kChoi, 1, 0, 0}, 0, choi, 1, "test", true); });
  EXPECT_NE(m.find("not positive semidefinite"), std::string::npos) << m;
  // Mixed unitary whose probabilities do not sum to 1, and a non-unitary member.
  FloatList mu = {0.5, 0.4, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, -1, 0};
  m = message([&] { decode_circuit({kMixedUnitary, 1, 2, 0, 0}, 0, mu, 1, "test", true); });
  EXPECT_NE(m.find("sum to 1"), std::string::npos) << m;
  // Parameters out of range: named, with constant and with params-read values.
  m = message([&] { decode_circuit({kBitFlip, 0, -1}, 0, {1.5}, 1, "test", true); });
  EXPECT_NE(m.find("BIT_FLIP"), std::string::npos) << m;
  EXPECT_NE(m.find("[0, 1]"), std::string::npos) << m;
  m = message([&] { decode_circuit({kThermalRelaxation, 0, -1, -2, -3}, 0, {1.0, 3.0, 0.1}, 1, "test", true); });
  EXPECT_NE(m.find("T2 must be <= 2 T1"), std::string::npos) << m;
  std::vector<C> rho(4);
  auto gates = decode_circuit({kPauliChannel, 0, 0, 1, 2}, 3, {}, 1, "test", true);
  const FloatList params = {0.5, 0.4, 0.3};
  m = message([&] { simulate_density_matrix(params.data(), gates, {}, 1, rho.data()); });
  EXPECT_NE(m.find("px + py + pz must be <= 1"), std::string::npos) << m;
  // The state-vector path refuses channels.
  m = message([&] { decode_circuit({kH, 0, kDepolarizing, 0, -1}, 0, {0.1}, 1, "quantum::expectation"); });
  EXPECT_NE(m.find("gate 1 is the noise channel DEPOLARIZING"), std::string::npos) << m;
  // Memory: the error states the bytes before allocating.
  m = message([] { DensityMatrix big(27); });
  EXPECT_NE(m.find("bytes"), std::string::npos) << m;
  // Qubit range in a channel.
  m = message([&] { decode_circuit({kAmplitudeDamping, 3, -1}, 0, {0.1}, 2, "test", true); });
  EXPECT_NE(m.find("qubit 3 is out of range"), std::string::npos) << m;
}

TEST(DensityMatrix, CircuitBuilderChannels) {
  // The C++ builder's channels give the same rho as the raw encoding, validate when added, and
  // trainable channel parameters are differentiated.
  Circuit c(2);
  const Param g = c.new_param();
  c.h(0).cnot(0, 1).amplitude_damping(g, 1).depolarizing(0.1, 0).pauli_channel(0.05, 0.1, 0.02, 1);
  c.generalized_depolarizing(0.2, {0, 1}).kraus({{1, 0, 0, std::sqrt(0.7)}, {0, std::sqrt(0.3), 0, 0}}, {0});
  c.mixed_unitary({{1, 0, 0, 1}, {1, 0, 0, -1}}, {0.9, 0.1}, {1}).thermal_relaxation(2.0, 1.5, 0.3, 0);
  Encoded e;
  e.params = {0.35};
  e.circuit = c.encoding();
  e.constants = c.constants();
  const auto want = run_dm(e, 2);
  const Tensor rho = c.density_matrix(from_vector(e.params, {1})).contiguous();
  EXPECT_LT(max_diff(std::vector<C>(rho.data<C>(), rho.data<C>() + 16), want), 1e-15);
  EXPECT_EQ(c.size(), 9);
  Tensor p = from_vector({0.35}, {1});
  p.requires_grad_(true);
  Tensor en = c.dm_expectation(p, {3, 3}, {1.0});
  auto grad = sampan::grad({en}, {p});
  const double h = 1e-6;
  const double fd = (c.dm_expectation(from_vector({0.35 + h}, {1}), {3, 3}, {1.0}).item() -
                     c.dm_expectation(from_vector({0.35 - h}, {1}), {3, 3}, {1.0}).item()) / (2 * h);
  EXPECT_NEAR(grad[0].item(), fd, 1e-8);
  EXPECT_THROW(c.kraus({{1, 0, 0, 1}, {0, 0.5, 0, 0}}, {0}), ValueError);
  EXPECT_THROW(c.bit_flip(1.2, 0), ValueError);
  EXPECT_THROW(c.depolarizing(0.1, 5), IndexError);
  EXPECT_EQ(c.size(), 9);  // a refused channel leaves the circuit unchanged
  EXPECT_THROW(c.state(from_vector(e.params, {1})), ValueError);
}
