// The se_e2_a operators on their physics: the switching function, one env-matrix row against the
// formula of DeePMD's paper, padding semantics, and forces / virials from prod_force_se_a and
// prod_virial_se_a against finite differences of an energy that is a smooth function of the
// environment matrix, in a periodic triclinic cell with unwrapped coordinates.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "deepmd_test_util.h"
#include "kernels/env_mat_kernels.h"
#include "sampan/autograd.h"
#include "sampan/deepmd/data.h"
#include "sampan/deepmd/extended_system.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;
using sampan::deepmd::build_extended_system;

namespace {

OpHandle env_mat("deepmd::prod_env_mat_a");
OpHandle prod_force("deepmd::prod_force_se_a");
OpHandle prod_virial("deepmd::prod_virial_se_a");

// sel, rcut, rcut_smth of a small model; the energy E = sum_k w_k em_k + 1/2 sum_k c_k em_k^2
// (per centre type) is a smooth function of the env matrix like a network's.
struct ToyModel {
  std::vector<int64_t> sel = {20, 40};
  double rcut = 3.2, rcut_smth = 0.7;
  Tensor davg, dstd, w, c;
  ToyModel() {
    const int64_t nd = 60 * 4;
    davg = test::uniform({2, nd}, -0.05, 0.05, 1);
    dstd = test::uniform({2, nd}, 0.3, 1.0, 2);
    w = test::uniform({nd}, -1, 1, 3);
    c = test::uniform({nd}, -0.5, 0.5, 4);
  }
  // energy, and (for forces) force [natoms, 3] and virial [9] from the ops.
  double energy(const std::vector<double>& xyz, const std::vector<int64_t>& types, const double* cell,
                std::vector<double>* force = nullptr, std::vector<double>* virial = nullptr) const {
    const int64_t n = static_cast<int64_t>(types.size());
    auto ext = build_extended_system(xyz.data(), types.data(), n, cell, rcut, sel);
    EXPECT_FALSE(ext.any_overflow()) << ext.overflow_message(sel);
    auto t = deepmd_test::to_tensors(ext);
    auto out = env_mat(t.coord, t.atype, t.nlist, davg, dstd, rcut, rcut_smth);
    Tensor em = out[0].detach().requires_grad_();
    Tensor E = sum(add(mul(em, w), mul(scalar_tensor(0.5), mul(c, mul(em, em)))));
    if (force) {
      Tensor net_deriv = grad({E}, {em})[0];
      Tensor f_ext = prod_force(net_deriv, out[1], t.nlist, ext.nall)[0];
      // ghost forces go to their owners
      Tensor f = index_add(zeros({n, 3}, DType::Float64), 0, t.mapping, f_ext);
      *force = test::values(f);
      *virial = test::values(prod_virial(net_deriv, out[1], out[2], t.nlist, ext.nall)[0]);
    }
    return test::values(E)[0];
  }
};

// 14 atoms of two types in a triclinic cell, coordinates deliberately outside the cell.
void triclinic_frame(std::vector<double>& xyz, std::vector<int64_t>& types, std::vector<double>& cell) {
  cell = {4.1, 0.0, 0.0, 0.7, 3.9, 0.0, -0.5, 0.6, 4.3};
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.3, 1.3);
  xyz.clear();
  types.clear();
  for (int i = 0; i < 14; ++i) {
    double s[3] = {u(rng), u(rng), u(rng)};
    for (int d = 0; d < 3; ++d) xyz.push_back(s[0] * cell[d] + s[1] * cell[3 + d] + s[2] * cell[6 + d] + (i % 3 == 0 ? 8.2 : 0.0));
    types.push_back(i % 3 == 0 ? 0 : 1);
  }
}

}  // namespace

