// The MD run loop (simulation.h).
#include "sampan/deepmd/md/simulation.h"

#include <cmath>
#include <cstdio>

#include "sampan/error.h"

namespace sampan::deepmd::md {

void print_thermo_header(std::ostream& out) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%10s %12s %16s %16s %16s %12s %14s %16s\n", "Step", "Time(ps)", "PotEng(eV)",
                "KinEng(eV)", "TotEng(eV)", "Temp(K)", "Press(bar)", "Conserved(eV)");
  out << buf;
}

void print_thermo(std::ostream& out, const Thermo& t, double conserved) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), "%10lld %12.6f %16.8f %16.8f %16.8f %12.4f %14.4f %16.8f\n",
                static_cast<long long>(t.step), t.time, t.potential, t.kinetic, t.total, t.temperature, t.pressure,
                conserved);
  out << buf;
}

std::vector<Thermo> run(State& s, Potential& potential, Integrator& integrator, const RunOptions& o) {
  s.validate();
  SAMPAN_CHECK(o.steps >= 0, ValueError, "md run: steps must be >= 0, got ", o.steps);
  compute_forces(s, potential);
  std::vector<Thermo> records;
  const int64_t first = s.step, last = s.step + o.steps;
  if (o.thermo_stream && o.thermo_every > 0) print_thermo_header(*o.thermo_stream);
  // Which outputs step k (counted from the first) writes; the last step always prints thermo.
  auto wants = [&](int64_t k, bool& thermo_step, bool& traj_step, bool& xyz_step) {
    thermo_step = o.thermo_every > 0 && (k % o.thermo_every == 0 || first + k == last);
    traj_step = o.trajectory && o.trajectory_every > 0 && k % o.trajectory_every == 0;
    xyz_step = o.xyz && o.xyz_every > 0 && k % o.xyz_every == 0;
    return thermo_step || traj_step || xyz_step;
  };
  auto output = [&]() {
    bool want_thermo, want_traj, want_xyz;
    if (!wants(s.step - first, want_thermo, want_traj, want_xyz)) return;
    Thermo t = thermo(s, integrator.units());
    SAMPAN_CHECK(std::isfinite(t.total), RuntimeError, "md run: the energy is no longer finite at step ", s.step,
                 " (PE = ", t.potential, " eV, KE = ", t.kinetic, " eV): the time step is too large or atoms overlap");
    if (want_thermo) {
      records.push_back(t);
      if (o.thermo_stream) print_thermo(*o.thermo_stream, t, integrator.conserved_energy(s));
      if (o.on_thermo) o.on_thermo(t);
    }
    if (want_traj) o.trajectory->append(s, t);
    if (want_xyz) o.xyz->append(s, &t);
  };
  output();
  // Energy and virial only on steps that write something (and on the last, so the state returned
  // is complete): a guard restores energy_wanted however the loop ends.
  struct Restore {
    State& s;
    ~Restore() { s.energy_wanted = true; }
  } restore{s};
  while (s.step < last) {
    bool a, b, c;
    s.energy_wanted = wants(s.step + 1 - first, a, b, c) || s.step + 1 == last;
    integrator.step(s, potential);
    output();
  }
  return records;
}

}  // namespace sampan::deepmd::md
