// Shot branching (run_measured_circuit, sampan/quantum/distributed.h) in one process: counts of
// OpenQASM programs with `if` on measure and reset against distributions derived by hand (Born
// rule and post-measurement states, in the comments), with a chi-square bound at a p-value of
// about 1e-6; seeded reproducibility; errors for circuits it cannot run. The MPI twin (same counts
// over 2 and 4 ranks) is tests/cpp/quantum_mpi; the Python twin tests/python/test_quantum_shots.py.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "sampan/error.h"
#include "sampan/quantum/distributed.h"
#include "sampan/quantum/qasm.h"

using namespace sampan;
using namespace sampan::quantum;

namespace {

const std::string kHead = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";

MeasuredRun run(const QasmProgram& p, int64_t shots, uint64_t seed) {
  int64_t n_clbits = 0;
  for (const auto& [name, size] : p.cregs) n_clbits += size;
  return run_measured_circuit(p.circuit.n_qubits(), p.circuit.encoding(), {}, p.circuit.constants(), n_clbits,
                              p.measurements, p.mid_measurements, p.conditions, shots, seed, 0, false);
}

// Chi-square of counts against probabilities {bits: p} (keys: character b = classical bit b);
// counts outside the support fail at once.
double chi_square(const MeasuredRun& r, const std::map<std::string, double>& probs, int64_t shots) {
  double chi2 = 0;
  std::map<std::string, int64_t> counts(r.register_counts.begin(), r.register_counts.end());
  for (const auto& [bits, n] : counts) EXPECT_GT(probs.count(bits) ? probs.at(bits) : 0.0, 0.0) << bits;
  for (const auto& [bits, p] : probs) {
    const double e = p * static_cast<double>(shots);
    const double n = counts.count(bits) ? static_cast<double>(counts[bits]) : 0.0;
    chi2 += (n - e) * (n - e) / e;
  }
  return chi2;
}

}  // namespace

TEST(QuantumShotBranching, ConditionalResetFollowsTheBornRule) {
  // q1 copies q0 = RY(theta)|0> (CNOT); c = q0, 1 with a = sin^2(theta/2). Where c == 1, q1 = |1> is
  // reset to |0>; RY(phi) then gives d = 1 with s = sin^2(phi/2) in both branches. Bits "c d".
  const double theta = 2.1, phi = 1.3, a = std::pow(std::sin(theta / 2), 2), s = std::pow(std::sin(phi / 2), 2);
  const QasmProgram p = parse_qasm(kHead + "qreg q[2];\ncreg c[1];\ncreg d[1];\nry(2.1) q[0];\ncx q[0], q[1];\n"
                                   "measure q[0] -> c[0];\nif (c==1) reset q[1];\nry(1.3) q[1];\nmeasure q[1] -> d[0];\n");
  const int64_t shots = 20000;
  const MeasuredRun r = run(p, shots, 5);
  const std::map<std::string, double> probs = {
      {"00", (1 - a) * (1 - s)}, {"01", (1 - a) * s}, {"10", a * (1 - s)}, {"11", a * s}};
  EXPECT_LT(chi_square(r, probs, shots), 32.0);  // 3 degrees of freedom: P(chi2 > 32) ~ 5e-7
  // Without the reset, the c == 1 branch gives d = 1 with 1 - s: far outside the bound.
  const QasmProgram q = parse_qasm(kHead + "qreg q[2];\ncreg c[1];\ncreg d[1];\nry(2.1) q[0];\ncx q[0], q[1];\n"
                                   "measure q[0] -> c[0];\nif (c==0) reset q[1];\nry(1.3) q[1];\nmeasure q[1] -> d[0];\n");
  EXPECT_GT(chi_square(run(q, shots, 5), probs, shots), 1000.0);
  EXPECT_EQ(run(p, shots, 5).register_counts, r.register_counts);  // seeded
  // Two final branches: c = 0 and c = 1; the reset's outcome is certain (q1 = |1> where c = 1).
  EXPECT_EQ(r.branches, 2);
}

TEST(QuantumShotBranching, ConditionalMeasureAndPerInstanceConditions) {
  // c = 0: q1 unmeasured, RY(-phi) RY(phi) = I: d = 00. c = 1: d0 = 1 with s, then d1 = 1 with s
  // from |0> and 1 - s from |1>. Bits "c d0 d1".
  const double s = std::pow(std::sin(0.65), 2);
  const QasmProgram p = parse_qasm(kHead + "qreg q[2];\ncreg c[1];\ncreg d[2];\nh q[0];\nmeasure q[0] -> c[0];\n"
                                   "ry(1.3) q[1];\nif (c==1) measure q[1] -> d[0];\nry(-1.3) q[1];\nmeasure q[1] -> d[1];\n");
  const int64_t shots = 20000;
  const std::map<std::string, double> probs = {{"000", 0.5}, {"100", 0.5 * (1 - s) * (1 - s)},
                                               {"101", 0.5 * (1 - s) * s}, {"110", 0.5 * s * s},
                                               {"111", 0.5 * s * (1 - s)}};
  EXPECT_LT(chi_square(run(p, shots, 9), probs, shots), 33.0);  // 4 degrees of freedom: ~1e-6
  // `if (c==0) measure q -> c;` reads c per instance (Qiskit): q[0] = 1 makes c != 0, so q[1] is not
  // measured: always c = 01 (bit 0 = 1).
  const MeasuredRun r = run(parse_qasm(kHead + "qreg q[2];\ncreg c[2];\nx q;\nif (c==0) measure q -> c;\n"), 100, 1);
  EXPECT_EQ(r.register_counts, (std::vector<std::pair<std::string, int64_t>>{{"10", 100}}));
  EXPECT_EQ(r.branches, 1);
}

TEST(QuantumShotBranching, RefusesWhatAStateVectorCannotRun) {
  Circuit c(1);
  c.h(0);
  c.depolarizing(0.1, 0);
  try {
    run_measured_circuit(1, c.encoding(), {}, c.constants(), 0, {}, {}, {}, 10, 0, 0, false);
    FAIL() << "a noise channel must be refused";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("gate 1 is the noise channel DEPOLARIZING"), std::string::npos) << e.what();
  }
  Circuit h(1);
  h.h(0);
  EXPECT_THROW(run_measured_circuit(1, h.encoding(), {}, h.constants(), 1, {}, {{0, 0, {0}}}, {}, 10, 0, 0, false),
               ValueError);  // gate 0 is not a measurement channel
  EXPECT_THROW(run_measured_circuit(1, h.encoding(), {}, h.constants(), 1, {{0, 1}}, {}, {}, 10, 0, 0, false),
               ValueError);  // classical bit 1 of 1
  EXPECT_THROW(run_measured_circuit(1, h.encoding(), {}, h.constants(), 1, {}, {}, {{0, 2, 0, 1, 0}}, 10, 0, 0, false),
               ValueError);  // a condition past the last gate
}
