// Cache-blocked execution (quantum/src/cache_blocking.cpp) with tiny forced blocks: on random
// circuits of every gate kind (1-, 2- and 3-target dense, controls below and above the block,
// diagonal, parametrised, 3-qubit gates, targets on more qubits than a block holds) the state
// equals the unblocked simulator's to 1e-12, from |0...0> (free first swaps, block-0-only first
// stage) and from a random state (every swap and permutation pass for real); the logical qubit
// order comes back; the swap-pass kernel against an explicit permutation; the layered benchmark
// circuit in few passes; the adjoint gradient unchanged.
#include <gtest/gtest.h>

#include <random>

#include "cache_blocking.h"
#include "fusion.h"
#include "gate_apply.h"
#include "kernels/qubit_swap.h"
#include "quantum/quantum_test_util.h"
#include "quantum/random_circuit.h"
#include "sampan/error.h"
#include "sampan/quantum/circuit.h"

using namespace sampan::quantum;
using namespace sampan::quantum::test;

namespace {

// Restores the switches a test changed.
struct Switches {
  bool fusion = fusion_enabled(), blocking = cache_blocking_enabled();
  int block = set_cache_block_qubits(0);
  ~Switches() {
    set_fusion_enabled(fusion);
    set_cache_blocking_enabled(blocking);
    set_cache_block_qubits(block);
  }
};

// random_circuit plus 3-target UNITARY gates (0 or 1 control) mixed in.
RandomCircuit random_circuit_with_3q(int n, int n_gates, uint64_t seed) {
  RandomCircuit c = random_circuit(n, n_gates, seed);
  std::mt19937_64 rng(seed ^ 0x5eed);
  for (int g = 0; g < 4; ++g) {
    std::vector<int> qs(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) qs[static_cast<size_t>(i)] = i;
    std::shuffle(qs.begin(), qs.end(), rng);
    Mat u = {1};
    int d = 1;
    for (int j = 0; j < 3; ++j) {
      // A random 2x2 unitary: a rotation with phases.
      const double t = 0.3 + j, p = 0.7 * j, l = -0.4 * (j + g);
      Mat m = {std::cos(t / 2), -std::polar(1.0, l) * std::sin(t / 2), std::polar(1.0, p) * std::sin(t / 2),
               std::polar(1.0, p + l) * std::cos(t / 2)};
      u = kron(m, 2, u, d);
      d *= 2;
    }
    const int nc = n >= 4 ? g % 2 : 0;
    const int64_t offset = static_cast<int64_t>(c.constants.size());
    for (const C& x : u) c.constants.insert(c.constants.end(), {x.real(), x.imag()});
    std::vector<int64_t> gate = {kUnitary, nc, 3};
    for (int j = 0; j < nc + 3; ++j) gate.push_back(qs[static_cast<size_t>(j)]);
    gate.push_back(offset);
    c.enc.insert(c.enc.begin(), gate.begin(), gate.end());  // at the front: the first stage sees them
    c.enc.insert(c.enc.end(), gate.begin(), gate.end());
  }
  return c;
}

std::vector<Gate> decode(const RandomCircuit& c, int n) {
  return decode_circuit(c.enc, static_cast<int64_t>(c.params.size()), c.constants, n, "cache_blocking_test");
}

// The circuit applied to `state` gate by gate, unfused and unblocked: the reference.
std::vector<C> reference(const RandomCircuit& c, int n, std::vector<C> state) {
  for (const Gate& g : decode(c, n)) apply(state.data(), n, g, resolve(g, c.params.data(), c.constants), false);
  return state;
}

std::vector<C> simulated(const RandomCircuit& c, int n) {
  std::vector<C> out(size_t(1) << n);
  simulate(c.params.data(), decode(c, n), c.constants, n, out.data());
  return out;
}

RandomCircuit layered(int n, int layers) {
  RandomCircuit c;
  for (int l = 0; l < layers; ++l) {
    for (int q = 0; q < n; ++q) {
      c.enc.insert(c.enc.end(), {kRY, q, static_cast<int64_t>(c.params.size())});
      c.params.push_back(0.1 + 0.013 * static_cast<double>(c.params.size()));
    }
    for (int q = 0; q + 1 < n; ++q) c.enc.insert(c.enc.end(), {kCNOT, q, q + 1});
  }
  return c;
}

}  // namespace

