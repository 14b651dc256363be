// OpenQASM 2.0 for the C++ builder (sampan/quantum/qasm.h): qelib1.inc gates against closed forms
// (the OpenQASM 2.0 paper's definitions, arXiv:1707.03429, with Qiskit's phases), nested gate
// definitions against their expansion by hand, registers and measurements, mid-circuit measurement
// and reset against the exact density matrix, export/import round trips (definitions map back to
// the native gates), and malformed programs (line and column). The Python twin is
// tests/python/test_quantum_qasm.py; Qiskit cross-checks are in bench/quantum/qasm_roundtrip.py.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>

#include "sampan/error.h"
#include "sampan/ops.h"
#include "sampan/quantum/qasm.h"
#include "../thrown_message.h"

using namespace sampan;
using sampan::test::thrown_message;
using namespace sampan::quantum;
using C = complex128;

namespace {

const std::string kHead = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n";

std::vector<C> state_of(const Circuit& c) {
  Tensor psi = c.state(from_vector(std::vector<double>{}, {0})).contiguous();
  const C* p = psi.data<C>();
  return std::vector<C>(p, p + (size_t(1) << c.n_qubits()));
}

// Column j of the unitary of one call on q[0..k-1]: the state after preparing |j> with X gates.
std::vector<C> column(const std::string& call, int k, int j) {
  std::string prep;
  for (int b = 0; b < k; ++b)
    if (j >> b & 1) prep += "x q[" + std::to_string(b) + "];\n";
  return state_of(parse_qasm(kHead + "qreg q[" + std::to_string(k) + "];\n" + prep + call + "\n").circuit);
}

C expi(double x) { return std::polar(1.0, x); }

}  // namespace

TEST(QuantumQasm, Qelib1GatesEqualTheirClosedForms) {
  const double t = 0.7, p = -1.3, l = 2.1, g = 0.4;
  const C u3[4] = {std::cos(t / 2), -expi(l) * std::sin(t / 2), expi(p) * std::sin(t / 2), expi(p + l) * std::cos(t / 2)};
  const C sx[4] = {C(0.5, 0.5), C(0.5, -0.5), C(0.5, -0.5), C(0.5, 0.5)};
  // One-qubit gates: column j of the matrix is the state of |j>.
  struct One { const char* call; C m[4]; };
  const double r = 1 / std::sqrt(2.0);
  const One ones[] = {
      {"u3(0.7,-1.3,2.1) q[0];", {u3[0], u3[1], u3[2], u3[3]}},
      {"u2(-1.3,2.1) q[0];", {r, -r * expi(l), r * expi(p), r * expi(p + l)}},
      {"p(2.1) q[0];", {1, 0, 0, expi(l)}},
      {"rz(2.1) q[0];", {expi(-l / 2), 0, 0, expi(l / 2)}},
      {"sx q[0];", {sx[0], sx[1], sx[2], sx[3]}},
      {"u0(2) q[0];", {1, 0, 0, 1}},
  };
  for (const One& o : ones)
    for (int j = 0; j < 2; ++j) {
      const auto col = column(o.call, 1, j);
      for (int i = 0; i < 2; ++i) EXPECT_NEAR(std::abs(col[i] - o.m[2 * i + j]), 0, 1e-12) << o.call << " " << i << j;
    }
  // Controlled gates (control q[0] = bit 0): identity unless bit 0 is set, then the 2x2 on bit 1.
  struct Ctrl { const char* call; C m[4]; };
  const Ctrl ctrls[] = {
      {"cu3(0.7,-1.3,2.1) q[0],q[1];", {u3[0], u3[1], u3[2], u3[3]}},
      {"cu(0.7,-1.3,2.1,0.4) q[0],q[1];", {expi(g) * u3[0], expi(g) * u3[1], expi(g) * u3[2], expi(g) * u3[3]}},
      {"csx q[0],q[1];", {sx[0], sx[1], sx[2], sx[3]}},
      {"ch q[0],q[1];", {r, r, r, -r}},
      {"crz(2.1) q[0],q[1];", {expi(-l / 2), 0, 0, expi(l / 2)}},
  };
  for (const Ctrl& c : ctrls)
    for (int j = 0; j < 4; ++j) {
      const auto col = column(c.call, 2, j);
      for (int i = 0; i < 4; ++i) {
        C want = i == j ? 1.0 : 0.0;
        if ((i & 1) && (j & 1)) want = c.m[2 * (i >> 1) + (j >> 1)];
        else if ((i & 1) != (j & 1)) want = 0;
        EXPECT_NEAR(std::abs(col[i] - want), 0, 1e-12) << c.call << " " << i << j;
      }
    }
  // c3sqrtx: SX on q[3] where q[0..2] are all 1.
  for (int j = 0; j < 16; ++j) {
    const auto col = column("c3sqrtx q[0],q[1],q[2],q[3];", 4, j);
    for (int i = 0; i < 16; ++i) {
      C want = i == j ? 1.0 : 0.0;
      if ((i & 7) == 7 && (j & 7) == 7) want = sx[2 * (i >> 3) + (j >> 3)];
      else if ((i & 7) != (j & 7) || (i >> 3) != (j >> 3)) want = 0;
      EXPECT_NEAR(std::abs(col[i] - want), 0, 1e-12) << i << " " << j;
    }
  }
}

