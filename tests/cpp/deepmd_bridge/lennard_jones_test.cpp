// The Lennard-Jones Potential and ops: against LAMMPS's pair_style lj/cut (Debian lmp, units
// metal) from the same positions to 1e-10, against each other, and the virial against the
// finite-difference strain derivative of the energy.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdio>

#include "lammps_reference.h"
#include "md_test_systems.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/ops.h"
#include "sampan/autograd.h"
#include "test_util.h"

using namespace sampan;
using namespace sampan::deepmd;

namespace {

// Argon-like type 0 and a heavier type 1; cross terms not from a mixing rule, on purpose.
const std::vector<double> kEps = {0.0104, 0.0120, 0.0120, 0.0150};
const std::vector<double> kSigma = {3.40, 3.30, 3.30, 3.20};

struct Result {
  double energy;
  std::vector<double> forces;
  double virial[9];
};

Result evaluate(Potential& pot, const md_test::System& s) {
  Result r;
  r.forces.resize(static_cast<size_t>(3 * s.natoms()));
  pot.compute(s.positions.data(), s.types.data(), s.natoms(), s.box, &r.energy, r.forces.data(), r.virial);
  return r;
}

}  // namespace

TEST(LennardJones, MatchesLammpsLjCutTo1e10) {
  SKIP_WITHOUT_LAMMPS();
  // 108 atoms, a triclinic box whose heights (about 15.7 Å) are below 2 rcut: pairs reach
  // beyond the nearest image, which LAMMPS handles with ghost atoms and we with image shifts.
  md_test::System s = md_test::fcc(3, 5.26, 1.3, -0.9, 0.7, 0.25, true, 11);
  const double rcut = 8.0;
  lammps_reference::Folder dir("lj_static");
  lammps_reference::write_data(dir.file("data.lmp"), s.box, s.positions, s.types, s.masses);
  std::string script =
      "units metal\natom_style atomic\nboundary p p p\nread_data data.lmp\n"
      "pair_style lj/cut 8.0\npair_coeff 1 1 0.0104 3.40\npair_coeff 1 2 0.0120 3.30\npair_coeff 2 2 0.0150 3.20\n"
      "neighbor 2.0 bin\nneigh_modify every 1 delay 0 check yes\n"
      "compute p all pressure NULL virial\n"
      "thermo_style custom step pe c_p[1] c_p[2] c_p[3] c_p[4] c_p[5] c_p[6] vol\n"
      "dump d all custom 1 forces.dump id fx fy fz\ndump_modify d sort id format float %.17g\n"
      "run 0\n"
      "print \"$(pe:%.17g) $(c_p[1]:%.17g) $(c_p[2]:%.17g) $(c_p[3]:%.17g) $(c_p[4]:%.17g) $(c_p[5]:%.17g) "
      "$(c_p[6]:%.17g) $(vol:%.17g)\" file global.txt\n"
      "undump d\npair_modify shift yes\nrun 0\nprint \"$(pe:%.17g)\" append global.txt\n";
  ASSERT_TRUE(lammps_reference::run(dir, script));
  auto dump = lammps_reference::read_dump(dir.file("forces.dump"));
  auto global = lammps_reference::read_rows(dir.file("global.txt"));
  ASSERT_EQ(dump.frames.size(), 1u);
  ASSERT_EQ(dump.frames[0].size(), static_cast<size_t>(3 * s.natoms()));
  ASSERT_EQ(global.size(), 2u);

  md::LennardJones lj(2, kEps, kSigma, rcut);
  Result r = evaluate(lj, s);
  EXPECT_NEAR(r.energy, global[0][0], 1e-10);
  EXPECT_GT(std::abs(r.energy), 1.0) << "the test system should have a sizeable energy";
  double max_df = 0, max_f = 0;
  for (size_t k = 0; k < r.forces.size(); ++k) {
    max_df = std::max(max_df, std::abs(r.forces[k] - dump.frames[0][k]));
    max_f = std::max(max_f, std::abs(r.forces[k]));
  }
  EXPECT_LT(max_df, 1e-10) << "largest force " << max_f << " eV/Å";
  EXPECT_GT(max_f, 0.05);
  // LAMMPS's virial pressure P_ab = W_ab / V * nktv2p, in the order xx yy zz xy xz yz.
  const double nktv2p = 1.6021765e6, volume = global[0][7];
  EXPECT_NEAR(volume, s.box.volume(), 1e-9);
  const int ab[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  for (int c = 0; c < 6; ++c) {
    double want = global[0][1 + c] * volume / nktv2p;
    EXPECT_NEAR(r.virial[3 * ab[c][0] + ab[c][1]], want, 1e-10) << "virial component " << c;
    EXPECT_EQ(r.virial[3 * ab[c][0] + ab[c][1]], r.virial[3 * ab[c][1] + ab[c][0]]);
  }
  double max_dw = 0;
  for (int c = 0; c < 6; ++c)
    max_dw = std::max(max_dw, std::abs(r.virial[3 * ab[c][0] + ab[c][1]] - global[0][1 + c] * volume / nktv2p));
  std::printf("lj/cut vs LAMMPS, 108 atoms: |dE| = %.3g eV (E = %.6f), max |dF| = %.3g eV/Å, max |dW| = %.3g eV\n",
              std::abs(r.energy - global[0][0]), r.energy, max_df, max_dw);
  // pair_modify shift yes.
  md::LennardJones shifted(2, kEps, kSigma, rcut, true);
  EXPECT_NEAR(evaluate(shifted, s).energy, global[1][0], 1e-10);
}

TEST(LennardJones, OpsAgreeWithThePotential) {
  md_test::System s = md_test::fcc(2, 5.26, 0.8, 0.4, -0.6, 0.3, true, 12);
  const double rcut = 6.5;
  md::LennardJones lj(2, kEps, kSigma, rcut);
  Result r = evaluate(lj, s);
  NeighborList list = build_neighbor_list(s.positions.data(), s.natoms(), s.box, rcut, true);
  auto [pairs, shifts] = md::pair_tensors(list, s.box);
  Tensor pos = from_vector(s.positions, {s.natoms(), 3});
  std::vector<double> tv(s.types.begin(), s.types.end());
  Tensor types = from_vector(tv, {s.natoms()}, DType::Int64);
  pos.requires_grad_(true);
  Tensor e = md::lj_energy(pos, types, pairs, shifts, kEps, kSigma, rcut, false);
  EXPECT_NEAR(e.item(), r.energy, 1e-12);
  auto g = sampan::grad({e}, {pos});
  auto gv = test::values(g[0]);
  for (size_t k = 0; k < gv.size(); ++k) EXPECT_NEAR(-gv[k], r.forces[k], 1e-12);
  // The same energy from a list built with the half option directly and from the full list.
  NeighborList full = build_neighbor_list(s.positions.data(), s.natoms(), s.box, rcut, false);
  auto [pairs2, shifts2] = md::pair_tensors(full, s.box);
  EXPECT_EQ(pairs2.size(0), pairs.size(0));
}

TEST(LennardJones, VirialIsMinusTheStrainDerivative) {
  // W_ab = -dE/d(eps_ab) under x -> x (I + eps) for positions and cell (central differences).
  md_test::System s = md_test::fcc(2, 5.0, 1.1, -0.7, 0.5, 0.3, true, 13);
  md::LennardJones lj(2, kEps, kSigma, 6.0);
  Result r = evaluate(lj, s);
  const double h = 1e-6;
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double e[2];
      for (int side = 0; side < 2; ++side) {
        double eps = side ? h : -h;
        md_test::System t = s;
        auto strain = [&](double* x) {  // x_b += x_a eps_ab (row vector times I + eps)
          x[b] += x[a] * eps;
        };
        for (int64_t i = 0; i < s.natoms(); ++i) {
          double x[3] = {s.positions[3 * i], s.positions[3 * i + 1], s.positions[3 * i + 2]};
          double y[3] = {x[0], x[1], x[2]};
          y[b] += x[a] * eps;
          for (int d = 0; d < 3; ++d) t.positions[3 * i + d] = y[d];
        }
        for (int k = 0; k < 3; ++k) {
          double x[3] = {s.box.cell[3 * k], s.box.cell[3 * k + 1], s.box.cell[3 * k + 2]};
          double y[3] = {x[0], x[1], x[2]};
          (void)strain;
          y[b] += x[a] * eps;
          for (int d = 0; d < 3; ++d) t.box.cell[3 * k + d] = y[d];
        }
        md::LennardJones fresh(2, kEps, kSigma, 6.0);
        e[side] = evaluate(fresh, t).energy;
      }
      double want = -(e[1] - e[0]) / (2 * h);
      EXPECT_NEAR(r.virial[3 * a + b], want, 1e-6 * (1 + std::abs(want))) << "W[" << a << "][" << b << "]";
    }
}

