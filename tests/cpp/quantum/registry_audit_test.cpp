// The registry audit for the quantum module: every op of namespace `quantum` declares samples on
// its SAMPAN_OP (quantum/src/op_samples.h builds them) and passes check_op on them (shape
// function, first-order gradients by finite differences in float64, dtype sweep, determinism).
// The forward ops are once differentiable (their vjp ops have no derivative of their own), so
// check_op must report, for every sample, that a second derivative raised as declared.
// The state-vector ops with CUDA twins (quantum/src/kernels/gates.cu) are compared with the CPU on
// cuda:0 when a GPU is present (to rounding: the CPU's AVX2 kernels contract into FMAs, the sums
// fold in another order); without one check_op must say it skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>

#include "sampan/cuda.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

extern "C" int sampan_quantum_registered();

TEST(QuantumRegistryAudit, EveryQuantumOpDeclaresSamplesAndPassesCheckOp) {
  ASSERT_EQ(sampan_quantum_registered(), 1);
  int checked = 0, with_cuda = 0;
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
    if (!op.has_kernel(DeviceType::CUDA)) continue;
    ++with_cuda;
    auto noted = [&](const std::string& prefix) {
      return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.rfind(prefix, 0) == 0; });
    };
    if (cuda::is_available()) {
      EXPECT_TRUE(noted("CPU vs CUDA: identical bits") || noted("CPU vs CUDA: within tolerance")) << name << ": " << r.summary();
      for (const auto& n : r.notes)
        if (n.rfind("CPU vs CUDA", 0) == 0) std::cout << "[ cuda     ] " << name << ": " << n << "\n";
    } else {
      EXPECT_TRUE(noted("CPU vs CUDA: no GPU in this process, skipped")) << name << ": " << r.summary();
    }
  }
  // statevector, expectation, density_matrix, dm_expectation, evolve_density_matrix,
  // probabilities, measure (each with its vjp or gradient op) and sample.
  EXPECT_GE(checked, 15);
#if defined(SAMPAN_CUDA_KERNELS)
  // statevector, statevector_vjp, expectation, expectation_grad
  EXPECT_GE(with_cuda, 4) << "built with nvcc but the state-vector ops registered no CUDA kernel";
#else
  EXPECT_EQ(with_cuda, 0) << "CUDA kernels registered in a build without nvcc";
#endif
}
