// The interface every interatomic potential of the MD engine implements (Lennard-Jones, the
// DeePMD model DeepPot, a Python callable): positions and a box in, energy, forces, virial out.
//
// Units (the module's, written once in md/units.h): positions and cell in Å, energy in eV,
// forces in eV/Å, virial in eV.
//
// Virial convention (the one of DeePMD-kit and LAMMPS): W = -dE/d(epsilon) at epsilon = 0, the
// derivative of the energy under a homogeneous strain x -> (1 + epsilon) x of positions and cell.
// For pair potentials W = sum over pairs of r_ij (x) f_j, with f_j the force on j from i (positive
// trace for repulsion). The pressure is P = (2 KE + trace W) / (3 V).
#pragma once

#include <cstdint>
#include <string>

#include "sampan/deepmd/neighbor_list.h"

namespace sampan::deepmd {

class Potential {
 public:
  virtual ~Potential() = default;

  /// Evaluates the potential for `natoms` atoms at `positions` ([natoms, 3] row-major, Å; need
  /// not be wrapped into the box) with types `types` ([natoms], 0-based) in `box`.
  /// Writes the total energy (eV) to *energy, the forces -dE/dx ([natoms, 3], eV/Å) to `forces`
  /// and the virial ([3, 3] row-major, eV; see above) to `virial`; each of the three outputs may
  /// be null when it is not wanted. Outputs are overwritten, not accumulated.
  virtual void compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
                       double* forces, double* virial) = 0;

  /// The same for one subdomain of a spatial decomposition (LAMMPS's pair style sampan/deepmd):
  /// the first `nlocal` of the `natoms` atoms are owned, the rest are ghosts (other ranks' atoms
  /// and periodic images, all as plain points in open space, covering the cutoff around every
  /// owned atom). *energy receives the sum of the atomic energies of the owned atoms only, and
  /// `forces` ([natoms, 3]) minus its gradient with respect to every atom, ghosts included (the
  /// caller adds ghost forces to their owners, as LAMMPS's reverse communication does). Summed
  /// over subdomains this is the energy and force of the whole system. The default raises
  /// NotImplementedError: a potential needs an atomic energy decomposition to provide it.
  virtual void compute_local(const double* positions, const int* types, int64_t nlocal, int64_t natoms,
                             double* energy, double* forces);

  /// Interaction range in Å: atoms farther apart than this do not interact.
  virtual double cutoff() const = 0;

  /// Number of atom types the potential knows (types must lie in [0, ntypes())).
  virtual int ntypes() const = 0;

  /// A short description for logs ("lj/cut rcut=8.5", "deeppot se_e2_a ...").
  virtual std::string describe() const = 0;
};

}  // namespace sampan::deepmd