TEST(QuantumQasm, NestedDefinitionsEqualTheirExpansionByHand) {
  const std::string text = kHead +
      "gate my_rot(a, b) x { rz(a) x; ry(-b/2 + a^2) x; }\n"
      "gate ent(theta) x, y { h x; cx x, y; my_rot(theta*2, sin(theta)) y; }\n"
      "qreg q[2];\nqreg r[1];\n"
      "ent(0.3) q[0], r[0];\nent(-pi/7) r[0], q[1];\n";
  const QasmProgram p = parse_qasm(text);
  Circuit ref(3);
  auto ent = [&](double t, int x, int y) {
    ref.h(x).cnot(x, y).rz(2 * t, y).ry(-std::sin(t) / 2 + 4 * t * t, y);
  };
  ent(0.3, 0, 2);
  ent(-M_PI / 7, 2, 1);
  EXPECT_EQ(p.circuit.encoding(), ref.encoding());
  const auto a = state_of(p.circuit), b = state_of(ref);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(std::abs(a[i] - b[i]), 0, 1e-14);
}

TEST(QuantumQasm, RegistersMeasurementsMidCircuitAndReset) {
  const QasmProgram p = parse_qasm(kHead +
      "qreg q[3];\ncreg m[1];\ncreg c[2];\nreset q;\nh q[0];\nmeasure q[0] -> m[0];\ncx q[0], q[1];\n"
      "x q[2];\nreset q[2];\nmeasure q[1] -> c[0];\nmeasure q[2] -> c[1];\n");
  ASSERT_EQ(p.cregs.size(), 2u);
  EXPECT_EQ(p.cregs[1], (std::pair<std::string, int64_t>("c", 2)));
  EXPECT_EQ(p.measurements, (std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 2}}));  // (qubit, clbit)
  ASSERT_EQ(p.mid_measurements.size(), 1u);
  EXPECT_EQ(p.mid_measurements[0].gate, 1);  // after h; the first reset (of |000>) is dropped
  EXPECT_EQ(p.mid_measurements[0].clbits, (std::vector<int64_t>{0}));
  // h, measure (dephasing), cx: (|000><000| + |011><011|)/2, no coherence; q[2] reset to |0>.
  const Tensor rho = p.circuit.density_matrix(from_vector(std::vector<double>{}, {0})).contiguous();
  const C* d = rho.data<C>();
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      EXPECT_NEAR(std::abs(d[8 * i + j] - C((i == j && (i == 0 || i == 3)) ? 0.5 : 0.0)), 0, 1e-14) << i << j;
  // Export writes the registers, the mid-circuit measurement in place and the reset; reading it back
  // gives the same circuit.
  const std::string text = to_qasm(p);
  EXPECT_NE(text.find("creg m[1];\ncreg c[2];"), std::string::npos) << text;
  EXPECT_NE(text.find("measure q[0] -> m[0];\ncx q[0],q[1];"), std::string::npos) << text;
  EXPECT_NE(text.find("reset q[2];"), std::string::npos) << text;
  const QasmProgram back = parse_qasm(text);
  EXPECT_EQ(back.circuit.encoding(), p.circuit.encoding());
  EXPECT_EQ(back.measurements, p.measurements);
}

