// MD integrators: NVE against LAMMPS's fix nve step by step (same positions, velocities and
// time step), NVE energy drift on an LJ fluid against LAMMPS's drift, Nosé-Hoover chain and
// Langevin temperatures against the target, Berendsen equilibration, seeded velocities with zero
// momentum, and the exactness of the velocity Verlet operation order.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "lammps_reference.h"
#include "md_test_systems.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/deepmd/md/simulation.h"

using namespace sampan::deepmd;
using namespace sampan::deepmd::md;

namespace {

const std::vector<double> kEps = {0.0104, 0.0120, 0.0120, 0.0150};
const std::vector<double> kSigma = {3.40, 3.30, 3.30, 3.20};

State make_state(const md_test::System& sys) {
  State s;
  s.box = sys.box;
  s.positions = sys.positions;
  s.types = sys.types;
  s.masses = State::masses_from_types(sys.types, sys.masses);
  s.velocities.assign(sys.positions.size(), 0.0);
  return s;
}

// An argon-like LJ fluid: 256 atoms at 1.36 g/cm^3, melted from fcc (a = 5.8 Å).
State lj_fluid(double temperature, uint64_t seed, const Units& u) {
  State s = make_state(md_test::fcc(4, 5.8, 0, 0, 0, 0.2, false, seed));
  initialize_velocities(s, temperature, seed, u);
  return s;
}

// Least-squares slope of y against x.
double slope(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t k = 0; k < x.size(); ++k) mx += x[k], my += y[k];
  mx /= x.size();
  my /= y.size();
  double sxy = 0, sxx = 0;
  for (size_t k = 0; k < x.size(); ++k) sxy += (x[k] - mx) * (y[k] - my), sxx += (x[k] - mx) * (x[k] - mx);
  return sxy / sxx;
}

}  // namespace

TEST(MdVelocities, SeededMaxwellBoltzmannWithZeroMomentumAndExactTemperature) {
  Units u = Units::codata2018();
  State a = make_state(md_test::fcc(3, 5.26, 0, 0, 0, 0.1, true, 1));
  State b = a;
  initialize_velocities(a, 300.0, 42, u);
  initialize_velocities(b, 300.0, 42, u);
  EXPECT_EQ(a.velocities, b.velocities) << "the same seed must give the same velocities";
  for (double p : total_momentum(a)) EXPECT_NEAR(p, 0.0, 1e-10);
  EXPECT_NEAR(temperature(a, u), 300.0, 1e-9);
  initialize_velocities(b, 300.0, 43, u);
  EXPECT_NE(a.velocities, b.velocities);
  // Equipartition per species: both masses get the same mean kinetic energy per atom (to the
  // sampling error of ~36 and ~72 atoms).
  double ke[2] = {0, 0};
  int count[2] = {0, 0};
  for (int64_t i = 0; i < a.natoms(); ++i) {
    const double* v = &a.velocities[3 * i];
    ke[a.types[i]] += 0.5 * a.masses[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) * u.mvv2e;
    ++count[a.types[i]];
  }
  const double expect = 1.5 * u.boltz * 300.0;
  EXPECT_NEAR(ke[0] / count[0], expect, 0.35 * expect);
  EXPECT_NEAR(ke[1] / count[1], expect, 0.45 * expect);
}