// DeePMD's switch (Zhang et al., NeurIPS 2018 / DeePMD-kit docs): 1 below rs, 0 above rc, 1/2 at the
// midpoint by symmetry of the quintic, and C^2 at both ends (checked by one-sided differences).
TEST(DeepmdEnvMat, SmoothSwitchValuesAndContinuity) {
  using deepmd::kernels::smooth_switch;
  double sw, dsw, d2sw;
  smooth_switch(0.3, 0.5, 6.0, sw, dsw, d2sw);
  EXPECT_EQ(sw, 1.0);
  EXPECT_EQ(dsw, 0.0);
  smooth_switch(3.25, 0.5, 6.0, sw, dsw, d2sw);
  EXPECT_NEAR(sw, 0.5, 1e-15);
  EXPECT_NEAR(dsw, -30.0 / 16.0 / 5.5, 1e-14);  // -30u^2(1-u)^2/(rc-rs) at u = 1/2
  smooth_switch(6.0, 0.5, 6.0, sw, dsw, d2sw);
  EXPECT_EQ(sw, 0.0);
  for (double edge : {0.5, 6.0}) {
    double s1, d1, dd1, s2, d2, dd2;
    smooth_switch(edge - 1e-7, 0.5, 6.0, s1, d1, dd1);
    smooth_switch(edge + 1e-7, 0.5, 6.0, s2, d2, dd2);
    EXPECT_NEAR(s1, s2, 1e-12);
    EXPECT_NEAR(d1, d2, 1e-9);
    EXPECT_NEAR(dd1, dd2, 1e-5);
  }
  // derivatives against central differences inside the switching region
  for (double r : {0.9, 2.0, 4.4, 5.8}) {
    double sp, dp, ddp, sm, dm, ddm;
    smooth_switch(r, 0.5, 6.0, sw, dsw, d2sw);
    smooth_switch(r + 1e-6, 0.5, 6.0, sp, dp, ddp);
    smooth_switch(r - 1e-6, 0.5, 6.0, sm, dm, ddm);
    EXPECT_NEAR(dsw, (sp - sm) / 2e-6, 1e-8);
    EXPECT_NEAR(d2sw, (dp - dm) / 2e-6, 1e-7);
  }
}

// One neighbour at R = (1.2, -0.9, 2.0), r = 2.5: the raw row is sw(r) (1/r, x/r^2, y/r^2,
// z/r^2) (DeePMD-kit docs, se_e2_a), normalised by davg/dstd; the derivative with respect to the
// centre equals minus the finite-difference derivative in R. The second slot is empty: its row is
// -davg/dstd and its derivative zero (DeePMD-kit's padding semantics).
TEST(DeepmdEnvMat, RowMatchesFormulaAndPaddingIsMinusDavgOverDstd) {
  Tensor coord = from_vector({0.5, 0.5, 0.5, 1.7, -0.4, 2.5}, {2, 3});
  Tensor atype = cast(from_vector({0, 1}, {2}), DType::Int64);
  Tensor nlist = cast(from_vector({-1, 1, -1, 0}, {2, 2}), DType::Int64);  // sel = [1, 1]
  Tensor davg = from_vector({0.1, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.3, 0, 0, 0, 0.4, 0, 0, 0}, {2, 8});
  Tensor dstd = from_vector({0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.5, 1, 1, 1, 2.0, 1, 1, 1}, {2, 8});
  const double rc = 6.0, rs = 0.5;
  auto out = env_mat(coord, atype, nlist, davg, dstd, rc, rs);
  auto em = test::values(out[0]), d = test::values(out[1]), rij = test::values(out[2]);
  const double R[3] = {1.2, -0.9, 2.0};
  const double r = 2.5;
  const double u = (r - rs) / (rc - rs);
  const double sw = u * u * u * (-6 * u * u + 15 * u - 10) + 1;
  const double raw[4] = {sw / r, sw * R[0] / (r * r), sw * R[1] / (r * r), sw * R[2] / (r * r)};
  const double avg0[8] = {0.1, 0, 0, 0, 0.2, 0, 0, 0}, std0[8] = {0.5, 0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3};
  // centre 0 (type 0): slot 0 is empty (type-0 block), slot 1 holds atom 1
  for (int q = 0; q < 4; ++q) {
    EXPECT_NEAR(em[q], -avg0[q] / std0[q], 1e-15);
    EXPECT_NEAR(em[4 + q], (raw[q] - avg0[4 + q]) / std0[4 + q], 1e-14);
    for (int b = 0; b < 3; ++b) EXPECT_EQ(d[q * 3 + b], 0.0);
  }
  for (int b = 0; b < 3; ++b) {
    EXPECT_NEAR(rij[3 + b], R[b], 1e-15);
    EXPECT_EQ(rij[b], 0.0);
  }
  // derivative with respect to the centre: -d(raw)/dR / dstd, checked by central differences
  for (int b = 0; b < 3; ++b) {
    auto shifted = [&](double h) {
      double Rp[3] = {R[0], R[1], R[2]};
      Rp[b] += h;
      double rp = std::sqrt(Rp[0] * Rp[0] + Rp[1] * Rp[1] + Rp[2] * Rp[2]);
      double up = (rp - rs) / (rc - rs);
      double swp = up * up * up * (-6 * up * up + 15 * up - 10) + 1;
      return std::vector<double>{swp / rp, swp * Rp[0] / (rp * rp), swp * Rp[1] / (rp * rp), swp * Rp[2] / (rp * rp)};
    };
    auto p = shifted(1e-6), m = shifted(-1e-6);
    for (int q = 0; q < 4; ++q)
      EXPECT_NEAR(d[(4 + q) * 3 + b], -(p[q] - m[q]) / 2e-6 / std0[4 + q], 1e-8) << "q=" << q << " b=" << b;
  }
}