TEST(LennardJones, VerletSkinGivesTheSameResultsWithFewerBuilds) {
  md_test::System s = md_test::fcc(3, 5.26, 0.0, 0.0, 0.0, 0.1, false, 14);
  md::LennardJones exact(1, {0.0104}, {3.4}, 7.0, false, 0.0);
  md::LennardJones skinned(1, {0.0104}, {3.4}, 7.0, false, 1.0);
  std::mt19937_64 rng(5);
  std::normal_distribution<double> step(0.0, 0.03);
  for (int it = 0; it < 20; ++it) {
    for (auto& x : s.positions) x += step(rng);
    Result a = evaluate(exact, s), b = evaluate(skinned, s);
    ASSERT_NEAR(a.energy, b.energy, 1e-12);
    for (size_t k = 0; k < a.forces.size(); ++k) ASSERT_NEAR(a.forces[k], b.forces[k], 1e-13);
  }
  EXPECT_EQ(exact.list_builds(), 20);
  EXPECT_LT(skinned.list_builds(), 10);
}

TEST(LennardJones, BadParametersRaise) {
  EXPECT_THROW(md::LennardJones(2, {1, 2, 3, 4}, {1, 1, 1, 1}, 3.0), ValueError);  // asymmetric eps
  EXPECT_THROW(md::LennardJones(1, {1}, {-1}, 3.0), ValueError);
  EXPECT_THROW(md::LennardJones(1, {1}, {1}, 0.0), ValueError);
  md::LennardJones lj(1, {0.01}, {3.0}, 5.0);
  std::vector<double> x = {0, 0, 0, 3, 0, 0};
  std::vector<int> t = {0, 1};
  double e;
  try {
    lj.compute(x.data(), t.data(), 2, Box::open(), &e, nullptr, nullptr);
    FAIL() << "type 1 accepted by a one-type potential";
  } catch (const ValueError& err) {
    EXPECT_NE(std::string(err.what()).find("atom 1 has type 1"), std::string::npos) << err.what();
  }
}

