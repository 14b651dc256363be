// The registry audit for deepmd_bridge: every op of namespace `deepmd` (the se_e2_a ops and the fused
// tanh-layer ops of the nets; except the MD ops deepmd::lj_*,
// audited in md_ops_audit_test.cpp) has samples here and passes
// check_op (shape function, first- and second-order finite differences in float64, float32 sweep,
// determinism). prod_env_mat_a is once differentiable: check_op verifies its first derivatives
// (through all three outputs, the em_deriv one by the analytic Hessian) and that a second raises.
// The five se_e2_a ops have CUDA twins: in a build with nvcc (SAMPAN_CUDA_KERNELS) the registry must
// list a CUDA kernel for each and check_op must say that it skipped CPU-vs-CUDA for want of a GPU
// (not pretend it compared); without nvcc there must be no CUDA kernel at all.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>

#include "deepmd_test_util.h"
#include "sampan/ops.h"
#include "sampan/cuda.h"
#include "sampan/testing/check_op.h"
#include "test_util.h"

using namespace sampan;

extern "C" int sampan_deepmd_bridge_registered();

namespace {

// Six atoms in an open box, two types, sel = [2, 3]: some centres have empty slots (padding),
// one pair sits inside rcut_smth and several between rcut_smth and rcut.
struct Sample {
  Tensor coord, atype, nlist, davg, dstd, net_deriv, em_deriv, rij, grad_virial, grad_atom_virial, grad_force;
  int64_t nall;
};

Sample make_sample() {
  const std::vector<double> xyz = {0.0, 0.0, 0.0,  1.1, 0.2, -0.1, -0.3, 1.4, 0.5,
                                   2.2, 1.9, 0.4,  0.4, -0.6, 1.7, 3.6, 0.1, 0.9};
  const std::vector<int64_t> types = {0, 1, 1, 0, 1, 0};
  auto ext = sampan::deepmd::build_extended_system(xyz.data(), types.data(), 6, nullptr, 3.0, {2, 3});
  auto t = deepmd_test::to_tensors(ext);
  Sample s;
  s.coord = t.coord;
  s.atype = t.atype;
  s.nlist = t.nlist;
  s.nall = ext.nall;
  const int64_t nloc = ext.nloc, nnei = ext.nnei;
  s.davg = test::uniform({2, nnei * 4}, -0.1, 0.1, 11);
  s.dstd = test::uniform({2, nnei * 4}, 0.5, 1.5, 12);
  s.net_deriv = test::uniform({nloc, nnei * 4}, -1, 1, 13);
  s.em_deriv = test::uniform({nloc, nnei * 12}, -1, 1, 14);
  s.rij = test::uniform({nloc, nnei * 3}, -2, 2, 15);
  s.grad_virial = test::uniform({9}, -1, 1, 16);
  s.grad_atom_virial = test::uniform({s.nall, 9}, -1, 1, 17);
  s.grad_force = test::uniform({s.nall, 3}, -1, 1, 18);
  return s;
}

// The ops with CUDA twins (src/kernels/*.cu).
const std::set<std::string> kCudaTwins = {"deepmd::prod_env_mat_a", "deepmd::prod_force_se_a",
                                          "deepmd::prod_force_se_a_grad", "deepmd::prod_virial_se_a",
                                          "deepmd::prod_virial_se_a_grad"};

}  // namespace