// Forces from prod_force_se_a (with ghost forces folded onto their owners) equal minus the
// central finite-difference gradient of the energy, for every atom and component.
TEST(DeepmdProdForce, ForcesAreMinusEnergyGradient) {
  std::vector<double> xyz, cell;
  std::vector<int64_t> types;
  triclinic_frame(xyz, types, cell);
  ToyModel model;
  std::vector<double> force, virial;
  model.energy(xyz, types, cell.data(), &force, &virial);
  const double h = 1e-5;
  double max_force = 0;
  for (size_t k = 0; k < xyz.size(); ++k) {
    auto p = xyz, m = xyz;
    p[k] += h;
    m[k] -= h;
    const double fd = -(model.energy(p, types, cell.data()) - model.energy(m, types, cell.data())) / (2 * h);
    EXPECT_NEAR(force[k], fd, 1e-7 * (1 + std::fabs(fd))) << "atom " << k / 3 << " component " << k % 3;
    max_force = std::max(max_force, std::fabs(fd));
  }
  EXPECT_GT(max_force, 1e-2);  // the test is not vacuous
  // Newton's third law: the total force vanishes
  for (int b = 0; b < 3; ++b) {
    double total = 0;
    for (size_t i = 0; i < types.size(); ++i) total += force[i * 3 + b];
    EXPECT_NEAR(total, 0.0, 1e-12);
  }
}

// The virial W_ab = -dE/d eps_ba under the homogeneous deformation x -> x (I + eps) of positions
// and cell rows (DeePMD-kit's convention, = sum over pairs of -dE/dR_a R_b), by central differences.
TEST(DeepmdProdVirial, VirialIsMinusStrainDerivative) {
  std::vector<double> xyz, cell;
  std::vector<int64_t> types;
  triclinic_frame(xyz, types, cell);
  ToyModel model;
  std::vector<double> force, virial;
  model.energy(xyz, types, cell.data(), &force, &virial);
  const double h = 1e-6;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      auto strained = [&](double e) {
        auto deform = [&](std::vector<double> v) {
          for (size_t i = 0; i < v.size() / 3; ++i) v[i * 3 + b] += e * v[i * 3 + a];
          return v;
        };
        auto c2 = deform(cell);
        return model.energy(deform(xyz), types, c2.data());
      };
      const double fd = -(strained(h) - strained(-h)) / (2 * h);  // -dE/d eps_ab
      EXPECT_NEAR(virial[b * 3 + a], fd, 1e-6 * (1 + std::fabs(fd))) << "a=" << a << " b=" << b;
    }
}

