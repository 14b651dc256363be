// The registry audit for the quantum module: every op of namespace `quantum` declares samples on
// its SAMPAN_OP (quantum/src/op_samples.h builds them) and passes check_op on them (shape
// function, first-order gradients by finite differences in float64, dtype sweep, determinism).
// The forward ops are once differentiable (their vjp ops have no derivative of their own), so
// check_op must report, for every sample, that a second derivative raised as declared.
#include <gtest/gtest.h>

#include <string>

#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

extern "C" int sampan_quantum_registered();

TEST(QuantumRegistryAudit, EveryQuantumOpDeclaresSamplesAndPassesCheckOp) {
  ASSERT_EQ(sampan_quantum_registered(), 1);
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (name.rfind("quantum::", 0) != 0) continue;
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name;
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name;
    auto r = check_op(op);  // fails naming the op when it declares no samples
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    if (op.once_differentiable) {
      // Every sample: check_op's notes are merged, so one sample whose second derivative did not
      // raise shows as the other note.
      const std::string s = r.summary();
      EXPECT_NE(s.find("a second derivative raised as declared"), std::string::npos) << name << ": " << s;
      EXPECT_EQ(s.find("no second derivative reached it"), std::string::npos) << name << ": " << s;
    }
    ++checked;
  }
  // statevector, expectation, density_matrix, dm_expectation, evolve_density_matrix,
  // probabilities, measure (each with its vjp or gradient op) and sample.
  EXPECT_GE(checked, 15);
}
