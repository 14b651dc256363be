// Gate fusion (quantum/src/fusion.cpp): the fused schedule gives the unfused state to 1e-12 on
// random circuits over the whole gate set (controls, 3-qubit gates that must stay unfused,
// matrix gates), and it does fuse: the layered rotation + CNOT-ladder circuit of the benchmark
// needs about one pass per qubit and layer instead of two.
#include <gtest/gtest.h>

#include <random>

#include "fusion.h"
#include "quantum/quantum_test_util.h"
#include "sampan/quantum/circuit.h"

using namespace sampan::quantum;
using namespace sampan::quantum::test;

namespace {

struct RandomCircuit {
  std::vector<int64_t> enc;
  std::vector<double> params, constants;
};

// A random circuit of `n_gates` gates of every opcode on random distinct qubits.
RandomCircuit random_circuit(int n, int n_gates, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(-3.0, 3.0);
  RandomCircuit c;
  for (int g = 0; g < n_gates; ++g) {
    const int64_t op = static_cast<int64_t>(rng() % (kNumOpcodes + 1));  // +1: a controlled 2-qubit UNITARY
    std::vector<int> qs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) qs[static_cast<size_t>(i)] = i;
    std::shuffle(qs.begin(), qs.end(), rng);
    if (op >= kUnitary) {
      // [UNITARY, n_controls, k, controls..., targets..., offset] with a Kronecker product of
      // k random 2x2 unitaries (Gram-Schmidt of Gaussian columns).
      const int nc = static_cast<int>(rng() % 2), k = 1 + static_cast<int>(rng() % 2);
      const int64_t offset = static_cast<int64_t>(c.constants.size());
      Mat u = {1};
      int d = 1;
      for (int j = 0; j < k; ++j) {
        Mat m = random_matrix(2, rng());
        const double n0 = std::sqrt(std::norm(m[0]) + std::norm(m[2]));
        m[0] /= n0, m[2] /= n0;
        const C p = std::conj(m[0]) * m[1] + std::conj(m[2]) * m[3];
        m[1] -= p * m[0], m[3] -= p * m[2];
        const double n1 = std::sqrt(std::norm(m[1]) + std::norm(m[3]));
        m[1] /= n1, m[3] /= n1;
        u = kron(m, 2, u, d);
        d *= 2;
      }
      for (const C& x : u) c.constants.insert(c.constants.end(), {x.real(), x.imag()});
      c.enc.insert(c.enc.end(), {kUnitary, nc, k});
      for (int j = 0; j < nc + k; ++j) c.enc.push_back(qs[static_cast<size_t>(j)]);
      c.enc.push_back(offset);
      continue;
    }
    const GateInfo& info = gate_info(op);
    c.enc.push_back(op);
    for (int j = 0; j < info.n_qubits; ++j) c.enc.push_back(qs[static_cast<size_t>(j)]);
    for (int j = 0; j < info.n_params; ++j) {
      c.enc.push_back(static_cast<int64_t>(c.params.size()));
      c.params.push_back(angle(rng));
    }
  }
  return c;
}

std::vector<C> run(const RandomCircuit& c, int n, bool fused) {
  const bool previous = set_fusion_enabled(fused);
  auto gates = decode_circuit(c.enc, static_cast<int64_t>(c.params.size()), c.constants, n, "fusion_test");
  std::vector<C> out(size_t(1) << n);
  simulate(c.params.data(), gates, c.constants, n, out.data());
  set_fusion_enabled(previous);
  return out;
}

}  // namespace

TEST(QuantumFusion, FusedEqualsUnfusedOnRandomCircuits) {
  for (int n : {2, 3, 5, 8}) {
    for (uint64_t seed = 0; seed < 6; ++seed) {
      const RandomCircuit c = random_circuit(n < 3 ? 3 : n, 60, 1000 * n + seed);
      const int nn = n < 3 ? 3 : n;
      const auto a = run(c, nn, true), b = run(c, nn, false);
      EXPECT_LT(max_diff(a, b), 1e-12) << "n=" << nn << " seed=" << seed;
      double norm = 0;
      for (const C& x : a) norm += std::norm(x);
      EXPECT_NEAR(norm, 1.0, 1e-12);
    }
  }
}

TEST(QuantumFusion, LayeredRotationCnotCircuitFusesToAboutOnePassPerQubitAndLayer) {
  const int n = 10, layers = 4;
  std::vector<int64_t> enc;
  std::vector<double> params;
  for (int l = 0; l < layers; ++l) {
    for (int q = 0; q < n; ++q) {
      enc.insert(enc.end(), {kRY, q, static_cast<int64_t>(params.size())});
      params.push_back(0.1 + 0.07 * static_cast<double>(params.size()));
    }
    for (int q = 0; q + 1 < n; ++q) enc.insert(enc.end(), {kCNOT, q, q + 1});
  }
  auto gates = decode_circuit(enc, static_cast<int64_t>(params.size()), {}, n, "fusion_test");
  const auto blocks = fuse_gates(gates, params.data(), {}, 2);
  size_t members = 0;
  for (const auto& b : blocks) {
    EXPECT_LE(b.qubits.size(), 2u);
    members += b.members.size();
  }
  EXPECT_EQ(members, gates.size());  // every gate in exactly one block
  // Unfused: layers * (2n - 1) = 76 passes. Fused: about layers * n.
  EXPECT_LE(blocks.size(), static_cast<size_t>(layers * n + 1)) << "only " << gates.size() << " -> " << blocks.size();
  RandomCircuit c{enc, params, {}};
  EXPECT_LT(max_diff(run(c, n, true), run(c, n, false)), 1e-12);
}

TEST(QuantumFusion, SwitchTogglesAndGatesOnThreeQubitsStayAlone) {
  const bool previous = set_fusion_enabled(false);
  EXPECT_FALSE(fusion_enabled());
  set_fusion_enabled(true);
  EXPECT_TRUE(fusion_enabled());
  set_fusion_enabled(previous);
  // H(0) CCX(0,1,2) H(0): the Toffoli cannot join a 2-qubit block, so nothing may move across it.
  const std::vector<int64_t> enc = {kH, 0, kCCX, 0, 1, 2, kH, 0, kX, 1, kH, 1};
  auto gates = decode_circuit(enc, 0, {}, 3, "fusion_test");
  const auto blocks = fuse_gates(gates, nullptr, {}, 2);
  ASSERT_EQ(blocks.size(), 4u);  // {H0}, {CCX}, {H0}, {X1, H1}
  EXPECT_EQ(blocks[0].members, std::vector<size_t>({0}));
  EXPECT_EQ(blocks[1].members, std::vector<size_t>({1}));
  EXPECT_EQ(blocks[2].members, std::vector<size_t>({2}));
  EXPECT_EQ(blocks[3].members, std::vector<size_t>({3, 4}));
}
