// Time integrators of the MD engine. Each advances a State by one step of length dt; the forces
// in the State must belong to its positions when step() is called (run() and setup() see to
// that), and are current again when it returns. Time steps are given in fs (units.h).
//
//   VelocityVerlet   NVE, the same operations as LAMMPS's fix nve.
//   NoseHooverChain  NVT by a Nosé-Hoover chain (Martyna, Klein, Tuckerman, J. Chem. Phys. 97,
//                    2635 (1992)) integrated by the Trotter splitting of Martyna, Tuckerman,
//                    Tobias, Klein, Mol. Phys. 87, 1117 (1996), with LAMMPS's thermostat masses
//                    Q_1 = N_f k T tau^2, Q_j = k T tau^2 (fix nvt, chain length 3 by default).
//   Langevin         NVT by Langevin dynamics, BAOAB splitting (Leimkuhler & Matthews, Appl.
//                    Math. Res. Express 2013, 34), friction 1/tau, seeded portable noise.
//   Berendsen        velocity Verlet plus weak coupling to a bath (Berendsen et al., J. Chem.
//                    Phys. 81, 3684 (1984)); for equilibration only (no canonical ensemble).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sampan/deepmd/md/state.h"
#include "sampan/deepmd/potential.h"

namespace sampan::deepmd::md {

class Integrator {
 public:
  Integrator(double dt_fs, const Units& units);
  virtual ~Integrator() = default;
  /// Advances `s` by one time step (s.step += 1, s.time += dt).
  virtual void step(State& s, Potential& potential) = 0;
  virtual std::string describe() const = 0;
  /// The conserved quantity in eV: total energy for NVE and Berendsen (not conserved there),
  /// plus the thermostat's energy for the Nosé-Hoover chain, plus the heat removed by the
  /// Langevin friction and noise so far.
  virtual double conserved_energy(const State& s) const;
  double dt() const { return dt_; }  // ps
  const Units& units() const { return units_; }

 protected:
  /// v += dt/2 F / m, in LAMMPS's operation order (dtf = dt/2 * ftm2v, dtfm = dtf / m).
  void half_kick(State& s) const;
  /// x += h v.
  void drift(State& s, double h) const;
  void advance_clock(State& s) const;
  double dt_;
  Units units_;
};

class VelocityVerlet : public Integrator {
 public:
  VelocityVerlet(double dt_fs, const Units& units = Units::codata2018());
  void step(State& s, Potential& potential) override;
  std::string describe() const override;
};

class NoseHooverChain : public Integrator {
 public:
  /// tau_fs: the thermostat's period (LAMMPS's Tdamp; about 100 time steps is usual).
  NoseHooverChain(double dt_fs, double temperature, double tau_fs, int chain_length = 3,
                  const Units& units = Units::codata2018());
  void step(State& s, Potential& potential) override;
  std::string describe() const override;
  double conserved_energy(const State& s) const override;
  double target_temperature() const { return temperature_; }

 private:
  void thermostat_half_step(State& s);
  double temperature_, tau_;
  std::vector<double> xi_, v_xi_, q_;
  bool initialized_ = false;
};

class Langevin : public Integrator {
 public:
  /// tau_fs: the relaxation time 1/gamma of the velocities (LAMMPS's fix langevin damp).
  Langevin(double dt_fs, double temperature, double tau_fs, uint64_t seed, const Units& units = Units::codata2018());
  void step(State& s, Potential& potential) override;
  std::string describe() const override;
  double conserved_energy(const State& s) const override;

 private:
  double temperature_, tau_;
  NormalRandom rng_;
  uint64_t seed_;
  double heat_ = 0;  // energy taken out of the system by the O step so far (eV)
};

class Berendsen : public Integrator {
 public:
  Berendsen(double dt_fs, double temperature, double tau_fs, const Units& units = Units::codata2018());
  void step(State& s, Potential& potential) override;
  std::string describe() const override;

 private:
  double temperature_, tau_;
};

}  // namespace sampan::deepmd::md
