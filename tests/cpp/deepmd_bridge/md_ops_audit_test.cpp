// Registry audit for the MD ops of deepmd_bridge (deepmd::lj_*): each has sample arguments here
// and passes check_op (float64 finite differences, first order; the energy to second order;
// lj_gradients is once differentiable, so its second derivative must raise). The se_e2_a ops of
// namespace deepmd are audited in their own file.
#include <gtest/gtest.h>

#include <map>

#include "md_test_systems.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;
using namespace sampan::deepmd;

namespace {
// 8 atoms in a small triclinic box with rcut beyond half of it (pairs with several images, and
// self images), two types.
Values lj_sample() {
  md_test::System s = md_test::fcc(1, 4.2, 0.6, -0.3, 0.4, 0.25, true, 21);
  const double rcut = 5.0;
  NeighborList list = build_neighbor_list(s.positions.data(), s.natoms(), s.box, rcut, true);
  auto [pairs, shifts] = md::pair_tensors(list, s.box);
  std::vector<double> tv(s.types.begin(), s.types.end());
  return {from_vector(s.positions, {s.natoms(), 3}), from_vector(tv, {s.natoms()}, DType::Int64), pairs, shifts,
          std::vector<double>{0.0104, 0.012, 0.012, 0.015}, std::vector<double>{3.4, 3.3, 3.3, 3.2}, rcut, true};
}
}  // namespace

TEST(DeepmdMdOpsAudit, EveryLjOpHasSamplesAndPassesCheckOp) {
  const std::map<std::string, Values> samples = {
      {"deepmd::lj_energy", lj_sample()},
      {"deepmd::lj_gradients", lj_sample()},
  };
  int checked = 0;
  for (const auto& name : registered_ops()) {
    if (name.rfind("deepmd::lj_", 0) != 0) continue;  // the MD ops of this module
    const OpSchema& op = find_op(name);
    EXPECT_TRUE(op.shape_fn) << name;
    EXPECT_TRUE(op.vjp || op.nondifferentiable) << name;
    auto it = samples.find(name);
    if (it == samples.end()) {
      ADD_FAILURE() << "op '" << name << "' has no sample arguments in tests/cpp/deepmd_bridge/md_ops_audit_test.cpp";
      continue;
    }
    auto r = check_op(op, it->second);
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
    if (op.once_differentiable)
      EXPECT_NE(r.summary().find("a second derivative raised as declared"), std::string::npos) << r.summary();
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}