TEST(LennardJones, SubdomainsWithGhostsSumToThePeriodicSystem) {
  // Two "ranks" own the atoms below and above the middle of the box; each sees every periodic
  // image within rcut of the box as a ghost, in open space (as LAMMPS's ghost atoms). The owned
  // energies add up to the periodic energy, and owned plus ghost forces, folded back to their
  // atoms, to the periodic forces.
  md_test::System s = md_test::fcc(3, 5.26, 1.3, -0.9, 0.7, 0.2, true, 17);
  const double rcut = 6.0;
  md::LennardJones periodic(2, kEps, kSigma, rcut);
  Result r = evaluate(periodic, s);
  const int64_t n = s.natoms();
  std::vector<double> total_force(static_cast<size_t>(3 * n), 0.0);
  double total_energy = 0;
  for (int rank = 0; rank < 2; ++rank) {
    std::vector<double> x;
    std::vector<int> t;
    std::vector<int64_t> owner;
    auto add = [&](int64_t i, int a, int b, int c) {
      for (int d = 0; d < 3; ++d)
        x.push_back(s.positions[3 * i + d] + a * s.box.cell[d] + b * s.box.cell[3 + d] + c * s.box.cell[6 + d]);
      t.push_back(s.types[i]);
      owner.push_back(i);
    };
    auto mine = [&](int64_t i) { return (s.positions[3 * i + 2] < 0.5 * s.box.cell[8]) == (rank == 0); };
    for (int64_t i = 0; i < n; ++i)
      if (mine(i)) add(i, 0, 0, 0);
    const int64_t nlocal = static_cast<int64_t>(t.size());
    for (int64_t i = 0; i < n; ++i)
      for (int a = -1; a <= 1; ++a)
        for (int b = -1; b <= 1; ++b)
          for (int c = -1; c <= 1; ++c)
            if ((a || b || c) || !mine(i)) add(i, a, b, c);  // ghosts: everything else (a superset)
    md::LennardJones lj(2, kEps, kSigma, rcut);
    std::vector<double> f(x.size());
    double e = 0;
    lj.compute_local(x.data(), t.data(), nlocal, static_cast<int64_t>(t.size()), &e, f.data());
    total_energy += e;
    for (size_t k = 0; k < owner.size(); ++k)
      for (int d = 0; d < 3; ++d) total_force[3 * owner[k] + d] += f[3 * k + d];
  }
  EXPECT_NEAR(total_energy, r.energy, 1e-11);
  for (size_t k = 0; k < total_force.size(); ++k) EXPECT_NEAR(total_force[k], r.forces[k], 1e-12);
}

