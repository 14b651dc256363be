// quantum::Circuit (the C++ builder): the encoding it writes (compared with one written by hand
// from circuit.h), states and gradients through the ops against closed forms, and its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "sampan/autograd.h"
#include "sampan/error.h"
#include "sampan/ops.h"
#include "sampan/quantum/circuit_builder.h"
#include "../thrown_message.h"

using namespace sampan;
using sampan::test::thrown_message;
using namespace sampan::quantum;
using IntList = std::vector<int64_t>;

namespace {

Tensor no_params() { return from_vector(std::vector<double>{}, {0}); }

}  // namespace

TEST(QuantumCircuitBuilder, EncodingMatchesTheDocumentedLayout) {
  Circuit c(3);
  const Param a = c.new_param(), b = c.new_param();
  c.h(0).cnot(0, 2).ry(a, 1).rz(0.3, 2).u3(b, 0.1, a, 0).ccx(0, 1, 2).cswap(2, 0, 1);
  // [op, qubits..., slots...]; slot s >= 0 is params[s], s < 0 is constants[-s - 1].
  const IntList expected = {kH, 0, kCNOT, 0, 2, kRY, 1, 0, kRZ, 2, -1, kU3, 0, 1, -2, 0, kCCX, 0, 1, 2, kCSWAP, 2, 0, 1};
  EXPECT_EQ(c.encoding(), expected);
  EXPECT_EQ(c.constants(), (std::vector<double>{0.3, 0.1}));
  EXPECT_EQ(c.n_params(), 2);
  EXPECT_EQ(c.size(), 7);
  EXPECT_EQ(c.depth(), 5);  // layer of each gate: H 1, CNOT 2, RY 1, RZ 3, U3 3, CCX 4, CSWAP 5
}

TEST(QuantumCircuitBuilder, BellStateAndControlledUnitary) {
  Circuit c(2);
  c.h(0).cnot(0, 1);
  Tensor psi = c.state(no_params());
  ASSERT_EQ(psi.numel(), 4);
  const auto* a = psi.data<complex128>();
  EXPECT_NEAR(a[0].real(), M_SQRT1_2, 1e-15);
  EXPECT_NEAR(a[3].real(), M_SQRT1_2, 1e-15);
  EXPECT_NEAR(std::abs(a[1]) + std::abs(a[2]), 0.0, 1e-15);
  // X as a matrix gate on qubit 1 controlled by qubit 0 is a CNOT: applied twice it cancels,
  // leaving |0>|+> = (|00> + |01>)/sqrt(2) (amplitudes 0 and 1).
  Circuit d(2);
  d.h(0).unitary({0, 1, 1, 0}, {1}, {0}).unitary({0, 1, 1, 0}, {1}, {0});
  const auto* b = d.state(no_params()).data<complex128>();
  EXPECT_NEAR(b[0].real(), M_SQRT1_2, 1e-15);
  EXPECT_NEAR(b[1].real(), M_SQRT1_2, 1e-15);
}

TEST(QuantumCircuitBuilder, ExpectationAndAdjointGradientMatchClosedForms) {
  // RX(b) then RY(a) on qubit 0: <Z0> = cos(a) cos(b).
  Circuit c(2);
  const Param a = c.new_param(), b = c.new_param();
  c.rx(b, 0).ry(a, 0).cnot(0, 1);
  Tensor params = from_vector({0.7, -0.4}, {2});
  params.requires_grad_(true);
  // H = Z1 (after the CNOT qubit 1 copies qubit 0's Z statistics): <Z1> = cos(a) cos(b).
  Tensor e = c.expectation(params, {0, 3}, {1.0});
  EXPECT_NEAR(e.item(), std::cos(0.7) * std::cos(-0.4), 1e-14);
  Tensor g = grad({e}, {params})[0];
  EXPECT_NEAR(g.data<double>()[0], -std::sin(0.7) * std::cos(-0.4), 1e-12);
  EXPECT_NEAR(g.data<double>()[1], -std::cos(0.7) * std::sin(-0.4), 1e-12);
}

TEST(QuantumCircuitBuilder, ErrorsNameTheGateAndTheValues) {
  Circuit c(3);
  EXPECT_THROW(c.h(3), IndexError);
  EXPECT_NE(thrown_message([&] { c.h(-1); }).find("out of range for 3 qubits"), std::string::npos);
  EXPECT_THROW(c.cnot(1, 1), ValueError);
  EXPECT_NE(thrown_message([&] { Circuit(3).h(0).cz(2, 2); }).find("gate 1 (CZ)"), std::string::npos);
  EXPECT_THROW(c.ccx(0, 1, 0), ValueError);
  EXPECT_THROW(Circuit(0), ValueError);
  EXPECT_THROW(Circuit(61), ValueError);
  EXPECT_THROW(c.ry(Param{-1}, 0), ValueError);
  // A non-unitary matrix, and one of the wrong size.
  EXPECT_THROW(c.unitary({1, 0, 0, 2}, {0}), ValueError);
  EXPECT_NE(thrown_message([&] { c.unitary({1, 1, 0, 1}, {0}); }).find("not unitary"), std::string::npos);
  EXPECT_NE(thrown_message([&] { c.unitary({1, 0, 0}, {0}); }).find("got 3"), std::string::npos);
  EXPECT_THROW(c.unitary({0, 1, 1, 0}, {0}, {0}), ValueError);  // control repeats the target
  // NaN would pass a max/compare test unnoticed: the deviation is reported as inf.
  EXPECT_NE(thrown_message([&] { c.unitary({std::nan(""), 0, 0, 1}, {0}); }).find("= inf"), std::string::npos);
  EXPECT_NE(thrown_message([&] { c.rx(std::nan(""), 0); }).find("gate 0 (RX): the angle nan is not finite"), std::string::npos);
  EXPECT_THROW(c.u3(0.1, INFINITY, 0.2, 1), ValueError);
  // Parameters of the wrong shape, dtype or length reach the op's checks.
  Circuit d(1);
  d.ry(d.new_param(), 0);
  EXPECT_THROW(d.state(from_vector({0.1, 0.2}, {1, 2})), ValueError);
  EXPECT_THROW(d.state(from_vector({0.1}, {1}, DType::Float32)), TypeError);
  EXPECT_THROW(d.state(no_params()), IndexError);
  EXPECT_NE(thrown_message([&] { d.state(no_params()); }).find("params has 0 entries"), std::string::npos);
  // Nothing was added by the failed calls.
  EXPECT_EQ(c.size(), 0);
}
