// The MD driver: runs an integrator with a potential for a number of steps, printing thermo
// output and writing trajectories at chosen intervals.
#pragma once

#include <functional>
#include <ostream>
#include <vector>

#include "sampan/deepmd/md/integrators.h"
#include "sampan/deepmd/md/trajectory.h"

namespace sampan::deepmd::md {

struct RunOptions {
  int64_t steps = 0;
  /// Thermo every this many steps (and at the first and last step); 0: none.
  int64_t thermo_every = 0;
  /// Where the thermo table goes (LAMMPS-like columns); null: nowhere.
  std::ostream* thermo_stream = nullptr;
  /// Called with every thermo record (e.g. from Python).
  std::function<void(const Thermo&)> on_thermo;
  H5mdWriter* trajectory = nullptr;
  int64_t trajectory_every = 0;
  ExtxyzWriter* xyz = nullptr;
  int64_t xyz_every = 0;
};

/// Computes the forces of the initial state, then takes `options.steps` steps. Thermo records
/// (step, time, PE, KE, Etot, T, P) are returned for every thermo step, including the first.
/// RuntimeError naming the step when the energy stops being finite (an unstable run).
std::vector<Thermo> run(State& s, Potential& potential, Integrator& integrator, const RunOptions& options);

/// One line of thermo output and its header.
void print_thermo_header(std::ostream& out);
void print_thermo(std::ostream& out, const Thermo& t, double conserved);

}  // namespace sampan::deepmd::md