TEST(MdNve, First100StepsMatchLammpsFixNve) {
  SKIP_WITHOUT_LAMMPS();
  Units u = Units::lammps_metal();
  md_test::System sys = md_test::fcc(3, 5.26, 1.3, -0.9, 0.7, 0.2, true, 31);
  State s = make_state(sys);
  initialize_velocities(s, 200.0, 7, u);
  lammps_reference::Folder dir("nve");
  lammps_reference::write_data(dir.file("data.lmp"), s.box, s.positions, s.types, sys.masses, &s.velocities);
  std::string script =
      "units metal\natom_style atomic\nboundary p p p\natom_modify map array\nread_data data.lmp\n"
      "pair_style lj/cut 8.0\npair_coeff 1 1 0.0104 3.40\npair_coeff 1 2 0.0120 3.30\npair_coeff 2 2 0.0150 3.20\n"
      "neighbor 2.0 bin\nneigh_modify every 1 delay 0 check yes\ntimestep 0.002\nfix 1 all nve\n"
      "thermo 10\nthermo_style custom step pe ke\nvariable e equal pe\nvariable k equal ke\n"
      "dump d all custom 10 traj.dump id xu yu zu vx vy vz\ndump_modify d sort id format float %.17g\n"
      "fix p all print 10 \"$(step) ${e} ${k}\" file thermo.txt screen no\n"
      "run 100\n";
  // ${e} prints with LAMMPS's default %.15g for equal-style variables; enough for 1e-10 eV.
  ASSERT_TRUE(lammps_reference::run(dir, script));
  auto dump = lammps_reference::read_dump(dir.file("traj.dump"));
  auto th = lammps_reference::read_rows(dir.file("thermo.txt"));
  ASSERT_EQ(dump.frames.size(), 11u);
  ASSERT_EQ(th.size(), 11u);  // steps 0, 10, ..., 100

  LennardJones lj(2, kEps, kSigma, 8.0, false, 1.0);
  VelocityVerlet nve(2.0, u);
  RunOptions o;
  o.steps = 10;
  double max_dx = 0, max_dv = 0, max_de = 0;
  for (size_t f = 0; f < dump.frames.size(); ++f) {
    if (f > 0) {
      auto rec = run(s, lj, nve, o);
      ASSERT_EQ(s.step, static_cast<int64_t>(10 * f));
      double pe = s.potential_energy, ke = kinetic_energy(s, u);
      ASSERT_EQ(th[f][0], 10.0 * f);
      max_de = std::max({max_de, std::abs(pe - th[f][1]), std::abs(ke - th[f][2])});
    }
    for (int64_t i = 0; i < s.natoms(); ++i)
      for (int a = 0; a < 3; ++a) {
        max_dx = std::max(max_dx, std::abs(s.positions[3 * i + a] - dump.frames[f][6 * i + a]));
        max_dv = std::max(max_dv, std::abs(s.velocities[3 * i + a] - dump.frames[f][6 * i + 3 + a]));
      }
  }
  // The same arithmetic in the same order: only the force sums' order differs (~1e-16 relative).
  EXPECT_LT(max_dx, 1e-10) << "Å";
  EXPECT_LT(max_dv, 1e-9) << "Å/ps";
  EXPECT_LT(max_de, 1e-10) << "eV";
  std::printf("NVE vs LAMMPS over 100 steps: max |dx| = %.3g Å, |dv| = %.3g Å/ps, |dE| = %.3g eV\n", max_dx, max_dv,
              max_de);
  // With the CODATA 2018 constants (the default) instead of LAMMPS's rounded ones, accelerations
  // differ by 6e-9 relative: the trajectories stay within about 2e-8 Å over these 100 steps.
  State c = make_state(sys);
  initialize_velocities(c, 200.0, 7, u);
  LennardJones lj2(2, kEps, kSigma, 8.0, false, 1.0);
  VelocityVerlet codata(2.0, Units::codata2018());
  o.steps = 100;
  run(c, lj2, codata, o);
  double max_codata = 0;
  for (int64_t i = 0; i < c.natoms(); ++i)
    for (int a = 0; a < 3; ++a)
      max_codata = std::max(max_codata, std::abs(c.positions[3 * i + a] - dump.frames[10][6 * i + a]));
  EXPECT_LT(max_codata, 1e-7);
  std::printf("the same with CODATA 2018 units: max |dx| = %.3g Å after 100 steps\n", max_codata);
}