TEST(QuantumCacheBlocking, RandomCircuitsFromZeroEqualTheUnblockedState) {
  Switches keep;
  for (int fusion : {0, 1}) {
    set_fusion_enabled(fusion);
    for (int b : {2, 3, 4}) {
      for (int n : {b + 1, b + 3, 8}) {
        if (n <= b) continue;
        for (uint64_t seed = 0; seed < 4; ++seed) {
          const RandomCircuit c = random_circuit_with_3q(n, 50, 100 * n + 10 * b + seed);
          set_cache_blocking_enabled(false);
          const auto want = simulated(c, n);
          set_cache_blocking_enabled(true);
          set_cache_block_qubits(b);
          ASSERT_TRUE(use_cache_blocking(n));
          const auto got = simulated(c, n);
          EXPECT_LT(max_diff(got, want), 1e-12) << "fusion=" << fusion << " b=" << b << " n=" << n << " seed=" << seed;
        }
      }
    }
  }
}

TEST(QuantumCacheBlocking, RandomCircuitsFromARandomStateEqualTheReference) {
  for (int fusion_max : {0, 1, 2}) {
    for (int b : {2, 3, 5}) {
      for (int n : {b + 1, b + 2, 9}) {
        if (n <= b) continue;
        for (uint64_t seed = 0; seed < 3; ++seed) {
          const RandomCircuit c = random_circuit_with_3q(n, 60, 7000 + 100 * n + 10 * b + seed);
          const auto start = random_state(n, seed + 17);
          const auto want = reference(c, n, start);
          auto got = start;
          const auto gates = decode(c, n);
          const BlockedPlanSummary s =
              apply_blocked(got.data(), n, gates, c.params.data(), c.constants, fusion_max, b, /*zero_state=*/false);
          EXPECT_LT(max_diff(got, want), 1e-12)
              << "fusion_max=" << fusion_max << " b=" << b << " n=" << n << " seed=" << seed;
          EXPECT_GE(s.blocked_stages, 1);
          // 3-target gates cannot be blocked when the block holds 2 qubits.
          if (b == 2) EXPECT_GT(s.global_units, 0);
        }
      }
    }
  }
}

TEST(QuantumCacheBlocking, HighQubitGatesSwapInAndTheQubitOrderComesBack) {
  // X on every qubit of a random subset, then H-H pairs (identity) on the high qubits: the result
  // is the basis state whose bits are the subset, exactly, only if the map is undone.
  const int n = 9, b = 3;
  for (uint64_t mask : {uint64_t(0x1), uint64_t(0x100), uint64_t(0x155), uint64_t(0x1f0)}) {
    RandomCircuit c;
    for (int q = 0; q < n; ++q)
      if (mask >> q & 1) c.enc.insert(c.enc.end(), {kX, q});
    for (int q = b; q < n; ++q) c.enc.insert(c.enc.end(), {kH, q, kH, q});
    std::vector<C> a(size_t(1) << n);
    a[0] = 1;
    const BlockedPlanSummary s = apply_blocked(a.data(), n, decode(c, n), nullptr, {}, 0, b, /*zero_state=*/false);
    EXPECT_GT(s.swap_passes, 0) << "mask " << mask;
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(std::abs(a[i]), i == mask ? 1.0 : 0.0, 1e-12) << i;
  }
}

TEST(QuantumCacheBlocking, SwapPassKernelIsTheQubitExchange) {
  for (int n : {5, 7, 9}) {
    for (int b : {2, 3, n - 2}) {
      for (int k = 1; k <= std::min(b, n - b); ++k) {
        // high[i]: k distinct positions >= b, shuffled.
        std::vector<int> high;
        for (int h = b; h < n; ++h) high.push_back(h);
        std::mt19937_64 rng(static_cast<uint64_t>(100 * n + 10 * b + k));
        std::shuffle(high.begin(), high.end(), rng);
        high.resize(static_cast<size_t>(k));
        const auto start = random_state(n, static_cast<uint64_t>(n * b * k));
        auto got = start;
        kernels::swap_top_qubits(got.data(), n, b, high);
        for (uint64_t x = 0; x < start.size(); ++x) {
          uint64_t y = x;
          for (int i = 0; i < k; ++i) {
            const int l = b - k + i, h = high[static_cast<size_t>(i)];
            const uint64_t bl = x >> l & 1, bh = x >> h & 1;
            y = (y & ~((uint64_t(1) << l) | (uint64_t(1) << h))) | (bh << l) | (bl << h);
          }
          ASSERT_EQ(got[y], start[x]) << "n=" << n << " b=" << b << " k=" << k << " x=" << x;
        }
      }
    }
  }
}

