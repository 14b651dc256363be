// Velocity Verlet, Nosé-Hoover chain, Langevin (BAOAB) and Berendsen steps (see integrators.h).
#include "sampan/deepmd/md/integrators.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sampan/error.h"

namespace sampan::deepmd::md {

namespace {
void check_positive(double v, const char* what, const char* who) {
  SAMPAN_CHECK(v > 0 && std::isfinite(v), ValueError, who, ": ", what, " must be positive and finite, got ", v);
}
}  // namespace

Integrator::Integrator(double dt_fs, const Units& units) : dt_(dt_fs * units.fs), units_(units) {
  check_positive(dt_fs, "the time step (fs)", "integrator");
}

double Integrator::conserved_energy(const State& s) const { return s.potential_energy + kinetic_energy(s, units_); }

void Integrator::half_kick(State& s) const {
  // LAMMPS fix nve: dtf = 0.5 dt ftm2v with ftm2v = 1 / mvv2e (eV/Å / amu -> Å/ps^2), then
  // v += (dtf / m) f. The same operations in the same order give the same bits.
  const double ftm2v = 1.0 / units_.mvv2e;
  const double dtf = 0.5 * dt_ * ftm2v;
  for (int64_t i = 0; i < s.natoms(); ++i) {
    const double dtfm = dtf / s.masses[i];
    for (int a = 0; a < 3; ++a) s.velocities[3 * i + a] += dtfm * s.forces[3 * i + a];
  }
}

void Integrator::drift(State& s, double h) const {
  for (size_t k = 0; k < s.positions.size(); ++k) s.positions[k] += h * s.velocities[k];
}

void Integrator::advance_clock(State& s) const {
  s.step += 1;
  s.time = static_cast<double>(s.step) * dt_;
}

// ---- NVE ----

VelocityVerlet::VelocityVerlet(double dt_fs, const Units& units) : Integrator(dt_fs, units) {}

void VelocityVerlet::step(State& s, Potential& potential) {
  half_kick(s);
  drift(s, dt_);
  compute_forces(s, potential);
  half_kick(s);
  advance_clock(s);
}

std::string VelocityVerlet::describe() const {
  std::ostringstream os;
  os << "velocity Verlet (NVE), dt = " << dt_ / units_.fs << " fs";
  return os.str();
}

// ---- Nosé-Hoover chain ----

NoseHooverChain::NoseHooverChain(double dt_fs, double temperature, double tau_fs, int chain_length,
                                 const Units& units)
    : Integrator(dt_fs, units), temperature_(temperature), tau_(tau_fs * units.fs) {
  check_positive(temperature, "the temperature (K)", "NoseHooverChain");
  check_positive(tau_fs, "tau (fs)", "NoseHooverChain");
  SAMPAN_CHECK(chain_length >= 1, ValueError, "NoseHooverChain: the chain length must be >= 1, got ", chain_length);
  xi_.assign(static_cast<size_t>(chain_length), 0.0);
  v_xi_.assign(static_cast<size_t>(chain_length), 0.0);
}

// One half step (dt/2) of the chain's Liouville operator (Martyna et al. 1996, Eqs. 29-31 with
// one Suzuki-Yoshida weight): thermostat velocities from the end of the chain inwards, the
// particle velocities scaled, the positions xi moved, and the chain updated outwards again.
void NoseHooverChain::thermostat_half_step(State& s) {
  const size_t m = v_xi_.size();
  const double kt = units_.boltz * temperature_;
  const double nf = static_cast<double>(degrees_of_freedom(s));
  if (!initialized_) {
    q_.assign(m, kt * tau_ * tau_);
    q_[0] = nf * kt * tau_ * tau_;
    initialized_ = true;
  }
  const double h = 0.5 * dt_;  // this half step
  double ke2 = 2.0 * kinetic_energy(s, units_);  // sum m v^2 in eV
  auto force = [&](size_t j) {
    return j == 0 ? (ke2 - nf * kt) / q_[0] : (q_[j - 1] * v_xi_[j - 1] * v_xi_[j - 1] - kt) / q_[j];
  };
  v_xi_[m - 1] += 0.5 * h * force(m - 1);
  for (size_t j = m - 1; j-- > 0;) {
    const double e = std::exp(-0.25 * h * v_xi_[j + 1]);
    v_xi_[j] = e * (e * v_xi_[j] + 0.5 * h * force(j));
  }
  const double scale = std::exp(-h * v_xi_[0]);
  for (double& v : s.velocities) v *= scale;
  ke2 *= scale * scale;
  for (size_t j = 0; j < m; ++j) xi_[j] += h * v_xi_[j];
  for (size_t j = 0; j + 1 < m; ++j) {
    const double e = std::exp(-0.25 * h * v_xi_[j + 1]);
    v_xi_[j] = e * (e * v_xi_[j] + 0.5 * h * force(j));
  }
  v_xi_[m - 1] += 0.5 * h * force(m - 1);
}

void NoseHooverChain::step(State& s, Potential& potential) {
  thermostat_half_step(s);
  half_kick(s);
  drift(s, dt_);
  compute_forces(s, potential);
  half_kick(s);
  thermostat_half_step(s);
  advance_clock(s);
}

double NoseHooverChain::conserved_energy(const State& s) const {
  // H = KE + PE + sum_j Q_j v_xi_j^2 / 2 + N_f k T xi_1 + k T sum_{j>1} xi_j.
  double h = Integrator::conserved_energy(s);
  if (!initialized_) return h;
  const double kt = units_.boltz * temperature_;
  const double nf = static_cast<double>(degrees_of_freedom(s));
  for (size_t j = 0; j < v_xi_.size(); ++j) h += 0.5 * q_[j] * v_xi_[j] * v_xi_[j] + (j == 0 ? nf : 1.0) * kt * xi_[j];
  return h;
}

std::string NoseHooverChain::describe() const {
  std::ostringstream os;
  os << "Nose-Hoover chain (NVT), dt = " << dt_ / units_.fs << " fs, T = " << temperature_
     << " K, tau = " << tau_ / units_.fs << " fs, chain " << v_xi_.size();
  return os.str();
}

// ---- Langevin (BAOAB) ----

Langevin::Langevin(double dt_fs, double temperature, double tau_fs, uint64_t seed, const Units& units)
    : Integrator(dt_fs, units), temperature_(temperature), tau_(tau_fs * units.fs), rng_(seed), seed_(seed) {
  SAMPAN_CHECK(temperature >= 0 && std::isfinite(temperature), ValueError,
               "Langevin: the temperature must be >= 0 K, got ", temperature);
  check_positive(tau_fs, "tau (fs)", "Langevin");
}

void Langevin::step(State& s, Potential& potential) {
  half_kick(s);             // B
  drift(s, 0.5 * dt_);      // A
  // O: the exact Ornstein-Uhlenbeck update over dt, v <- c v + sqrt((1 - c^2) k T / m) xi.
  const double c = std::exp(-dt_ / tau_);
  const double ke_before = kinetic_energy(s, units_);
  for (int64_t i = 0; i < s.natoms(); ++i) {
    const double sd = std::sqrt((1.0 - c * c) * units_.boltz * temperature_ / (s.masses[i] * units_.mvv2e));
    for (int a = 0; a < 3; ++a) s.velocities[3 * i + a] = c * s.velocities[3 * i + a] + sd * rng_.next();
  }
  heat_ += ke_before - kinetic_energy(s, units_);
  drift(s, 0.5 * dt_);      // A
  compute_forces(s, potential);
  half_kick(s);             // B
  advance_clock(s);
}

double Langevin::conserved_energy(const State& s) const { return Integrator::conserved_energy(s) + heat_; }

std::string Langevin::describe() const {
  std::ostringstream os;
  os << "Langevin BAOAB (NVT), dt = " << dt_ / units_.fs << " fs, T = " << temperature_
     << " K, tau = " << tau_ / units_.fs << " fs, seed " << seed_;
  return os.str();
}

// ---- Berendsen ----

Berendsen::Berendsen(double dt_fs, double temperature, double tau_fs, const Units& units)
    : Integrator(dt_fs, units), temperature_(temperature), tau_(tau_fs * units.fs) {
  check_positive(temperature, "the temperature (K)", "Berendsen");
  check_positive(tau_fs, "tau (fs)", "Berendsen");
}

void Berendsen::step(State& s, Potential& potential) {
  half_kick(s);
  drift(s, dt_);
  compute_forces(s, potential);
  half_kick(s);
  // lambda^2 = 1 + (dt / tau) (T0 / T - 1) (Berendsen 1984, Eq. 11).
  const double t = temperature(s, units_);
  if (t > 0) {
    const double lambda = std::sqrt(std::max(0.0, 1.0 + dt_ / tau_ * (temperature_ / t - 1.0)));
    for (double& v : s.velocities) v *= lambda;
  }
  advance_clock(s);
}

std::string Berendsen::describe() const {
  std::ostringstream os;
  os << "Berendsen (equilibration), dt = " << dt_ / units_.fs << " fs, T = " << temperature_
     << " K, tau = " << tau_ / units_.fs << " fs";
  return os.str();
}

}  // namespace sampan::deepmd::md