TEST(MdNve, EnergyDriftOfTheLjFluidIsComparableToLammps) {
  SKIP_WITHOUT_LAMMPS();
  Units u = Units::lammps_metal();
  State s = lj_fluid(240.0, 3, u);
  std::vector<double> masses = {39.948};
  lammps_reference::Folder dir("drift");
  lammps_reference::write_data(dir.file("data.lmp"), s.box, s.positions, s.types, masses, &s.velocities);
  const int steps = 2000;
  std::string script =
      "units metal\natom_style atomic\nboundary p p p\nread_data data.lmp\n"
      "pair_style lj/cut 8.5\npair_modify shift yes\npair_coeff 1 1 0.0104 3.40\n"
      "neighbor 1.0 bin\nneigh_modify every 1 delay 0 check yes\ntimestep 0.005\nfix 1 all nve\n"
      "thermo 20\nthermo_style custom step etotal\nvariable e equal etotal\n"
      "fix p all print 20 \"$(step) ${e}\" file thermo.txt screen no\nrun " + std::to_string(steps) + "\n";
  ASSERT_TRUE(lammps_reference::run(dir, script));
  auto th = lammps_reference::read_rows(dir.file("thermo.txt"));
  ASSERT_EQ(th.size(), static_cast<size_t>(steps / 20 + 1));  // including step 0
  th.erase(th.begin());

  LennardJones lj(1, {0.0104}, {3.40}, 8.5, true, 1.0);
  VelocityVerlet nve(5.0, u);
  RunOptions o;
  o.steps = steps;
  o.thermo_every = 20;
  auto rec = run(s, lj, nve, o);
  std::vector<double> t_ours, e_ours, t_lmp, e_lmp;
  for (size_t k = 1; k < rec.size(); ++k) t_ours.push_back(rec[k].time), e_ours.push_back(rec[k].total / s.natoms());
  for (auto& r : th) t_lmp.push_back(r[0] * 0.005), e_lmp.push_back(r[1] / s.natoms());
  const double drift_ours = slope(t_ours, e_ours), drift_lmp = slope(t_lmp, e_lmp);  // eV/atom/ps
  double fluct_ours = 0, fluct_lmp = 0;
  for (size_t k = 0; k < e_ours.size(); ++k) fluct_ours = std::max(fluct_ours, std::abs(e_ours[k] - e_ours[0]));
  for (size_t k = 0; k < e_lmp.size(); ++k) fluct_lmp = std::max(fluct_lmp, std::abs(e_lmp[k] - e_lmp[0]));
  std::printf("LJ fluid NVE, 256 atoms, dt 5 fs, 10 ps: drift ours %.3g, LAMMPS %.3g eV/atom/ps; "
              "max |E - E0| ours %.3g, LAMMPS %.3g eV/atom\n", drift_ours, drift_lmp, fluct_ours, fluct_lmp);
  // The temperature is that of a fluid (the crystal melted): 240 K initially, about half goes
  // into potential energy.
  EXPECT_GT(rec.back().temperature, 60.0);
  // Same integrator and potential: the drift and the fluctuation are of LAMMPS's size (the two
  // trajectories decorrelate after a few ps, so not equal), and both are small in absolute terms.
  const double scale = std::max(std::abs(drift_lmp), 2e-6);
  EXPECT_LT(std::abs(drift_ours), 3 * scale);
  EXPECT_LT(fluct_ours, 3 * fluct_lmp + 1e-6);
  EXPECT_LT(std::abs(drift_ours), 1e-4);
}

TEST(MdNvt, NoseHooverChainHoldsTheTargetTemperatureAndConservesItsEnergy) {
  Units u = Units::codata2018();
  State s = lj_fluid(60.0, 5, u);  // starts far below the target
  LennardJones lj(1, {0.0104}, {3.40}, 8.5, true, 1.0);
  NoseHooverChain nvt(5.0, 150.0, 250.0, 3, u);
  RunOptions o;
  o.steps = 3000;
  o.thermo_every = 10;
  std::vector<double> conserved;
  o.on_thermo = [&](const Thermo&) { conserved.push_back(nvt.conserved_energy(s)); };
  auto rec = run(s, lj, nvt, o);
  double mean = 0;
  int n = 0;
  for (size_t k = rec.size() / 3; k < rec.size(); ++k, ++n) mean += rec[k].temperature;
  mean /= n;
  // 256 atoms: the canonical temperature fluctuates by T sqrt(2 / 3N) = 9 % per sample; the mean
  // over 10 ps of samples is within a few percent.
  EXPECT_NEAR(mean, 150.0, 7.5) << "mean temperature over the last two thirds";
  double drift = 0;
  for (double c : conserved) drift = std::max(drift, std::abs(c - conserved.front()));
  EXPECT_LT(drift / s.natoms(), 2e-4) << "eV/atom change of the extended-system energy";
  for (double p : total_momentum(s)) EXPECT_NEAR(p, 0.0, 1e-8);
}

TEST(MdNvt, LangevinIsSeededAndHoldsTheTargetTemperature) {
  Units u = Units::codata2018();
  State a = lj_fluid(60.0, 6, u), b = a, c = a;
  LennardJones lj(1, {0.0104}, {3.40}, 8.5, true, 1.0);
  Langevin la(5.0, 150.0, 200.0, 99, u), lb(5.0, 150.0, 200.0, 99, u), lc(5.0, 150.0, 200.0, 100, u);
  RunOptions o;
  o.steps = 2000;
  o.thermo_every = 10;
  auto rec = run(a, lj, la, o);
  RunOptions short_run;
  short_run.steps = 50;
  run(b, lj, lb, short_run);
  run(c, lj, lc, short_run);
  State a50 = lj_fluid(60.0, 6, u);
  Langevin la2(5.0, 150.0, 200.0, 99, u);
  run(a50, lj, la2, short_run);
  EXPECT_EQ(a50.positions, b.positions) << "the same seed must give the same trajectory";
  EXPECT_NE(b.positions, c.positions);
  double mean = 0;
  int n = 0;
  for (size_t k = rec.size() / 3; k < rec.size(); ++k, ++n) mean += rec[k].temperature;
  mean /= n;
  EXPECT_NEAR(mean, 150.0, 7.5);
}