TEST(QuantumCacheBlocking, LayeredCircuitRunsInFewPasses) {
  // The benchmark's shape (5 layers of RY + CNOT ladder) at n = b + 10 like 25 qubits with b = 15:
  // the first stage takes the triangle of gates below b, one swap brings the ten high qubits
  // down, the second stage takes the rest, one swap and one local pass undo the map.
  // The benchmark's shape: 5 layers of RY + CNOT ladder, ten high qubits (25 qubits, b = 15).
  // The first stage takes the triangle of gates on qubits below b, one swap brings the high
  // qubits down, the second stage takes the rest; one swap pass and one local pass undo the map.
  // The plan depends on n - b and the layer count; 16 qubits with b = 11 keep b >= n - b + 5 as
  // 25 with b = 15 do, on a state that fits a test.
  const int n = 16, b = 11;
  const RandomCircuit c16 = layered(n, 5);
  const auto gates = decode(c16, n);
  for (int fusion_max : {0, 2}) {
    std::vector<C> a(size_t(1) << n), want(size_t(1) << n);
    a[0] = want[0] = 1;
    want = reference(c16, n, want);
    const BlockedPlanSummary s = apply_blocked(a.data(), n, gates, c16.params.data(), {}, fusion_max, b, true);
    EXPECT_LT(max_diff(a, want), 1e-12) << "fusion_max " << fusion_max;
    EXPECT_EQ(s.global_units, 0);
    EXPECT_EQ(s.blocked_stages, 3) << "two stages and the final local permutation";
    EXPECT_EQ(s.swap_passes, 2) << "one swap in, one back";
  }
}

TEST(QuantumCacheBlocking, AdjointGradientIsUnchanged) {
  Switches keep;
  const int n = 7;
  const RandomCircuit c = random_circuit(n, 40, 4242);
  const auto gates = decode(c, n);
  std::vector<PauliTerm> h(2);
  h[0].zmask = 0b1000001, h[0].coeff = 0.7;
  h[1].xmask = 0b0110000, h[1].zmask = 0b0010000, h[1].n_y = 1, h[1].coeff = -0.3;
  std::vector<double> g0(c.params.size()), g1(c.params.size());
  set_cache_blocking_enabled(false);
  adjoint_gradient(c.params.data(), static_cast<int64_t>(c.params.size()), gates, c.constants, h, n, g0.data());
  set_cache_blocking_enabled(true);
  set_cache_block_qubits(3);
  adjoint_gradient(c.params.data(), static_cast<int64_t>(c.params.size()), gates, c.constants, h, n, g1.data());
  for (size_t i = 0; i < g0.size(); ++i) EXPECT_NEAR(g1[i], g0[i], 1e-12) << i;
}

TEST(QuantumCacheBlocking, SwitchesAndBlockSize) {
  Switches keep;
  set_cache_blocking_enabled(false);
  EXPECT_FALSE(cache_blocking_enabled());
  EXPECT_FALSE(use_cache_blocking(40));
  set_cache_blocking_enabled(true);
  const int before = cache_block_qubits();
  EXPECT_EQ(set_cache_block_qubits(5), before);
  EXPECT_EQ(cache_block_qubits(), 5);
  EXPECT_FALSE(use_cache_blocking(5)) << "a state of one block keeps the unblocked path";
  EXPECT_TRUE(use_cache_blocking(6));
  EXPECT_THROW(set_cache_block_qubits(1), sampan::ValueError);
  EXPECT_THROW(set_cache_block_qubits(31), sampan::ValueError);
  EXPECT_EQ(set_cache_block_qubits(0), 5);
}