TEST(QuantumQasm, ExportImportRoundTripKeepsNativeGatesAndStates) {
  Circuit c(5);
  const Param a = c.new_param();
  c.h(0).swap(0, 3).cswap(1, 2, 4).crx(a, 0, 1).cry(0.4, 2, 3).rxx(a, 1, 4).ryy(-0.8, 0, 2).rzz(1.3, 3, 4);
  c.ms(1, 2).cu(0.3, -0.2, 0.9, 4, 0).u3(a, 0.1, 0.2, 3).cp(0.7, 1, 0).ccx(0, 1, 2);
  const C sx[4] = {C(0.5, 0.5), C(0.5, -0.5), C(0.5, -0.5), C(0.5, 0.5)};
  c.unitary({sx[0], sx[1], sx[2], sx[3]}, {2}).unitary({0, 1, 1, 0}, {4}, {0, 1, 2, 3});
  const std::vector<double> params = {0.37};
  const std::string text = to_qasm(c, params);
  for (const char* name : {"gate swap", "gate cswap", "gate crx", "gate cry", "gate rxx", "gate ryy", "gate rzz",
                           "gate sx", "gate c4x"})
    EXPECT_NE(text.find(name), std::string::npos) << name;
  const QasmProgram back = parse_qasm(text);
  // Each exported definition is exact, so the importer maps it back to the native gate (MS reads
  // back as RXX(-pi/2)): the same gates with the trainable angle fixed at 0.37.
  Circuit fixed(5);
  fixed.h(0).swap(0, 3).cswap(1, 2, 4).crx(0.37, 0, 1).cry(0.4, 2, 3).rxx(0.37, 1, 4).ryy(-0.8, 0, 2).rzz(1.3, 3, 4);
  fixed.rxx(-M_PI / 2, 1, 2).cu(0.3, -0.2, 0.9, 4, 0).u3(0.37, 0.1, 0.2, 3).cp(0.7, 1, 0).ccx(0, 1, 2);
  fixed.unitary({sx[0], sx[1], sx[2], sx[3]}, {2}).unitary({0, 1, 1, 0}, {4}, {0, 1, 2, 3});
  EXPECT_EQ(back.circuit.encoding(), fixed.encoding());
  const auto x = state_of(back.circuit);
  Tensor psi = c.state(from_vector(params, {1})).contiguous();
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(std::abs(x[i] - psi.data<C>()[i]), 0, 1e-12);
  // A controlled 1-qubit matrix is written as cu(theta, phi, lam, gamma), exact with its phase.
  const C w = expi(0.3) / std::sqrt(2.0);
  Circuit m(2);
  m.h(0).h(1).unitary({w, w * expi(1.1), -w * expi(-0.4), w * expi(0.7)}, {1}, {0});
  const std::string mt = to_qasm(m);
  EXPECT_NE(mt.find("gate cu(theta,phi,lam,gamma)"), std::string::npos) << mt;
  const auto want = state_of(m), got = state_of(parse_qasm(mt).circuit);
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(std::abs(want[i] - got[i]), 0, 1e-12);
  EXPECT_NE(thrown_message([&] { to_qasm(c); }).find("reads params[0] but 0 parameter value(s)"), std::string::npos);
  Circuit noisy(1);
  noisy.h(0).depolarizing(0.1, 0);
  EXPECT_NE(thrown_message([&] { to_qasm(noisy); }).find("gate 1 (DEPOLARIZING) has no OpenQASM 2.0"), std::string::npos);
}

