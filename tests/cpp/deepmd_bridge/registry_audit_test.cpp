// The registry audit for deepmd_bridge: every op of namespace `deepmd` (the se_e2_a ops, the
// fused tanh-layer ops of the nets, the gathered contraction and the MD engine's Lennard-Jones
// ops) declares samples on its SAMPAN_OP and passes check_op on them (shape function, first- and
// second-order finite differences in float64, float32 sweep, determinism). Once-differentiable
// ops (prod_env_mat_a, lj_gradients) must have their second derivative raise. Where an op has a
// CUDA kernel (the five se_e2_a ops in a build with nvcc), check_op compares it with the CPU on
// cuda:0 when a GPU is present and must say it skipped otherwise; a build without nvcc has no
// CUDA kernel in this namespace.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "sampan/cuda.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

extern "C" int sampan_deepmd_bridge_registered();

TEST(DeepmdRegistryAudit, EveryDeepmdOpDeclaresSamplesAndPassesCheckOp) {
  ASSERT_EQ(sampan_deepmd_bridge_registered(), 1);
  int checked = 0, with_cuda = 0;
  for (const auto& name : registered_ops()) {
    if (name.rfind("deepmd::", 0) != 0) continue;
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name;
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name;
    auto r = check_op(op);  // fails naming the op when it declares no samples
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    if (op.once_differentiable)
      EXPECT_NE(r.summary().find("a second derivative raised as declared"), std::string::npos) << r.summary();
    ++checked;
    if (!op.has_kernel(DeviceType::CUDA)) continue;
    ++with_cuda;
    const bool skipped = std::find(r.notes.begin(), r.notes.end(), "CPU vs CUDA: no GPU in this process, skipped") != r.notes.end();
    // With a GPU: the comparison ran (identical bits, or within 1e-12 of the CPU in float64 for
    // the ops declared cuda_nondeterministic, whose sums use atomicAdd).
    const bool compared = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
      return n == "CPU vs CUDA: identical bits" || n.rfind("CPU vs CUDA: within tolerance", 0) == 0;
    });
    if (cuda::is_available()) {
      EXPECT_TRUE(compared) << name << ": check_op should have compared CPU and CUDA: " << r.summary();
      for (const auto& n : r.notes)
        if (n.rfind("CPU vs CUDA", 0) == 0) std::cout << "[ cuda     ] " << name << ": " << n << "\n";
    } else {
      EXPECT_TRUE(skipped) << name << ": check_op should report the CUDA comparison as skipped: " << r.summary();
    }
  }
  EXPECT_GE(checked, 19);  // the se_e2_a, tanh-layer, contraction, MD and neighbour-search ops all registered
#if defined(SAMPAN_CUDA_KERNELS)
  EXPECT_GT(with_cuda, 0) << "built with nvcc but no deepmd op registered a CUDA kernel";
#else
  EXPECT_EQ(with_cuda, 0) << "CUDA kernels registered in a build without nvcc";
#endif
}