// Neighbour formatting: blocks by type sorted by distance, truncated to sel with the overflow
// counted; periodic images of the same atom appear as separate ghosts.
TEST(DeepmdNeighborFormat, SortedTruncatedAndOverflowCounted) {
  std::vector<double> xyz, cell;
  std::vector<int64_t> types;
  triclinic_frame(xyz, types, cell);
  const std::vector<int64_t> sel = {2, 3};
  auto ext = build_extended_system(xyz.data(), types.data(), 14, cell.data(), 3.2, sel);
  auto full = build_extended_system(xyz.data(), types.data(), 14, cell.data(), 3.2, {200, 200});
  EXPECT_TRUE(ext.any_overflow());
  EXPECT_NE(ext.overflow_message(sel).find("neighbours of type 1"), std::string::npos) << ext.overflow_message(sel);
  for (int64_t i = 0; i < 14; ++i) {
    int64_t count[2] = {0, 0};
    for (int64_t k = 0; k < full.nnei; ++k) {
      const int64_t n = full.nlist[i * full.nnei + k];
      if (n >= 0) ++count[k < 200 ? 0 : 1];
    }
    std::vector<double> last = {-1.0, -1.0};
    for (int64_t k = 0; k < ext.nnei; ++k) {
      const int64_t n = ext.nlist[i * ext.nnei + k];
      const int t = k < 2 ? 0 : 1;
      const int64_t pos = t == 0 ? k : k - 2;
      EXPECT_EQ(n >= 0, pos < count[t]) << "centre " << i << " slot " << k;  // filled up to min(count, sel)
      if (n < 0) continue;
      EXPECT_EQ(ext.types[n], t);
      double r2 = 0;
      for (int d = 0; d < 3; ++d) r2 += std::pow(ext.coord[n * 3 + d] - ext.coord[i * 3 + d], 2);
      EXPECT_GE(r2, last[t]);
      EXPECT_LT(r2, 3.2 * 3.2);
      last[t] = r2;
    }
  }
}

// Reference counts from LAMMPS (compute coord/atom by type, 6 Å, all 400 water frames; see
// shared/reference/deepmd.md §9.1): at most 38 O and 72 H neighbours, on average 29.50 and 59.35.
TEST(DeepmdNeighborFormat, WaterCountsMatchLammps) {
  DEEPMD_SKIP_WITHOUT(deepmd_test::water_system(0));
  int64_t max_count[2] = {0, 0};
  double total[2] = {0, 0};
  int64_t centres = 0;
  for (int s = 0; s < 4; ++s) {
    auto system = sampan::deepmd::load_system(deepmd_test::water_system(s));
    std::vector<int64_t> types(system.atom_types.begin(), system.atom_types.end());
    for (int64_t f = 0; f < system.nframes; ++f) {
      auto ext = build_extended_system(system.coord.data() + f * 576, types.data(), 192, system.box.data() + f * 9, 6.0,
                                       {46, 92});
      EXPECT_FALSE(ext.any_overflow());
      for (int t = 0; t < 2; ++t) max_count[t] = std::max(max_count[t], ext.max_count[t]);
      for (int64_t k = 0; k < ext.nloc * ext.nnei; ++k)
        if (ext.nlist[k] >= 0) ++total[(k % ext.nnei) < 46 ? 0 : 1];
      centres += ext.nloc;
    }
  }
  EXPECT_EQ(centres, 400 * 192);
  EXPECT_EQ(max_count[0], 38);
  EXPECT_EQ(max_count[1], 72);
  EXPECT_NEAR(total[0] / centres, 29.50, 0.005);
  EXPECT_NEAR(total[1] / centres, 59.35, 0.005);
}

// The cell-list search and the brute-force oracle give the same formatted extended system.
TEST(DeepmdNeighborFormat, CellListMatchesBruteForce) {
  std::vector<double> xyz, cell;
  std::vector<int64_t> types;
  triclinic_frame(xyz, types, cell);
  for (double rcut : {2.5, 3.2, 5.5}) {  // 5.5 exceeds half the cell: several images per pair
    const std::vector<int64_t> sel = {60, 120};
    auto fast = build_extended_system(xyz.data(), types.data(), 14, cell.data(), rcut, sel);
    auto wrapped = sampan::deepmd::wrap_into_cell(xyz.data(), 14, cell.data());
    auto slow = sampan::deepmd::format_extended_system(
        wrapped.data(), types.data(), 14, cell.data(),
        sampan::deepmd::brute_force_candidates(wrapped.data(), 14, cell.data(), rcut), sel);
    EXPECT_EQ(fast.nlist, slow.nlist) << "rcut " << rcut;
    EXPECT_EQ(fast.mapping, slow.mapping);
    ASSERT_EQ(fast.coord.size(), slow.coord.size());
    for (size_t k = 0; k < fast.coord.size(); ++k) EXPECT_NEAR(fast.coord[k], slow.coord[k], 1e-12);
  }
}
