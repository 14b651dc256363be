// The state of an MD simulation and the quantities derived from it (units in md/units.h: Å,
// Å/ps, amu, eV, K, bar).
#pragma once

#include <cstdint>
#include <vector>

#include "sampan/deepmd/md/units.h"
#include "sampan/deepmd/neighbor_list.h"
#include "sampan/deepmd/potential.h"

namespace sampan::deepmd::md {

struct State {
  Box box;
  std::vector<double> positions;   // [N, 3] Å (unwrapped: atoms are never folded back into the box)
  std::vector<double> velocities;  // [N, 3] Å/ps
  std::vector<int> types;          // [N] 0-based
  std::vector<double> masses;      // [N] amu, per atom
  // Filled by compute_forces for the current positions:
  std::vector<double> forces;      // [N, 3] eV/Å
  double potential_energy = 0;     // eV
  double virial[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // eV (potential.h)
  // When false, compute_forces asks the potential for forces only and sets potential_energy and
  // virial to NaN: run() clears it for steps that write no output (LAMMPS evaluates energy and
  // virial only on thermo steps), and sets it again for the others and when it returns.
  bool energy_wanted = true;
  int64_t step = 0;
  double time = 0;                 // ps

  int64_t natoms() const { return static_cast<int64_t>(types.size()); }
  /// Throws ValueError naming the field unless the sizes agree and masses are positive.
  void validate() const;
  /// Per-atom masses from per-type masses (amu).
  static std::vector<double> masses_from_types(const std::vector<int>& types, const std::vector<double>& type_masses);
};

/// What thermo output prints (LAMMPS's `thermo_style custom step time pe ke etotal temp press`).
struct Thermo {
  int64_t step;
  double time;         // ps
  double potential;    // eV
  double kinetic;      // eV
  double total;        // eV
  double temperature;  // K
  double pressure;     // bar; NaN unless the box is periodic in all three directions
};

/// Degrees of freedom used for the temperature: 3N - 3 (total momentum is conserved and set to
/// zero), as LAMMPS's compute temp; 3N for a single atom.
int64_t degrees_of_freedom(const State& s);
/// Kinetic energy 1/2 sum m v^2 in eV.
double kinetic_energy(const State& s, const Units& u);
/// T = 2 KE / (dof k_B) in K.
double temperature(const State& s, const Units& u);
/// P = (2 KE + trace W) / (3 V) in bar (NaN for a box that is not periodic in x, y and z).
double pressure(const State& s, const Units& u);
Thermo thermo(const State& s, const Units& u);

/// Evaluates `potential` at the current positions into s.forces, and into potential_energy and
/// virial when s.energy_wanted (NaN otherwise).
void compute_forces(State& s, Potential& potential);

/// Total momentum sum m v (amu Å/ps), [3].
std::vector<double> total_momentum(const State& s);
/// Subtracts the centre-of-mass velocity so the total momentum is zero.
void remove_momentum(State& s);
/// Velocities drawn from the Maxwell-Boltzmann distribution at `temperature` (K) with the given
/// seed (a portable generator: the same numbers on every platform), then the centre-of-mass
/// velocity removed and all velocities scaled so that temperature(s) equals `temperature` exactly.
void initialize_velocities(State& s, double temperature_kelvin, uint64_t seed, const Units& u);

/// A portable normal random number generator (splitmix64 + Box-Muller): seeded runs give the
/// same numbers with any compiler and standard library.
class NormalRandom {
 public:
  explicit NormalRandom(uint64_t seed) : state_(seed) {}
  double next();
  uint64_t state() const { return state_; }

 private:
  uint64_t next_u64();
  uint64_t state_;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace sampan::deepmd::md
