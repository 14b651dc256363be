// The MPI-distributed state vector (quantum/src/distributed) under mpirun -n 2 and -n 4 (ctest
// quantum_mpi_n2 / quantum_mpi_n4): on random circuits over the whole gate set, fused and
// unfused, with messages of a few amplitudes (so the chunked exchange runs many rounds), the
// gathered state equals the single-process simulate() to 1e-12, <H> with X/Y/Z on rank-selecting
// qubits equals the single-process expectation, and the sampled shots equal those of a one-rank
// run with the same seed; random OpenQASM programs with mid-circuit measurements, resets and
// `if` on gates, measure and reset give the same register counts and final-state counts by shot
// branching (run_measured_circuit) over all ranks as in one process. Also run without mpirun (one
// rank) by the same executable.
#include <gtest/gtest.h>
#include <mpi.h>

#include <random>

#include "distributed/comm.h"
#include "distributed/distributed_state.h"
#include "fusion.h"
#include "quantum/quantum_test_util.h"
#include "quantum/random_circuit.h"
#include "sampan/error.h"
#include "sampan/quantum/distributed.h"
#include "sampan/quantum/qasm.h"

using namespace sampan;
using namespace sampan::quantum;
using namespace sampan::quantum::test;

namespace {

// A random Hamiltonian: `terms` Pauli strings with random codes on every qubit.
void random_hamiltonian(int n, int terms, uint64_t seed, std::vector<int64_t>& paulis, std::vector<double>& coeffs) {
  std::mt19937_64 rng(seed);
  paulis.clear();
  coeffs.clear();
  for (int t = 0; t < terms; ++t) {
    for (int q = 0; q < n; ++q) paulis.push_back(static_cast<int64_t>(rng() % 4));
    coeffs.push_back(static_cast<double>(rng() % 1000) / 500.0 - 1.0);
  }
  // One all-X string: every prefix qubit flipped (the exchange with rank ^ all bits).
  for (int q = 0; q < n; ++q) paulis.push_back(1);
  coeffs.push_back(0.7);
}

int world_rank_() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

}  // namespace

TEST(QuantumDistributed, RandomCircuitsEqualSingleProcess) {
  const int rank = world_rank_();
  for (int n : {5, 7}) {
    for (uint64_t seed = 0; seed < 3; ++seed) {
      for (bool fusion : {false, true}) {
        const bool previous = set_fusion_enabled(fusion);
        const RandomCircuit c = random_circuit(n, 50, 77 * n + seed);
        std::vector<int64_t> paulis;
        std::vector<double> coeffs;
        random_hamiltonian(n, 6, seed, paulis, coeffs);
        const DistributedRun run = run_circuit(n, c.enc, c.params, c.constants, paulis, coeffs, 500, 11 + seed, true, 4);
        ASSERT_TRUE(run.has_expectation);
        if (rank == 0) {
          const auto gates = decode_circuit(c.enc, static_cast<int64_t>(c.params.size()), c.constants, n, "test");
          std::vector<C> ref(size_t(1) << n);
          set_fusion_enabled(false);  // the reference: unfused, one process
          simulate(c.params.data(), gates, c.constants, n, ref.data());
          ASSERT_EQ(run.state.size(), ref.size());
          EXPECT_LT(max_diff(run.state, ref), 1e-12) << "n=" << n << " seed=" << seed << " fusion=" << fusion;
          const double e = expectation_value(ref.data(), decode_hamiltonian(paulis, coeffs, n, "test"), n);
          EXPECT_NEAR(run.expectation, e, 1e-12) << "n=" << n << " seed=" << seed;
          // The same shots as one rank holding the whole state.
          distributed::Comm self(MPI_COMM_SELF);
          distributed::DistributedState one(n, self, 4);
          one.apply_circuit(gates, c.params.data(), c.constants);
          EXPECT_EQ(run.counts, one.sample(500, 11 + seed)) << "n=" << n << " seed=" << seed;
          int64_t total = 0;
          for (const auto& [index, count] : run.counts) {
            EXPECT_GT(std::norm(ref[index]), 0.0);
            total += count;
          }
          EXPECT_EQ(total, 500);
        }
        set_fusion_enabled(previous);
      }
    }
  }
}