TEST(QuantumQasm, ClassicalControlIsRecordedAndWrittenBack) {
  // Teleportation's corrections: the measurements they read become mid-circuit first.
  const QasmProgram p = parse_qasm(kHead +
      "qreg q[3];\ncreg m0[1];\ncreg m1[1];\nh q[1];\ncx q[1], q[2];\ncx q[0], q[1];\nh q[0];\n"
      "measure q[0] -> m0[0];\nmeasure q[1] -> m1[0];\nif (m1==1) x q[2];\nif (m0==1) cz q[0], q[2];\n");
  ASSERT_EQ(p.conditions.size(), 2u);
  EXPECT_EQ(p.mid_measurements.size(), 2u);
  // gates: h cx cx h, KRAUS(q1) at 4, x at 5, KRAUS(q0) at 6 (cz touches the measured q0), cz at 7.
  EXPECT_EQ(p.mid_measurements[0].gate, 4);
  EXPECT_EQ(p.mid_measurements[1].gate, 6);
  EXPECT_EQ(p.conditions[0].gate_begin, 5);
  EXPECT_EQ(p.conditions[0].gate_end, 6);
  EXPECT_EQ(p.conditions[0].clbit_offset, 1);
  EXPECT_EQ(p.conditions[1].gate_begin, 7);
  EXPECT_EQ(p.conditions[1].value, 1);
  const std::string text = to_qasm(p);
  EXPECT_NE(text.find("measure q[1] -> m1[0];\nif(m1==1) x q[2];\nmeasure q[0] -> m0[0];\nif(m0==1) cz q[0],q[2];"),
            std::string::npos) << text;
  const QasmProgram back = parse_qasm(text);
  EXPECT_EQ(back.circuit.encoding(), p.circuit.encoding());
  EXPECT_EQ(back.conditions.size(), 2u);
}

TEST(QuantumQasm, ClassicallyControlledMeasureAndReset) {
  // if (creg == n) measure / reset: a mid-circuit measurement channel or a reset channel inside a
  // one-gate conditional range; the measurement read by the condition and a pending measurement
  // into the bit written under the condition are made before it.
  const QasmProgram p = parse_qasm(kHead +
      "qreg q[2];\ncreg c[1];\ncreg d[2];\nh q[0];\nh q[1];\nmeasure q[1] -> d[0];\nmeasure q[0] -> c[0];\n"
      "if (c==1) reset q[0];\nif (c==1) measure q[0] -> d[0];\nif (c==0) reset q[1];\nmeasure q[0] -> d[1];\n");
  // gates: h h, KRAUS(q0) at 2 (read by the first if), reset(q0) at 3, KRAUS(q1) at 4 (pending into
  // d[0], written under the next if), KRAUS(q0) at 5 (conditional), reset(q1) at 6 (conditional).
  ASSERT_EQ(p.mid_measurements.size(), 3u);
  EXPECT_EQ(p.mid_measurements[0].gate, 2);
  EXPECT_EQ(p.mid_measurements[1].gate, 4);
  EXPECT_EQ(p.mid_measurements[1].qubit, 1);
  EXPECT_EQ(p.mid_measurements[2].gate, 5);
  EXPECT_EQ(p.mid_measurements[2].clbits, (std::vector<int64_t>{1}));  // d[0] is classical bit 1
  ASSERT_EQ(p.conditions.size(), 3u);
  const std::vector<std::array<int64_t, 3>> ranges = {{3, 4, 1}, {5, 6, 1}, {6, 7, 0}};  // begin, end, value
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(p.conditions[k].gate_begin, ranges[k][0]) << k;
    EXPECT_EQ(p.conditions[k].gate_end, ranges[k][1]) << k;
    EXPECT_EQ(p.conditions[k].value, ranges[k][2]) << k;
    EXPECT_EQ(p.conditions[k].clbit_offset, 0) << k;
  }
  EXPECT_EQ(p.circuit.encoding()[p.circuit.encoding().size() - 4], kReset);
  EXPECT_EQ(p.measurements, (std::vector<std::pair<int64_t, int64_t>>{{0, 2}}));  // terminal: q[0] -> d[1]
  const std::string text = to_qasm(p);
  EXPECT_NE(text.find("if(c==1) reset q[0];\nmeasure q[1] -> d[0];\nif(c==1) measure q[0] -> d[0];\n"
                      "if(c==0) reset q[1];"), std::string::npos) << text;
  const QasmProgram back = parse_qasm(text);
  EXPECT_EQ(back.circuit.encoding(), p.circuit.encoding());
  EXPECT_EQ(back.conditions.size(), 3u);
  EXPECT_EQ(back.mid_measurements.size(), 3u);
  // A broadcast gives one condition per instance (Qiskit reads `if (c==0) measure q -> c;` so).
  const QasmProgram b = parse_qasm(kHead + "qreg q[2];\ncreg c[2];\nx q;\nif (c==0) measure q -> c;\n");
  ASSERT_EQ(b.conditions.size(), 2u);
  EXPECT_EQ(b.conditions[1].gate_begin, b.conditions[0].gate_end);
  // A conditional reset of a qubit still |0> does nothing, as an unconditional one.
  EXPECT_TRUE(parse_qasm(kHead + "qreg q[1];\ncreg c[1];\nif (c==0) reset q[0];\n").conditions.empty());
}

