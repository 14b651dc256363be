// The registry audit for the quantum module: every op in namespace quantum has samples here and
// passes check_op (first-order gradients by finite differences; expectation is once
// differentiable, so check_op verifies that a second derivative raises).
#include <gtest/gtest.h>

#include <map>

#include "sampan/ops.h"
#include "sampan/quantum/circuit.h"
#include "sampan/testing/check_op.h"

using namespace sampan;
using namespace sampan::quantum;
using IntList = std::vector<int64_t>;
using FloatList = std::vector<double>;

extern "C" int sampan_quantum_registered();

namespace {
// 3 qubits, every parametric gate, two shared parameters and one constant.
Values sample(bool with_hamiltonian) {
  IntList c = {kH, 0, kRX, 1, 0, kCNOT, 0, 2, kRY, 2, 1, kRZ, 0, 2, kCRX, 1, 0, 3, kCRY, 2, 1, 4,
               kCRZ, 0, 2, 0, kRXX, 0, 1, 1, kRYY, 1, 2, 2, kRZZ, 0, 2, 3, kU3, 1, 4, 0, -1, kP, 2, 1,
               kCP, 0, 1, 2, kS, 1, kT, 0, kSWAP, 0, 2, kCCX, 0, 1, 2, kY, 2, kCY, 2, 0, kSdg, 0, kTdg, 1,
               kCU, 2, 0, 3, -1, 1, kMS, 1, 2, kCSWAP, 1, 2, 0, kUnitary, 1, 1, 2, 0, 1};
  Values v = {from_vector({0.3, -0.7, 1.1, 0.45, -1.3}, {5}), c, FloatList{0.8, 0, 0, 0, 1, 1, 0, 0, 0}, int64_t(3)};
  if (with_hamiltonian) {
    v.emplace_back(IntList{3, 3, 0, 1, 0, 2, 2, 1, 3});
    v.emplace_back(FloatList{0.7, -0.4, 1.2});
  }
  return v;
}
}  // namespace

TEST(QuantumRegistryAudit, EveryQuantumOpHasSamplesAndPassesCheckOp) {
  ASSERT_EQ(sampan_quantum_registered(), 1);
  const std::map<std::string, Values> samples = {
      {"quantum::expectation", sample(true)},
      {"quantum::expectation_grad", sample(true)},
      {"quantum::statevector", sample(false)},
  };
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (name.rfind("quantum::", 0) != 0) continue;
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name;
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name;
    auto it = samples.find(name);
    if (it == samples.end()) {
      ADD_FAILURE() << "quantum op '" << name << "' has no sample arguments in tests/cpp/quantum/registry_audit_test.cpp";
      continue;
    }
    auto r = check_op(op, it->second);
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    if (op.once_differentiable)
      EXPECT_NE(r.summary().find("a second derivative raised as declared"), std::string::npos) << r.summary();
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}