TEST(MdNvt, BerendsenEquilibratesToTheTarget) {
  Units u = Units::codata2018();
  State s = lj_fluid(300.0, 8, u);
  LennardJones lj(1, {0.0104}, {3.40}, 8.5, true, 1.0);
  Berendsen ber(5.0, 120.0, 100.0, u);
  RunOptions o;
  o.steps = 600;
  o.thermo_every = 600;
  auto rec = run(s, lj, ber, o);
  EXPECT_NEAR(rec.back().temperature, 120.0, 6.0);
}

TEST(MdRun, ThermoTableAndUnstableRunsReportTheStep) {
  Units u = Units::codata2018();
  State s = lj_fluid(100.0, 9, u);
  LennardJones lj(1, {0.0104}, {3.40}, 8.5, true, 1.0);
  VelocityVerlet nve(5.0, u);
  std::ostringstream out;
  RunOptions o;
  o.steps = 20;
  o.thermo_every = 10;
  o.thermo_stream = &out;
  auto rec = run(s, lj, nve, o);
  ASSERT_EQ(rec.size(), 3u);
  EXPECT_EQ(rec[2].step, 20);
  EXPECT_NEAR(rec[2].time, 0.1, 1e-12);
  EXPECT_NE(out.str().find("Press(bar)"), std::string::npos);
  // The pressure of the LJ fluid from the virial and kinetic terms (ideal-gas part alone would be
  // N k T / V): finite and of a liquid's order (hundreds to thousands of bar).
  EXPECT_TRUE(std::isfinite(rec[2].pressure));
  // Two atoms placed on top of each other: the first force is infinite.
  s.positions[3] = s.positions[0];
  s.positions[4] = s.positions[1];
  s.positions[5] = s.positions[2];
  try {
    run(s, lj, nve, o);
    FAIL() << "an overlapping pair ran";
  } catch (const sampan::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("no longer finite at step"), std::string::npos) << e.what();
  }
}

TEST(MdRun, EnergyOnlyOnOutputStepsLeavesTheTrajectoryUnchanged) {
  // run() asks for energy and virial only on steps that write output. The trajectory must not
  // notice: thermo every step and thermo every 7th step give the same bits at the common steps.
  Units u = Units::codata2018();
  State every = lj_fluid(120.0, 4, u), sparse = every;
  LennardJones lj1(1, {0.0104}, {3.40}, 8.5, true, 1.0), lj7(1, {0.0104}, {3.40}, 8.5, true, 1.0);
  VelocityVerlet nve(5.0, u);
  RunOptions o;
  o.steps = 20;
  o.thermo_every = 1;
  auto all = run(every, lj1, nve, o);
  o.thermo_every = 7;
  auto some = run(sparse, lj7, nve, o);
  ASSERT_EQ(all.size(), 21u);
  ASSERT_EQ(some.size(), 4u);  // steps 0, 7, 14 and the last, 20
  for (const Thermo& t : some) {
    const Thermo& ref = all[static_cast<size_t>(t.step)];
    EXPECT_EQ(t.potential, ref.potential) << "step " << t.step;
    EXPECT_EQ(t.kinetic, ref.kinetic) << "step " << t.step;
    EXPECT_EQ(t.pressure, ref.pressure) << "step " << t.step;
  }
  EXPECT_EQ(sparse.positions, every.positions);
  // The state run() returns is complete and asks for energy again.
  EXPECT_TRUE(sparse.energy_wanted);
  EXPECT_EQ(sparse.potential_energy, every.potential_energy);
  // compute_forces with energy_wanted cleared: the same forces, energy and virial NaN.
  State s = every;
  s.energy_wanted = false;
  compute_forces(s, lj1);
  EXPECT_EQ(s.forces, every.forces);
  EXPECT_TRUE(std::isnan(s.potential_energy));
  EXPECT_TRUE(std::isnan(s.virial[0]));
}