TEST(QuantumQasm, MalformedProgramsNameLineAndColumn) {
  const std::string head = kHead + "qreg q[2];\ncreg c[2];\n";  // the body starts on line 5
  const std::vector<std::array<std::string, 3>> cases = {
      {"if (c==1) if (c==0) x q[0];", "line 5, column 11", "'if' cannot follow 'if'"},
      {"if (c==1) barrier q;", "line 5, column 11", "'barrier' cannot be classically controlled"},
      {"if (c==1) measure q[0] c[0];", "line 5, column 24", "expected '->'"},
      {"if (c==1) measure q -> c[0];", "line 5, column 11", "2 qubit(s) into 1 bit(s)"},
      {"if (c==1) reset c[0];", "line 5, column 17", "unknown quantum register 'c'"},
      {"if (q==1) x q[0];", "line 5, column 5", "'q' is a qreg"},
      {"if (c==1) measure q[0] -> c[3];", "line 5, column 29", "bit c[3] is out of range"},
      {"if (d==1) x q[0];", "line 5, column 5", "unknown classical register 'd'"},
      {"opaque magic(a) x;", "line 5, column 1", "opaque gate 'magic'"},
      {"include \"stdgates.inc\";", "line 5, column 9", "only \"qelib1.inc\""},
      {"gate g a { rx(b) a; }", "line 5, column 15", "unknown parameter 'b'"},
      {"gate g a { measure a -> c[0]; }", "line 5, column 12", "cannot appear in a gate body"},
      {"gate h a { x a; }", "line 5, column 6", "already defined by qelib1.inc"},
      {"gate g(t) a { rx(1/t) a; }\ng(0) q[0];", "line 5, column 19", "division by zero (in gate 'g' used at line 6"},
      {"qreg r[3];\ncx q, r;", "line 6, column 1", "different sizes"},
      {"measure q -> c[0];", "line 5, column 1", "2 qubit(s) into 1 bit(s)"},
      {"measure q[0] -> c[2];", "line 5, column 19", "bit c[2] is out of range"},
      {"cx q[1], q[1];", "line 5, column 1", "repeats a qubit"},
      {"rx(ln(0)) q[0];", "line 5, column 4", "ln(0) is undefined"},
      {"rx(0.1 q[0];", "line 5, column 8", "expected ')'"},
      {"h q[0]; $", "line 5, column 9", "unexpected character '$'"},
      {"foo q[0];", "line 5, column 1", "unknown gate or statement 'foo'"},
      {"gate g a { h a; ", "line 5, column 17", "got the end of the text"},
  };
  for (const auto& [body, where, what] : cases) {
    const std::string m = thrown_message([&] { parse_qasm(head + body); });
    EXPECT_NE(m.find(where), std::string::npos) << body << " -> " << m;
    EXPECT_NE(m.find(what), std::string::npos) << body << " -> " << m;
  }
  EXPECT_THROW(parse_qasm("qreg q[1];"), ValueError);
}