namespace {

// A random OpenQASM 2.0 program on n qubits (two qregs, so the rank-selecting qubits are r[..])
// with gates, mid-circuit measurements, resets and `if` on gates, measure and reset.
std::string random_measured_program(int n, int statements, uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int nq = n - 2;
  auto qubit = [&](int i) { return i < nq ? "q[" + std::to_string(i) + "]" : "r[" + std::to_string(i - nq) + "]"; };
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
  auto angle = [&] { return std::to_string(static_cast<double>(rng() % 6000) / 1000.0 - 3.0); };
  std::string text = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[" + std::to_string(nq) + "];\nqreg r[2];\n" +
                     "creg a[2];\ncreg b[" + std::to_string(n) + "];\n";
  for (int i = 0; i < n; ++i) text += "h " + qubit(i) + ";\n";
  for (int s = 0; s < statements; ++s) {
    std::string stmt;
    const int kind = pick(10);
    const int x = pick(n);
    int y = pick(n - 1);
    if (y >= x) ++y;
    if (kind < 5) {
      const std::string gates[] = {"rx(" + angle() + ") " + qubit(x), "u3(" + angle() + "," + angle() + "," + angle() + ") " + qubit(x),
                                   "cx " + qubit(x) + "," + qubit(y), "crz(" + angle() + ") " + qubit(x) + "," + qubit(y),
                                   "swap " + qubit(x) + "," + qubit(y)};
      stmt = gates[pick(5)] + ";";
    } else if (kind < 7) {
      stmt = "measure " + qubit(x) + " -> a[" + std::to_string(pick(2)) + "];";
    } else if (kind < 8) {
      stmt = "reset " + qubit(x) + ";";
    } else {
      stmt = pick(2) ? "measure " + qubit(x) + " -> b[" + std::to_string(pick(n)) + "];" : "reset " + qubit(x) + ";";
      if (pick(2)) stmt = "ry(" + angle() + ") " + qubit(x) + ";";
      stmt = "if (a==" + std::to_string(pick(4)) + ") " + stmt;
    }
    text += stmt + "\n";
  }
  for (int i = 0; i < n; ++i) text += "measure " + qubit(i) + " -> b[" + std::to_string(i) + "];\n";
  return text;
}

}  // namespace

TEST(QuantumDistributed, MeasuredProgramsGiveTheCountsOfOneProcess) {
  const int rank = world_rank_();
  int64_t most_branches = 0;
  for (int n : {5, 6}) {
    for (uint64_t seed = 0; seed < 4; ++seed) {
      const std::string text = random_measured_program(n, 30, 31 * n + seed);
      const QasmProgram p = parse_qasm(text);
      ASSERT_FALSE(p.mid_measurements.empty()) << text;
      const std::vector<double> no_params;
      int64_t n_clbits = 0;
      for (const auto& [name, size] : p.cregs) n_clbits += size;
      const MeasuredRun run = run_measured_circuit(n, p.circuit.encoding(), no_params, p.circuit.constants(), n_clbits,
                                                   p.measurements, p.mid_measurements, p.conditions, 3000, 17 + seed, 4);
      most_branches = std::max(most_branches, run.branches);
      if (rank == 0) {
        // One rank holding the whole state, without MPI (Comm::single): the same counts.
        const MeasuredRun one = run_measured_circuit(n, p.circuit.encoding(), no_params, p.circuit.constants(), n_clbits,
                                                     p.measurements, p.mid_measurements, p.conditions, 3000, 17 + seed,
                                                     0, false);
        EXPECT_EQ(run.register_counts, one.register_counts) << text;
        EXPECT_EQ(run.counts, one.counts) << text;
        EXPECT_EQ(run.branches, one.branches);
        int64_t total = 0;
        for (const auto& [bits, count] : run.register_counts) {
          EXPECT_EQ(bits.size(), static_cast<size_t>(n_clbits));
          total += count;
        }
        EXPECT_EQ(total, 3000);
      }
    }
  }
  EXPECT_GT(most_branches, 8);  // the programs really branch
}

TEST(QuantumDistributed, ErrorsOnEveryRank) {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  // A qubit index out of range: the decode error, on every rank (no rank left waiting).
  EXPECT_THROW(run_circuit(3, {0, 5}, {}, {}, {}, {}, 0, 0, false), IndexError);
  if (size >= 2) {
    try {
      run_circuit(1, {0, 0}, {}, {}, {}, {}, 0, 0, false);
      FAIL() << "1 qubit over " << size << " ranks must be refused";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("ranks"), std::string::npos) << e.what();
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  if (world_rank_() != 0) {  // one report, from rank 0
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int rc = RUN_ALL_TESTS();
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
