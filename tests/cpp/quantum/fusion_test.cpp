// Gate fusion (quantum/src/fusion.cpp): the fused schedule gives the unfused state to 1e-12 on
// random circuits over the whole gate set (controls, 3-qubit gates that must stay unfused,
// matrix gates), and it does fuse: the layered rotation + CNOT-ladder circuit of the benchmark
// needs about one pass per qubit and layer instead of two.
#include <gtest/gtest.h>

#include <random>

#include "fusion.h"
#include "quantum/quantum_test_util.h"
#include "quantum/random_circuit.h"
#include "sampan/quantum/circuit.h"

using namespace sampan::quantum;
using namespace sampan::quantum::test;

namespace {

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