TEST(DeepmdRegistryAudit, EveryDeepmdOpHasSamplesAndPassesCheckOp) {
  ASSERT_EQ(sampan_deepmd_bridge_registered(), 1);
  Sample s = make_sample();
  // the sample really has empty slots and filled ones
  auto nl = test::values(s.nlist);
  ASSERT_GT(std::count(nl.begin(), nl.end(), -1.0), 0);
  ASSERT_GT(std::count_if(nl.begin(), nl.end(), [](double v) { return v >= 0; }), 5);
  const Tensor gather_rows = from_vector({0, 1, 4, 4, 2, 3, 4, 1, 0, 2, 4, 4}, {12}, DType::Int64);
  const std::map<std::string, Values> samples = {
      {"deepmd::prod_env_mat_a", {s.coord, s.atype, s.nlist, s.davg, s.dstd, 3.0, 0.8}},
      {"deepmd::prod_force_se_a", {s.net_deriv, s.em_deriv, s.nlist, s.nall}},
      {"deepmd::prod_force_se_a_grad", {s.grad_force, s.em_deriv, s.nlist}},
      {"deepmd::prod_virial_se_a", {s.net_deriv, s.em_deriv, s.rij, s.nlist, s.nall}},
      {"deepmd::prod_virial_se_a_grad", {s.grad_virial, s.grad_atom_virial, s.em_deriv, s.rij, s.nlist}},
      // the fused tanh layer: pre-activations spanning the saturated and the linear range
      {"deepmd::bias_tanh", {test::uniform({5, 3}, -2.5, 2.5, 21), test::uniform({3}, -0.5, 0.5, 22)}},
      {"deepmd::tanh_backward", {test::uniform({4, 3}, -1, 1, 23), test::uniform({4, 3}, -0.95, 0.95, 24)}},
      {"deepmd::tanh_curvature",
       {test::uniform({4, 3}, -1, 1, 25), test::uniform({4, 3}, -1, 1, 26), test::uniform({4, 3}, -0.95, 0.95, 27)}},
      {"deepmd::tanh_backward_vjp",
       {test::uniform({4, 3}, -1, 1, 38), test::uniform({4, 3}, -1, 1, 39), test::uniform({4, 3}, -0.95, 0.95, 40)}},
      {"deepmd::add_tiled", {test::uniform({3, 4}, -1, 1, 28), test::uniform({3, 2}, -1, 1, 29)}},
      {"deepmd::fold_columns", {test::uniform({3, 6}, -1, 1, 30), int64_t{2}}},
      {"deepmd::tile_columns", {test::uniform({3, 2}, -1, 1, 31), int64_t{3}}},
      // the gathered contraction: 3 centres x 4 slots naming 5 of 6 rows of g, some rows shared
      // (the empty-slot classes), one never named (its g gradient must be 0)
      {"deepmd::gather_contract", {test::uniform({3, 4, 4}, -1, 1, 32), test::uniform({6, 3}, -1, 1, 33), gather_rows}},
      {"deepmd::gather_contract_em_grad",
       {test::uniform({3, 4, 3}, -1, 1, 34), test::uniform({6, 3}, -1, 1, 35), gather_rows}},
      {"deepmd::gather_contract_g_grad",
       {test::uniform({3, 4, 4}, -1, 1, 36), test::uniform({3, 4, 3}, -1, 1, 37), gather_rows, int64_t{6}}},
  };
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (name.rfind("deepmd::", 0) != 0) continue;
    if (name.rfind("deepmd::lj_", 0) == 0) continue;  // the MD ops: audited in md_ops_audit_test.cpp
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name;
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name;
    auto it = samples.find(name);
    if (it == samples.end()) {
      ADD_FAILURE() << "deepmd op '" << name << "' has no sample arguments in tests/cpp/deepmd_bridge/registry_audit_test.cpp";
      continue;
    }
    CheckOpReport r;
    // On the GPU the twins' scattered sums (forces, virials, the env-matrix backward) use
    // atomicAdd: the CPU's values to rounding, but not its bits, nor the same bits run to run.
    CheckOpOptions options;
    options.cuda_deterministic = false;
    try {
      r = check_op(op, it->second, options);
    } catch (const std::exception& e) {
      ADD_FAILURE() << name << " raised: " << e.what();
      continue;
    }
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    if (op.once_differentiable)
      EXPECT_NE(r.summary().find("a second derivative raised as declared"), std::string::npos) << r.summary();
    if (kCudaTwins.count(name)) {
      const bool noted = std::find(r.notes.begin(), r.notes.end(), "CPU vs CUDA: no GPU in this process, skipped") != r.notes.end();
      // With a GPU: the comparison ran (identical bits or within 1e-12 of the CPU, float64).
      const bool compared = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
        return n == "CPU vs CUDA: identical bits" || n.rfind("CPU vs CUDA: within tolerance", 0) == 0;
      });
#if defined(SAMPAN_CUDA_KERNELS)
      EXPECT_EQ(op.kernels.count(DeviceType::CUDA), 1u) << name << ": built with nvcc but no CUDA kernel registered";
      if (cuda::is_available()) {
        EXPECT_TRUE(compared) << name << ": check_op should have compared CPU and CUDA: " << r.summary();
        for (const auto& n : r.notes)
          if (n.rfind("CPU vs CUDA", 0) == 0) std::cout << "[ cuda     ] " << name << ": " << n << "\n";
      }
      else
        EXPECT_TRUE(noted) << name << ": check_op should report the CUDA comparison as skipped: " << r.summary();
#else
      EXPECT_EQ(op.kernels.count(DeviceType::CUDA), 0u) << name << ": a CUDA kernel in a build without nvcc";
      EXPECT_FALSE(noted) << r.summary();
#endif
    }
    ++checked;
  }
  EXPECT_GE(checked, 15);
}