TEST(LennardJones, ThreadsAndSkippedEnergyChangeNothingButRoundOff) {
  // 2,048 atoms (the pair loop's threshold for threads), two types, a triclinic box: 1 and 2
  // threads agree to round-off; asking for forces only gives the same forces bit for bit.
  md_test::System s = md_test::fcc(8, 5.26, 1.3, -0.9, 0.7, 0.2, true, 23);
  ASSERT_GE(s.natoms(), 2048);
  const int before = omp_get_max_threads();
  omp_set_num_threads(1);
  md::LennardJones one(2, kEps, kSigma, 8.0, true, 1.0);
  Result a = evaluate(one, s);
  std::vector<double> forces_only(a.forces.size());
  one.compute(s.positions.data(), s.types.data(), s.natoms(), s.box, nullptr, forces_only.data(), nullptr);
  omp_set_num_threads(2);
  md::LennardJones two(2, kEps, kSigma, 8.0, true, 1.0);
  Result b = evaluate(two, s);
  omp_set_num_threads(before);
  for (size_t k = 0; k < a.forces.size(); ++k) {
    ASSERT_EQ(forces_only[k], a.forces[k]) << "entry " << k;
    ASSERT_NEAR(b.forces[k], a.forces[k], 1e-13 * (1 + std::abs(a.forces[k]))) << "entry " << k;
  }
  EXPECT_NEAR(b.energy, a.energy, 1e-12 * std::abs(a.energy));
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(b.virial[k], a.virial[k], 1e-12 * (1 + std::abs(a.virial[k])));
  // And both against the unsplit reference: the op over the pair list, in double precision.
  NeighborList half = build_neighbor_list(s.positions.data(), s.natoms(), s.box, 8.0, true);
  auto [pairs, shifts] = md::pair_tensors(half, s.box);
  std::vector<double> tv(s.types.begin(), s.types.end());
  Tensor pos = from_vector(s.positions, {s.natoms(), 3});
  Tensor e = md::lj_energy(pos, from_vector(tv, {s.natoms()}, DType::Int64), pairs, shifts, kEps, kSigma, 8.0, true);
  EXPECT_NEAR(e.item(), a.energy, 1e-11 * std::abs(a.energy));
}
