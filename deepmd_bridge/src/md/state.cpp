// State checks, kinetic energy, temperature, pressure, seeded velocities.
#include "sampan/deepmd/md/state.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sampan/error.h"

namespace sampan::deepmd::md {

void State::validate() const {
  const size_t n = types.size();
  SAMPAN_CHECK(positions.size() == 3 * n, ValueError, "md state: positions must hold 3 values per atom (", 3 * n,
               " for ", n, " atoms), got ", positions.size());
  SAMPAN_CHECK(velocities.size() == 3 * n, ValueError, "md state: velocities must hold 3 values per atom (", 3 * n,
               " for ", n, " atoms), got ", velocities.size());
  SAMPAN_CHECK(masses.size() == n, ValueError, "md state: masses must hold one value per atom (", n, "), got ",
               masses.size());
  for (size_t i = 0; i < n; ++i)
    SAMPAN_CHECK(masses[i] > 0 && std::isfinite(masses[i]), ValueError, "md state: the mass of atom ", i,
                 " must be positive (amu), got ", masses[i]);
  box.validate();
}

std::vector<double> State::masses_from_types(const std::vector<int>& types, const std::vector<double>& type_masses) {
  std::vector<double> m(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    SAMPAN_CHECK(types[i] >= 0 && static_cast<size_t>(types[i]) < type_masses.size(), ValueError, "md state: atom ", i,
                 " has type ", types[i], " but masses are given for ", type_masses.size(), " types");
    m[i] = type_masses[static_cast<size_t>(types[i])];
  }
  return m;
}

int64_t degrees_of_freedom(const State& s) {
  const int64_t n = s.natoms();
  return n > 1 ? 3 * n - 3 : 3 * n;
}

double kinetic_energy(const State& s, const Units& u) {
  double sum = 0;
  for (int64_t i = 0; i < s.natoms(); ++i) {
    const double* v = &s.velocities[3 * i];
    sum += s.masses[i] * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  }
  return 0.5 * u.mvv2e * sum;
}

double temperature(const State& s, const Units& u) {
  const int64_t dof = degrees_of_freedom(s);
  return dof > 0 ? 2.0 * kinetic_energy(s, u) / (static_cast<double>(dof) * u.boltz) : 0.0;
}

double pressure(const State& s, const Units& u) {
  if (!s.box.all_periodic()) return std::numeric_limits<double>::quiet_NaN();
  const double trace = s.virial[0] + s.virial[4] + s.virial[8];
  return (2.0 * kinetic_energy(s, u) + trace) / (3.0 * s.box.volume()) * u.nktv2p;
}

Thermo thermo(const State& s, const Units& u) {
  Thermo t;
  t.step = s.step;
  t.time = s.time;
  t.potential = s.potential_energy;
  t.kinetic = kinetic_energy(s, u);
  t.total = t.potential + t.kinetic;
  t.temperature = temperature(s, u);
  t.pressure = pressure(s, u);
  return t;
}

void compute_forces(State& s, Potential& potential) {
  s.forces.resize(static_cast<size_t>(3 * s.natoms()));
  if (s.energy_wanted) {
    potential.compute(s.positions.data(), s.types.data(), s.natoms(), s.box, &s.potential_energy, s.forces.data(),
                      s.virial);
    return;
  }
  potential.compute(s.positions.data(), s.types.data(), s.natoms(), s.box, nullptr, s.forces.data(), nullptr);
  s.potential_energy = std::numeric_limits<double>::quiet_NaN();
  std::fill(s.virial, s.virial + 9, std::numeric_limits<double>::quiet_NaN());
}

std::vector<double> total_momentum(const State& s) {
  std::vector<double> p(3, 0.0);
  for (int64_t i = 0; i < s.natoms(); ++i)
    for (int a = 0; a < 3; ++a) p[a] += s.masses[i] * s.velocities[3 * i + a];
  return p;
}

void remove_momentum(State& s) {
  std::vector<double> p = total_momentum(s);
  double mass = 0;
  for (double m : s.masses) mass += m;
  if (mass <= 0) return;
  for (int64_t i = 0; i < s.natoms(); ++i)
    for (int a = 0; a < 3; ++a) s.velocities[3 * i + a] -= p[a] / mass;
}

void initialize_velocities(State& s, double temperature_kelvin, uint64_t seed, const Units& u) {
  SAMPAN_CHECK(temperature_kelvin >= 0 && std::isfinite(temperature_kelvin), ValueError,
               "initialize_velocities: the temperature must be >= 0 K, got ", temperature_kelvin);
  s.velocities.assign(static_cast<size_t>(3 * s.natoms()), 0.0);
  NormalRandom rng(seed);
  for (int64_t i = 0; i < s.natoms(); ++i) {
    // Each component is normal with variance k T / m (in Å^2/ps^2: divide eV/amu by mvv2e).
    const double sd = std::sqrt(u.boltz * temperature_kelvin / (s.masses[i] * u.mvv2e));
    for (int a = 0; a < 3; ++a) s.velocities[3 * i + a] = sd * rng.next();
  }
  if (s.natoms() > 1) remove_momentum(s);
  const double t = temperature(s, u);
  if (t > 0) {
    const double scale = std::sqrt(temperature_kelvin / t);
    for (double& v : s.velocities) v *= scale;
  }
}

uint64_t NormalRandom::next_u64() {
  // splitmix64 (Steele, Lea, Flood, OOPSLA 2014): a full-period 64-bit generator.
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double NormalRandom::next() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // Box-Muller on two uniforms in (0, 1] and [0, 1), 53 random bits each.
  const double u1 = (static_cast<double>(next_u64() >> 11) + 1.0) * 0x1.0p-53;
  const double u2 = static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double phi = 2.0 * M_PI * u2;
  spare_ = r * std::sin(phi);
  has_spare_ = true;
  return r * std::cos(phi);
}

}  // namespace sampan::deepmd::md
