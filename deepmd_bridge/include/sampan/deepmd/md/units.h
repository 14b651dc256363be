// Units of the MD engine, written down once.
//
//   length Å, time ps (the time step is given in fs and converted), energy eV, mass amu
//   (g/mol), temperature K, pressure bar, force eV/Å, velocity Å/ps, virial eV.
//
// These are LAMMPS's `units metal`, so inputs and outputs compare with LAMMPS directly.
//
// The one conversion the equations of motion need: kinetic energy m v^2 arrives in amu Å^2/ps^2.
//   1 amu Å^2/ps^2 = 1.66053906660e-27 kg * (1e-10 m)^2 / (1e-12 s)^2 = 1.66053906660e-23 J
//                  = 1.66053906660e-23 / 1.602176634e-19 eV = 1.0364269652e-4 eV   (mvv2e)
// (CODATA 2018: atomic mass constant 1.66053906660e-27 kg; elementary charge 1.602176634e-19 C,
// exact). An acceleration is then a = F / m / mvv2e in Å/ps^2 for F in eV/Å and m in amu.
//   Boltzmann constant k_B = 1.380649e-23 J/K / 1.602176634e-19 J/eV = 8.617333262e-5 eV/K.
//   Pressure: 1 eV/Å^3 = 1.602176634e-19 J / 1e-30 m^3 = 1.602176634e11 Pa = 1.602176634e6 bar.
//
// LAMMPS (29 Sep 2021, Debian's 20220106) rounds these to mvv2e = 1.0364269e-4,
// boltz = 8.617343e-5 and nktv2p = 1.6021765e6 (update.cpp, `units metal`): Units::lammps_metal()
// holds those values so that a trajectory can be compared with LAMMPS's step for step.
#pragma once

namespace sampan::deepmd::md {

struct Units {
  double mvv2e;   // eV per amu Å^2/ps^2
  double boltz;   // eV per K
  double nktv2p;  // bar per eV/Å^3
  double fs;      // ps per fs (a time step in fs times this is in ps)

  /// The CODATA 2018 values derived above (the default).
  static constexpr Units codata2018() { return {1.66053906660e-23 / 1.602176634e-19, 1.380649e-23 / 1.602176634e-19,
                                                1.602176634e6, 1e-3}; }
  /// LAMMPS's rounded `units metal` constants, for step-by-step comparisons with LAMMPS.
  static constexpr Units lammps_metal() { return {1.0364269e-4, 8.617343e-5, 1.6021765e6, 1e-3}; }
};

}  // namespace sampan::deepmd::md
